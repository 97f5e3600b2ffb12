# RTOS tests (issue 17): qemu-mps2-an385-freertos, FreeRTOS V11.2.0 with msamp's FreeRTOS layer
# (docs/FREERTOS.md). One QEMU run of its demo, as `make demo` runs it, with every site listed,
# checked against the demo's per-task truth (tests/rtos/check_freertos.sh).
RTOS_BOARD := qemu-mps2-an385-freertos
RTOS_OUT = $(BUILD)/tests/rtos

TESTS += rtos-freertos
test-rtos-freertos: ## FreeRTOS on Cortex-M3: per-task estimates within bound, the leaking task found, preemption inside msamp loses nothing, live table = heap_4's
	@tests/need.sh arm-none-eabi-gcc qemu-system-arm
	@$(MAKE) --no-print-directory -s host_tools/drain
	@$(MAKE) --no-print-directory -s BOARD=$(RTOS_BOARD) BOARD_DRAIN_BUILT=1 firmware
	@mkdir -p $(RTOS_OUT)
	@$(MAKE) --no-print-directory -s BOARD=$(RTOS_BOARD) rtos-run RTOS_RUN_OUT=$(RTOS_OUT)/run
	@tests/rtos/check_freertos.sh $(RTOS_OUT)/run

ifeq ($(BOARD),$(RTOS_BOARD))
.PHONY: rtos-run
rtos-run:
	@$(BOARD_ENV) DRAIN=$(DRAIN) $(DEMO_DIR)/run_demo.sh $(DEMO_ELF) uart $(RTOS_RUN_OUT) \
		$(RTOS_RUN_OUT)/demo.pb.gz 100000 >$(RTOS_RUN_OUT).log 2>&1 || { cat $(RTOS_RUN_OUT).log; exit 1; }
endif
