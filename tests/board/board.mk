# Board tests: the port self-test and the demo end to end under QEMU, for BOARD (default
# qemu-virt-aarch64). Another board joins `make test` by being listed in BOARD_TESTED: it gets a
# test board-<board> running its self-test and its end-to-end UART test.
BOARD_TESTED := qemu-virt-aarch64

ifneq ($(wildcard boards/$(BOARD)/board.mk),)
SELFTEST_ELF := $(BOARD_DIR)/selftest.elf
$(BOARD_DIR)/obj/tests/board/port_selftest.o: OBJ_DEFS := $(BOARD_SELFTEST_DEFS)
$(SELFTEST_ELF): $(BOARD_DIR)/obj/tests/board/port_selftest.o $(BOARD_OBJS) $(BOARD_DIR)/obj/$(DEMO_DIR)/mini_libc.o \
		$(call obj_of,$(BOARD_DIR)/obj,$(MSAMP_PORT_SRCS)) $(BOARD_LDSCRIPT)
	$(BOARD_CC) $(BOARD_TARGET_CFLAGS) $(BOARD_LD_SELECT) -nostdlib -static $(BOARD_NOPIE) -T $(BOARD_LDSCRIPT) -Wl,--build-id \
		-o $@ $(filter %.o,$^) $(BOARD_LIBGCC)
endif

TESTS += board-selftest
test-board-selftest: ## Port self-test on the board under QEMU: walker (real and forged frames), contexts, lock, clock, build-id
	@tests/need.sh $(BOARD_CROSS)gcc $(firstword $(BOARD_QEMU)) $(BOARD_CROSS)readelf
	@$(MAKE) --no-print-directory -s $(SELFTEST_ELF)
	@$(BOARD_ENV) BOARD_CROSS=$(BOARD_CROSS) tests/board/selftest.sh $(SELFTEST_ELF) $(BOARD_DIR)/selftest-run

BOARD_E2E_NEEDS := $(BOARD_CROSS)gcc $(firstword $(BOARD_QEMU)) go
# BOARD_DRAIN_BUILT=1: host_tools/drain is already built (sub-makes with another BUILD).
board_e2e = @tests/need.sh $(BOARD_E2E_NEEDS) && \
	$(MAKE) --no-print-directory -s $(if $(BOARD_DRAIN_BUILT),,host_tools/drain host_tools/msamp-dump) \
		$(foreach v,$(DEMO_VARIANTS),$(BOARD_DIR)/$(2)/$(v).elf) && \
	$(BOARD_ENV) tests/board/e2e.sh $(1) $(2) $(BOARD_DIR)

TESTS += board-e2e-uart board-e2e-semihosting board-stall board-late-join board-scale board-verdict
test-board-verdict: ## The demo gated by drain check (a budget it meets passes, one it breaks fails, JUnit), out/demo.json valid
	@tests/need.sh python3
	$(call board_e2e,verdict,uart)
test-board-e2e-uart: ## Demo over the UART: pprof symbols, estimates within bound, leak live, ISR stacks, drops
	$(call board_e2e,full,uart)
test-board-e2e-semihosting: ## The same over semihosting
	$(call board_e2e,full,semihosting)
test-board-scale: ## Live set 10x the table over the UART: the adaptive interval keeps estimates within bound
	$(call board_e2e,scale,uart)
test-board-stall: ## Stalled drain: the firmware never blocks, drain's drops equal the firmware's counters
	$(call board_e2e,stall,uart)
test-board-late-join: ## Drain joins mid-stream: the in-use profile is complete after the next re-send
	$(call board_e2e,late,uart)

TESTS += board-heap
test-board-heap: ## Heap health over the UART: drain's free/min_free/largest_free = the demo heap's own, the leak called a leak, the three lines on the timeline (Chromium)
	@tests/need.sh $(BOARD_E2E_NEEDS) chromium python3
	@$(MAKE) --no-print-directory -s host_tools/drain $(BOARD_DIR)/uart/demo.elf
	@$(BOARD_ENV) $(DEMO_DIR)/run_demo.sh $(BOARD_DIR)/uart/demo.elf uart $(BOARD_DIR)/test-heap \
		$(BOARD_DIR)/test-heap/demo.pb.gz >$(BOARD_DIR)/test-heap.log 2>&1 || { cat $(BOARD_DIR)/test-heap.log; exit 1; }
	@tests/board/check_heap.sh $(BOARD_DIR)/test-heap leak=leak_record
	@tests/board/heap_timeline.sh $(BOARD_DIR)/test-heap $(BOARD_DIR)/uart/demo.elf

# Firmware integration: the demo built by a project's own Makefile through port/msamp.mk, and by
# its own CMake build through port/msamp.cmake, then run and checked like the demo. Each project's
# msamp part is the README's block (README.md, doc-test: board-integration-make / -cmake), read
# when it builds; the project's folder has third_party/msamp, this checkout, as the blocks say.
# The sub-make gets none of this make's variables (a project's make knows nothing of BUILD or CC).
TESTS += board-integration-make board-integration-cmake
test-board-integration-make: ## Demo built by a standalone Makefile whose msamp part is README.md's Make block, run and checked
	@tests/need.sh aarch64-linux-gnu-gcc qemu-system-aarch64 go
	@$(MAKE) --no-print-directory -s host_tools/drain
	@rm -rf $(BUILD)/fw-make && mkdir -p $(BUILD)/fw-make/third_party && ln -s $(CURDIR) $(BUILD)/fw-make/third_party/msamp
	@env -u MAKEFLAGS -u MAKEOVERRIDES -u MFLAGS $(MAKE) --no-print-directory -s -j2 -C $(BUILD)/fw-make \
		-f $(CURDIR)/tests/board/fw_make/Makefile
	@$(BOARD_ENV) $(DEMO_DIR)/run_demo.sh $(BUILD)/fw-make/firmware.elf uart $(BUILD)/fw-make/run $(BUILD)/fw-make/run/demo.pb.gz >/dev/null
	@tests/board/check_demo.sh $(BUILD)/fw-make/run/demo.pb.gz $(BUILD)/fw-make/run/console.txt
test-board-integration-cmake: ## Demo built by a standalone CMake project whose msamp part is README.md's CMake block, run and checked
	@tests/need.sh cmake aarch64-linux-gnu-gcc qemu-system-aarch64 go
	@$(MAKE) --no-print-directory -s host_tools/drain
	@rm -rf $(BUILD)/fw-cmake && mkdir -p $(BUILD)/fw-cmake/project/third_party && \
		ln -s $(CURDIR) $(BUILD)/fw-cmake/project/third_party/msamp && \
		cp tests/board/fw_cmake/CMakeLists.txt $(BUILD)/fw-cmake/project/
	@env -u MAKEFLAGS -u MAKEOVERRIDES -u MFLAGS cmake -S $(BUILD)/fw-cmake/project -B $(BUILD)/fw-cmake/build \
		-DCMAKE_TOOLCHAIN_FILE=$(CURDIR)/tests/board/fw_cmake/aarch64-none.cmake >$(BUILD)/fw-cmake/configure.log || \
		{ cat $(BUILD)/fw-cmake/configure.log; exit 1; }
	@env -u MAKEFLAGS -u MAKEOVERRIDES -u MFLAGS cmake --build $(BUILD)/fw-cmake/build -j2 >$(BUILD)/fw-cmake/build.log || \
		{ cat $(BUILD)/fw-cmake/build.log; exit 1; }
	@$(BOARD_ENV) $(DEMO_DIR)/run_demo.sh $(BUILD)/fw-cmake/build/firmware.elf uart $(BUILD)/fw-cmake/run $(BUILD)/fw-cmake/run/demo.pb.gz >/dev/null
	@tests/board/check_demo.sh $(BUILD)/fw-cmake/run/demo.pb.gz $(BUILD)/fw-cmake/run/console.txt

# The same board, port and demo built with clang (and lld): other frame layouts, DWARF 5.
TESTS += board-clang
test-board-clang: ## Port self-test and the UART end-to-end test with everything built by clang + lld
	@tests/need.sh clang ld.lld $(BOARD_CROSS)gcc $(firstword $(BOARD_QEMU)) go
	@$(MAKE) --no-print-directory -s host_tools/drain
	@$(MAKE) --no-print-directory -s BUILD=$(BUILD)/clang BOARD_COMPILER=clang test-board-selftest
	@$(MAKE) --no-print-directory -s BUILD=$(BUILD)/clang BOARD_COMPILER=clang BOARD_DRAIN_BUILT=1 test-board-e2e-uart

define board_other_test
TESTS += board-$(1)
test-board-$(1): ## Self-test and end-to-end UART test of the board $(1)
	@$$(MAKE) --no-print-directory -s BOARD=$(1) test-board-selftest test-board-e2e-uart
endef
$(foreach b,$(filter-out qemu-virt-aarch64,$(BOARD_TESTED)),$(eval $(call board_other_test,$(b))))

# The Cortex-M clock with an application's SysTick (tests/board/clock.sh) on a Cortex-M3 and a
# Cortex-M0 board, whatever BOARD is.
TESTS += board-clock
CLOCK_BOARDS := qemu-mps2-an385 qemu-microbit
test-board-clock: ## HAL-style SysTick at 1 kHz before msamp_init (Cortex-M3, M0): peak time and leak rate within 10 % of the own-clock demo's; drain warns of a wrong clock only
	@tests/need.sh arm-none-eabi-gcc qemu-system-arm python3
	@$(MAKE) --no-print-directory -s host_tools/drain host_tools/msamp-dump
	@for b in $(CLOCK_BOARDS); do echo "$$b:"; $(MAKE) --no-print-directory -s BOARD=$$b board-clock-one || exit 1; done
board-clock-one:
	@$(MAKE) --no-print-directory -s $(foreach v,$(DEMO_CLOCK_VARIANTS),$(BOARD_DIR)/uart/$(v).elf)
	@$(BOARD_ENV) tests/board/clock.sh $(BOARD_DIR)

TESTS += board-late-join-tcp
test-board-late-join-tcp: ## Drain connects over TCP a second after the firmware started: in-use complete and within bound
	@tests/need.sh ss
	$(call board_e2e,tcp-late,uart)
