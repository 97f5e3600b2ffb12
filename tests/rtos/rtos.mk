# RTOS tests (issue 17): qemu-mps2-an385-freertos, FreeRTOS V11.2.0 with msamp's FreeRTOS layer
# (docs/FREERTOS.md). One QEMU run of its demo, as `make demo` runs it, with every site listed,
# checked against the demo's per-task truth (tests/rtos/check_freertos.sh); built with gcc (the
# exidx walker) and with clang (the r7 frame chain).
RTOS_BOARD := qemu-mps2-an385-freertos
RTOS_OUT = $(BUILD)/tests/rtos

# $(1): the test's name suffix, $(2): the board's compiler
define rtos_test
TESTS += rtos-freertos$(1)
test-rtos-freertos$(1): ## FreeRTOS on Cortex-M3 ($(2)): per-task estimates within bound, the leaking task found, preemption inside msamp loses nothing, live table = heap_4's, the task that passes its budget, every view agreeing with the JSON
	@tests/need.sh arm-none-eabi-gcc qemu-system-arm go python3 $(if $(filter clang,$(2)),clang ld.lld)
	@$$(MAKE) --no-print-directory -s host_tools/drain
	@$$(MAKE) --no-print-directory -s BOARD=$(RTOS_BOARD) BOARD_COMPILER=$(2) firmware
	@mkdir -p $(RTOS_OUT)
	@$$(MAKE) --no-print-directory -s BOARD=$(RTOS_BOARD) BOARD_COMPILER=$(2) rtos-run \
		RTOS_RUN_OUT=$(RTOS_OUT)/run-$(2)
	@tests/rtos/check_freertos.sh $(RTOS_OUT)/run-$(2)
	@DRAIN=host_tools/drain tests/analysis/t_consistency.sh $(RTOS_OUT)/consistency-$(2) \
		$(RTOS_OUT)/run-$(2)/stream.bin:$(BUILD)/$(RTOS_BOARD)$(if $(filter clang,$(2)),-clang)/uart/demo.elf >$(RTOS_OUT)/consistency-$(2).log || \
		{ grep -v '^ok' $(RTOS_OUT)/consistency-$(2).log; exit 1; }
	@echo "ok: every view of the stream agrees with its JSON ($$$$(grep -c '^ok' $(RTOS_OUT)/consistency-$(2).log) checks: tests/analysis/t_consistency.sh, with the tasks' column and the heap's long-lived blocks)"
endef
$(eval $(call rtos_test,,gcc))
$(eval $(call rtos_test,-clang,clang))

TESTS += rtos-drain-tasks
test-rtos-drain-tasks: ## drain on an RTOS stream (tests/vectors/tasks.bin): sites split by task, --top's task column, the pprof label task, the by-task table
	@$(MAKE) --no-print-directory -s $(DRAIN_T)/drain-asan
	@$(DRAIN_T_ENV) tests/rtos/drain_tasks.sh $(DRAIN_T)/drain-asan $(RTOS_OUT)/drain

# QEMU runs with -icount (virtual time from the instructions run; 16 ns an instruction, about the
# pace of an unloaded host): the heap verdict judges growth against time, and on a loaded host a
# stall of QEMU's thread made wall-clock time jump, so the leak read as one batch ("fragmentation"
# without leak_record; 1 run in 12 with two busy loads beside it).
ifeq ($(BOARD),$(RTOS_BOARD))
.PHONY: rtos-run
rtos-run:
	@$(BOARD_ENV) BOARD_QEMU="$(BOARD_QEMU) -icount shift=4" DRAIN=$(DRAIN) $(DEMO_DIR)/run_demo.sh $(DEMO_ELF) uart $(RTOS_RUN_OUT) \
		$(RTOS_RUN_OUT)/demo.pb.gz 100000 >$(RTOS_RUN_OUT).log 2>&1 || { cat $(RTOS_RUN_OUT).log; exit 1; }
endif
