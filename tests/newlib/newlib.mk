# Debian's newlib (libnewlib-arm-none-eabi) under msamp, and the ARM port's exidx walker with gcc,
# on qemu-mps2-an385 (Cortex-M3) under QEMU. The firmware is tests/newlib/newlib_fw.c, built as a
# firmware project builds it: through port/msamp.mk (tests/newlib/fw.make) or port/msamp.cmake
# (tests/newlib/cmake/). Each test runs its script with the board's QEMU command (a sub-make with
# BOARD=qemu-mps2-an385 for BOARD_ENV).
NL_DIR := $(BUILD)/newlib
NL_TOOLS = @$(MAKE) --no-print-directory -s host_tools/drain host_tools/msamp-dump
# NL_OBJ: the objects of msamp and the board, shared by the tests (one folder per set of flags).
nl_run = @$(MAKE) --no-print-directory -s BOARD=qemu-mps2-an385 nl-run NL_RUN="NL_OBJ=$(NL_DIR)/obj $(1)"

TESTS += newlib-counts newlib-cmake arm-unwind-flags arm-unwind-extab
test-newlib-counts: ## newlib and newlib-nano, six wrap sets, interval 1: each allocation and free recorded once, right size and site
	@tests/newlib/need_newlib.sh
	$(NL_TOOLS)
	$(call nl_run,tests/newlib/counts.sh $(NL_DIR)/counts)
test-newlib-cmake: ## The newlib firmware through port/msamp.cmake, all eight entry points wrapped: counts once, whole stacks
	@tests/newlib/need_newlib.sh cmake
	$(NL_TOOLS)
	$(call nl_run,tests/newlib/cmake.sh $(NL_DIR)/cmake)
TESTS += newlib-cmake-indirect
test-newlib-cmake-indirect: ## msamp.cmake with newlib's _r functions alone wrapped, reached only through newlib's malloc and strdup: links (-u), each allocation and free recorded once
	@tests/newlib/need_newlib.sh cmake
	$(NL_TOOLS)
	$(call nl_run,tests/newlib/cmake_indirect.sh $(NL_DIR)/cmake-indirect)
TESTS += newlib-verdict
test-newlib-verdict: ## newlib and newlib-nano, 5 sampling seeds, with and without the heap-end hook: a firmware leaking 48 B every 10th call is a leak (leak_record alone, its one-time pool a step) in --leaks, the heap verdict and --json, the headroom unknown where the heap grows, from msamp.ld alone with newlib's own _sbrk, every view agreeing
	@tests/newlib/need_newlib.sh python3
	$(NL_TOOLS)
	$(call nl_run,tests/newlib/verdict.sh $(NL_DIR)/verdict)
test-arm-unwind-flags: ## gcc Cortex-M: msamp.mk's -funwind-tables gives whole stacks; without it every sample is DROPS no_frame
	@tests/newlib/need_newlib.sh
	$(NL_TOOLS)
	$(call nl_run,tests/newlib/unwind.sh flags $(NL_DIR)/unwind)
test-arm-unwind-extab: ## gcc Cortex-M with .ARM.extab linked after .ARM.exidx: stacks are whole
	@tests/newlib/need_newlib.sh
	$(NL_TOOLS)
	$(call nl_run,tests/newlib/unwind.sh extab $(NL_DIR)/extab)

ifeq ($(BOARD),qemu-mps2-an385)
.PHONY: nl-run
nl-run:
	@$(BOARD_ENV) $(NL_RUN)
endif

BENCHES += newlib-nested
bench-newlib-nested: ## Instructions of malloc+free and calloc+free through newlib-nano by wrap set and MSAMP_CFG_WRAP_NESTED (the guard's cost)
	@tests/newlib/need_newlib.sh
	@echo "msamp's nesting guard: instructions per pair through newlib-nano (QEMU, one per TB), sampling disabled"
	$(call nl_run,tests/newlib/bench_nested.sh $(NL_DIR)/bench)
