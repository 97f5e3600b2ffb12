# msamp top-level Makefile. Each area keeps its rules in its own fragment (*.mk), included below;
# a fragment adds test names to TESTS (run as `make test-NAME`) and benchmarks to BENCHES.
# `make help` lists the targets documented with ## (but test-*), every benchmark, and the tests by
# group (HELP_TEST_GROUPS below: a new test whose name no group covers fails firstcontact-make-help).

.DEFAULT_GOAL := all
SHELL := /bin/bash
BUILD ?= build
BOARD ?= qemu-virt-aarch64
TRANSPORT ?= uart

CC ?= cc
ifeq ($(origin CC),default)
CC := gcc
endif
AR ?= ar

# Warnings for the freestanding target code, on every compiler and architecture.
TARGET_WARN := -std=c11 -Wall -Wextra -Werror -Werror=undef -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wvla -Wpointer-arith -Wno-unused-parameter
# Host tools and tests.
HOST_CFLAGS ?= -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

TESTS :=
BENCHES :=

# The fragments, each read once, in the order they depend on each other: a fragment may use at once
# (in targets, prerequisites, := and $(eval)) what those before it define. The core's source lists
# and the ports' (port/msamp.mk, which boards.mk includes as a firmware project does, reads them
# only when they were not read before); the host tools (the decoder library, then drain's
# fragments, wherever in host_tools/ they are); the hosted library; the boards; the tests (drain's own
# first: its other fragments name its helpers). A fragment is read only when listed here: every
# *.mk in these folders must be (the check below stops make otherwise).
MK_FRAGMENTS := src/sources.mk \
	port/aarch64/port.mk port/arm/port.mk port/hosted/port.mk port/mips64/port.mk port/riscv32/port.mk port/riscv64/port.mk \
	port/x86_64/port.mk \
	host_tools/host_tools.mk \
	$(filter-out host_tools/host_tools.mk,$(sort $(wildcard host_tools/*.mk host_tools/*/*.mk host_tools/*/*/*.mk))) \
	port/hosted/hosted.mk \
	boards/boards.mk \
	tests/analysis/analysis.mk tests/bench/bench.mk tests/board/board.mk tests/board/board_faults.mk tests/board/board_reset.mk \
	tests/calibrate/calibrate.mk tests/link/link.mk \
	tests/control/control.mk tests/cross/cross.mk tests/cxx/cxx.mk tests/decoder/decoder.mk \
	tests/docs/docs.mk \
	tests/drain/drain_tests.mk tests/drain/drain_fail.mk tests/drain/drain_io.mk tests/drain/drain_model.mk \
	tests/fastpath/fastpath.mk tests/firstcontact/firstcontact.mk tests/fuzz/fuzz.mk \
	tests/hosted/hosted.mk tests/hosted/hosted_robust.mk tests/hosted/preload.mk \
	tests/knobs/knobs.mk \
	tests/newlib/newlib.mk tests/ports/ports.mk tests/postmortem/postmortem.mk \
	tests/robust/noise.mk tests/robust/robust.mk tests/rtos/rtos.mk tests/rtt/rtt.mk tests/unit/unit.mk \
	tests/views/views.mk tests/budgets/budgets.mk tests/fleet/fleet.mk
# A new fragment is listed above, where what it uses is defined: make stops until it is.
# (port/msamp.mk and boards/<board>/board.mk are included by boards/boards.mk.)
MK_UNLISTED := $(filter-out $(MK_FRAGMENTS),$(wildcard src/*.mk port/*/*.mk host_tools/*.mk \
	host_tools/*/*.mk host_tools/*/*/*.mk boards/*.mk tests/*/*.mk))
ifneq ($(MK_UNLISTED),)
$(error Makefile: fragment(s) not in MK_FRAGMENTS, so never read: $(MK_UNLISTED))
endif
include $(MK_FRAGMENTS)
# TOOLS is complete only now (drain.mk adds to it after host_tools.mk defines the target).
tools: $(TOOLS)

.PHONY: all deps test check test-list bench help clean

all: $(ALL_TARGETS) ## Build the hosted library and the host tools

deps: ## Install missing Debian packages (as root) or print the apt-get line
	@ci/deps.sh all

# make test runs two lanes side by side (tests/runner.sh): the cross-architecture, unit and
# libFuzzer tests, the size table, the package check, the clang board build (in $(BUILD)/clang), the
# checks of make's database, and three drain tests that use only what is built first (drain's
# bounds on crafted streams, the verdict family), whose build outputs no other test shares, beside
# all the others (the second lane took 1,338 s of CI's 2,351: these move about 130 s over);
# what both lanes use (drain's test tools, the decoder's test programs, msamp_check, calib_app) is
# built first.
TEST_LANE = $(filter cross-% unit-% fuzz-% decoder-fuzz ports-size firstcontact-deps board-clang \
	docs-make-targets firstcontact-make-help drain-bounds drain-bounds-sites drain-verdict-family,$(TESTS))
test: ## Run every test (installs missing packages when root); ends with "N passed, N failed"
	@ci/deps.sh all
	@$(MAKE) --no-print-directory $(TEST_PREREQS) $(HT)/msamp_check
	@MAKE="$(MAKE)" BUILD="$(BUILD)" TEST_LANE="$(TEST_LANE)" tests/runner.sh $(filter-out $(TEST_LANE),$(TESTS))

# The quick tier, run before a commit: the core's unit tests (each test program in one build, the
# tiny profile's included; unit-core_small, -tiny_minimal, -adapt_compact, -fill_tiny, -fail_tiny and
# -command_tiny, other configurations of the same programs, run in make test only), the decoder's
# tests, drain's unit tests and its stage rule (drain-stages), all built with -Werror under ASan+UBSan. Their programs
# are built first, in parallel (a program that does not build fails its test in the runner, with
# its log); then two workers share the tests, the longest first (TEST_JOBS), in their quick mode
# (TEST_QUICK=1: unit-spread on fewer strides), each `make test-NAME` without make's built-in rules
# (-r: 0.45 s of CPU each to parse the Makefile with them, 0.03 s without). About 40 s on two idle
# cores from a clean build folder, 8 s once built (tests/check_time.sh measures it; docs/TESTS.md).
# A name below that make test lacks is left out; the list is longest first (the runner's times);
# docs/TESTS.md's make check section names every test of it.
CHECK_TESTS := $(foreach t,unit-spread drain-unit unit-fill unit-adapt decoder-robust unit-writer_bitwise \
	unit-fail msamp-dump-cli vectors-decode unit-writer_nibble unit-writer unit-sampler unit-sampler32 \
	unit-command unit-core unit-tiny unit-vectors unit-tables unit-tables_compact unit-tables_runtime unit-budget \
	decoder-unit drain-stages,$(filter $(t),$(TESTS)))
CHECK_UNIT := $(patsubst unit-%,%,$(filter unit-%,$(CHECK_TESTS)))
CHECK_BUILD = $(addprefix $(UNIT_OUT)/test_,$(filter-out spread,$(CHECK_UNIT)) vectors_addr \
	spread_256 spread_1024 spread_65536) \
	$(DEC_TEST_DIR)/test_decoder $(DEC_TEST_DIR)/test_robust $(DEC_TEST_DIR)/msamp-dump \
	host_tools/msamp-dump $(DRAIN_T)/test_drain
check: ## Quick tier, about 40 s on two cores: the core's unit tests, the decoder's and drain's unit tests; ends with "N passed, N failed"
	@ci/deps.sh host
	@-$(MAKE) --no-print-directory -r -s -k -j$(shell nproc 2>/dev/null || echo 2) $(CHECK_BUILD) >/dev/null 2>&1
	@MAKE="$(MAKE)" BUILD="$(BUILD)" TEST_JOBS=$(shell nproc 2>/dev/null || echo 2) TEST_MAKEFLAGS=-r TEST_QUICK=1 \
	  tests/runner.sh $(CHECK_TESTS)

test-list: ## Print the name of every test `make test` runs, one a line (run one: make test-NAME)
	@printf '%s\n' $(TESTS)

bench: ## Run the benchmarks; results are ratios against baselines measured in the same run
	@ci/deps.sh all
	@set -e; for b in $(BENCHES); do $(MAKE) -s --no-print-directory bench-$$b; done

# The groups of tests `make help` shows, PATTERN|WHAT: every name in TESTS falls under one.
define HELP_TEST_GROUPS
test-unit-*|the core's modules on a fake port under ASan+UBSan (tests/unit/)
test-decoder-*|the host decoder: hand-built frames, seeded damage, 20 s of libFuzzer (tests/decoder/)
test-vectors-decode|the golden vectors decoded to their listings by msamp-dump
test-msamp-dump-cli|msamp-dump's command line
test-drain-*|drain: model, pprof output, symbolization, inputs, damage, merge, signals (tests/drain/)
test-fastpath-*|the wrappers' unsampled path: its length in the disassembly, the frames the slow path walks from (tests/fastpath/)
test-hosted-*|the hosted Linux library: estimates, threads, walker, environment, output (tests/hosted/)
test-cross-*|the core freestanding for every target; unit and hosted tests under qemu-user (tests/cross/)
test-board-*|the aarch64 board under QEMU: self-test, demo end to end, faults, integrations (tests/board/)
test-rtt-*|SEGGER RTT: the transport on the host, drain gdb: against hostile servers, the demo through QEMU's gdbstub (tests/rtt/)
test-ports-*|every walker on forged stacks; the demo end to end on every other board (tests/ports/)
test-postmortem-*|the heap from a RAM dump or an ELF core: drain --ram/--core against the stream on four boards, hostile dumps (tests/postmortem/)
test-analysis-*|drain's answers: realloc chains, lifetimes, --min-lifetime, --peak, device labels through merge, folded file:line; hosted and on the board (tests/analysis/)
test-robust-*|noisy lines, hosted and firmware streams (tests/robust/; make check-robust, make soak)
test-fuzz-*|libFuzzer for 20 s per target, and the regression inputs (tests/fuzz/; make fuzz)
test-newlib-*|Debian's newlib and newlib-nano on the Cortex-M3: every allocation recorded once, drain's verdicts on their heap (tests/newlib/)
test-arm-unwind-*|the Cortex-M3's unwind tables: msamp.mk's -funwind-tables, .ARM.extab placement (tests/newlib/)
test-docs-*|the documentation's commands and code blocks run as written (tests/docs/)
test-views-*|drain's heap over time and flame graph: a hosted program's, in headless Chromium; bounds, errors (tests/views/)
test-control*|the down-channel: drain's commands acked over every UART, semihosting and hosted (tests/control/)
test-rtos-*|FreeRTOS on the Cortex-M3: per-task contexts and attribution against the demo's truth, preemption inside msamp (tests/rtos/)
test-fleet-*|the fleet store: drain push and drain fleet against a scratch PostgreSQL server, hosted devices and a board (tests/fleet/)
test-calibrate|the estimates' calibration: coverage and bias against hosted workloads' own truth over seeded runs (tests/calibrate/; make calibrate)
test-budgets|code, RAM, wire bytes, instruction counts and drain's memory within the budgets of tests/budgets/budgets.tsv
test-firstcontact-*|a new user's first steps: demo on every board without recommended packages, make help (tests/firstcontact/)
endef
export HELP_TEST_GROUPS

help: ## List every target: the documented ones, the benchmarks, the tests by group
	@echo "Usage: make [TARGET...] [BOARD=...] [TRANSPORT=...] [BUILD=...]"
	@echo "Targets:"
	@grep -hE '^[a-zA-Z0-9_%/.-]+:.*## ' $(MAKEFILE_LIST) | sort -t: -k1,1 -u | \
	  awk 'BEGIN {FS = ":.*## "} $$1 ~ /^(test|bench)-/ && $$1 != "test-list" {next} {printf "  %-22s %s\n", $$1, $$2}'
	@printf '  %-22s %s\n' fuzz-NAME "Fuzz one target (NAME: $(FUZZ_TARGETS)) for FUZZ_RUNS executions (or FUZZ_SECONDS)"
	@echo "Benchmarks (make bench runs them all):"
	@for b in $(sort $(BENCHES)); do \
	  d=$$(grep -hE "^bench-$$b:.*## " $(MAKEFILE_LIST) | sed 's/.*## //' | head -n1); \
	  [ -n "$$d" ] || d="(no ## description; defined in $$(grep -lE "^bench-$$b:" $(MAKEFILE_LIST) | head -n1))"; \
	  printf '  %-22s %s\n' "bench-$$b" "$$d"; done
	@echo "Tests (make test runs all $(words $(TESTS)); make check the quick tier; make test-list names them all):"
	@printf '  %-22s %s\n' test-NAME "One test; its output in $(BUILD)/test-logs/NAME.log when run by make test/check"
	@printf '%s\n' "$$HELP_TEST_GROUPS" | while IFS='|' read -r p d; do \
	  n=0; for t in $(TESTS); do [[ "test-$$t" == $$p ]] && n=$$((n + 1)); done; \
	  printf '  %-22s %s\n' "$$p" "$$d$$([ "$$p" = "$${p%\*}" ] || echo " [$$n]")"; done
	@echo "Variables: BOARD=$(BOARD) (boards/*/) TRANSPORT=$(TRANSPORT) (uart|semihosting|rtt) CC=$(CC) BUILD=$(BUILD)"

clean: ## Remove build outputs
	rm -rf $(BUILD) out $(CLEAN_FILES)
