# Tests and benchmark of host_tools/drain (see docs/DRAIN.md). Helpers are built into
# $(BUILD)/drain/: an ASan+UBSan build of drain, the unit tests, a stream generator with known
# truth (gen), a stream damager (mangle), programs that record real stacks (symprog, PIE and not)
# and a program linked against the hosted library (hosted_app).

DRAIN_T := $(BUILD)/drain
DRAIN_T_DEC := $(wildcard host_tools/lib/*.c)
DRAIN_T_SRCS = $(filter-out $(DRAIN_DIR)/driver/%,$(DRAIN_SRCS))
DRAIN_T_CFLAGS := -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror -Wcast-qual $(SAN_FLAGS)
DRAIN_T_GEN_DEPS := tests/drain/streamgen.h tests/drain/simdev.h include/msamp_wire.h \
	include/msamp_thin.h
DRAIN_T_PROG_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -fno-omit-frame-pointer \
	-fno-optimize-sibling-calls -Iinclude
DRAIN_T_ENV = DRAIN=$(DRAIN_T)/drain-asan DRAIN_REL=host_tools/drain T=$(DRAIN_T) \
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1

TESTS += drain-unit drain-cli drain-exit drain-model drain-adapt drain-symbolize drain-hosted \
	drain-damage drain-inputs drain-merge drain-end drain-verdict-cover drain-verdict-diff \
	drain-verdict-check drain-verdict-family drain-marks
BENCHES += drain

$(DRAIN_T)/drain-asan: $(DRAIN_SRCS) $(DRAIN_HDRS) $(DRAIN_T_DEC)
	@mkdir -p $(@D)
	$(CC) $(DRAIN_T_CFLAGS) $(DRAIN_INC) $(DRAIN_SRCS) $(DRAIN_T_DEC) $(DRAIN_LIBS) -o $@

$(DRAIN_T)/test_drain: tests/drain/test_drain.c $(DRAIN_SRCS) $(DRAIN_HDRS) $(DRAIN_T_DEC)
	@mkdir -p $(@D)
	$(CC) $(DRAIN_T_CFLAGS) $(DRAIN_INC) $< $(DRAIN_T_SRCS) $(DRAIN_T_DEC) $(DRAIN_LIBS) -o $@

# drain's down-channel (input/control.c) against the device's parser on the fake port, over a
# simulated slow and lossy link (tests/drain/test_control.c defines the link's input_write).
$(DRAIN_T)/test_control: tests/drain/test_control.c host_tools/src/drain/input/control.c \
		host_tools/src/drain/util.c tests/unit/fake_port.c $(MSAMP_CORE_SRCS) src/wrap/wrap_malloc.c src/wrap/wrap_free.c \
		src/wrap/wrap_calloc.c src/wrap/wrap_realloc.c \
		$(HOSTDEC_SRCS) $(HOSTDEC_HDRS) host_tools/src/drain/input/control.h tests/unit/check.h \
		tests/unit/fake_port.h tests/unit/mark_list.h
	@mkdir -p $(@D)
	$(UNIT_CC) $(UNIT_CFLAGS) $(DRAIN_INC) $(filter %.c,$^) -lz -o $@

$(DRAIN_T)/gen: tests/drain/gen.c $(DRAIN_T_GEN_DEPS)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -Iinclude $< -lm -o $@

$(DRAIN_T)/mangle: tests/drain/mangle.c
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $< -o $@

$(DRAIN_T)/symprog: tests/drain/symprog.c $(DRAIN_T_GEN_DEPS)
	@mkdir -p $(@D)
	$(CC) $(DRAIN_T_PROG_CFLAGS) $< -lm -o $@

$(DRAIN_T)/symprog-nopie: tests/drain/symprog.c $(DRAIN_T_GEN_DEPS)
	@mkdir -p $(@D)
	$(CC) $(DRAIN_T_PROG_CFLAGS) -fno-pie -no-pie $< -lm -o $@

$(DRAIN_T)/hosted_app: tests/drain/hosted_app.c $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror \
	  $$(PKG_CONFIG_PATH=$(BUILD)/hosted pkg-config --cflags msamp) $< \
	  $$(PKG_CONFIG_PATH=$(BUILD)/hosted pkg-config --libs msamp) -o $@

$(DRAIN_T)/verdict_app: tests/drain/verdict_app.c $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror \
	  $$(PKG_CONFIG_PATH=$(BUILD)/hosted pkg-config --cflags msamp) $< \
	  $$(PKG_CONFIG_PATH=$(BUILD)/hosted pkg-config --libs msamp) -o $@

$(DRAIN_T)/refuse_app: tests/drain/refuse_app.c $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -fno-omit-frame-pointer \
	  $$(PKG_CONFIG_PATH=$(BUILD)/hosted pkg-config --cflags msamp) $< \
	  $$(PKG_CONFIG_PATH=$(BUILD)/hosted pkg-config --libs msamp) -o $@

DRAIN_T_TOOLS := host_tools/drain $(DRAIN_T)/drain-asan $(DRAIN_T)/gen $(DRAIN_T)/mangle
DRAIN_T_HELPERS := $(DRAIN_T_TOOLS) $(DRAIN_T)/test_drain $(DRAIN_T)/symprog \
	$(DRAIN_T)/symprog-nopie $(DRAIN_T)/hosted_app $(DRAIN_T)/verdict_app $(DRAIN_T)/refuse_app
.PHONY: drain-test-tools
drain-test-tools: $(DRAIN_T_HELPERS) ## Build drain's test helpers (sanitized drain, generators)
TEST_PREREQS += drain-test-tools

TESTS += drain-control
test-drain-control: $(DRAIN_T)/test_control ## drain: its command series, resends in order and resend wait against the device's parser over a simulated slow, lossy link (ASan+UBSan)
	$(DRAIN_T)/test_control

test-drain-unit: $(DRAIN_T)/test_drain ## drain: unit tests of the pprof model and session model (ASan+UBSan)
	$(DRAIN_T)/test_drain

test-drain-cli: $(DRAIN_T_TOOLS) $(DRAIN_T)/symprog ## drain: bad command lines, inputs and ELF files give clear errors
	$(DRAIN_T_ENV) tests/drain/t_cli.sh

test-drain-exit: $(DRAIN_T_TOOLS) $(DRAIN_T)/craft host_tools/msamp-dump ## drain and msamp-dump: every documented exit status, by the case that gives it
	@tests/need.sh go python3
	$(DRAIN_T_ENV) MSAMP_DUMP=host_tools/msamp-dump tests/drain/t_exit.sh

test-drain-model: $(DRAIN_T_TOOLS) ## drain: profiles of generated streams match their truth (go tool pprof)
	@tests/need.sh go
	$(DRAIN_T_ENV) tests/drain/t_model.sh

test-drain-adapt: $(DRAIN_T_TOOLS) host_tools/msamp-dump ## drain: streams of a device that adapts its interval equal their exact replay
	@tests/need.sh go
	$(DRAIN_T_ENV) MSAMP_DUMP=host_tools/msamp-dump tests/drain/t_adapt.sh

test-drain-symbolize: $(DRAIN_T_TOOLS) $(DRAIN_T)/symprog $(DRAIN_T)/symprog-nopie ## drain: --elf symbolization (PIE, bare, inline, build-id)
	@tests/need.sh go addr2line readelf
	$(DRAIN_T_ENV) tests/drain/t_symbolize.sh

test-drain-hosted: $(DRAIN_T_TOOLS) $(DRAIN_T)/hosted_app ## drain: hosted end-to-end read by go tool pprof
	@tests/need.sh go
	$(DRAIN_T_ENV) tests/drain/t_hosted.sh

test-drain-end: $(DRAIN_T_TOOLS) $(DRAIN_T)/hosted_app host_tools/msamp-dump ## drain: END says a stream is complete; a cut, stalled or reset stream is told incomplete; boots with one session id apart
	@tests/need.sh go
	$(DRAIN_T_ENV) MSAMP_DUMP=host_tools/msamp-dump tests/drain/t_end.sh

# How a session ended, kept in its profile (tests/drain/t_ended.sh on the saved reset stream
# tests/drain/reset_cortexm3.bin, made by test-board-reset-cortexm).
TESTS += drain-ended
test-drain-ended: $(DRAIN_T_TOOLS) ## drain: "ended" (reset, end, cut) kept in the profile: drain check/diff --json of saved profiles say what the stream said; merges of alike and different endings
	@tests/need.sh python3
	$(DRAIN_T_ENV) tests/drain/t_ended.sh

test-drain-damage: $(DRAIN_T_TOOLS) ## drain: damaged streams end to end (ASan+UBSan)
	@tests/need.sh go
	$(DRAIN_T_ENV) tests/drain/t_damage.sh

test-drain-inputs: $(DRAIN_T_TOOLS) ## drain: pty at 921600 baud, TCP on 127.0.0.1, --follow, stdin, SIGINT
	@tests/need.sh go socat stty
	$(DRAIN_T_ENV) tests/drain/t_inputs.sh

test-drain-merge: $(DRAIN_T_TOOLS) ## drain: merge of profiles
	@tests/need.sh go
	$(DRAIN_T_ENV) tests/drain/t_merge.sh

bench-drain: host_tools/drain $(DRAIN_T)/gen ## drain: decode throughput, profile write time, peak memory, instructions (BENCH_DRAIN_BASELINE=other drain beside)
	T=$(DRAIN_T) tests/drain/bench.sh

test-drain-verdict-cover: $(DRAIN_T_TOOLS) $(DRAIN_T)/verdict_app ## drain: 95 % intervals contain the truth for 90-99 % of (site, run) pairs; variances in the profile, summed by merge
	@tests/need.sh go python3
	$(DRAIN_T_ENV) tests/drain/t_verdict_cover.sh

test-drain-verdict-diff: $(DRAIN_T_TOOLS) $(DRAIN_T)/verdict_app ## drain diff: other seeds flag at most 5 % of comparisons; 25 % more at one site is flagged there alone, its true change inside the interval
	@tests/need.sh python3
	$(DRAIN_T_ENV) tests/drain/t_verdict_diff.sh

test-drain-verdict-check: $(DRAIN_T_TOOLS) $(DRAIN_T)/verdict_app ## drain check: pass, warn and fail with exit codes and JUnit; hostile SPECs and budget files exit 2; no live sample and an unplaced peak bounded (20 and 10 seeds at 512 KiB)
	@tests/need.sh python3 xmllint
	$(DRAIN_T_ENV) tests/drain/t_verdict_check.sh

test-drain-verdict-family: $(DRAIN_T_TOOLS) $(BUILD)/calibrate/calib_app ## drain check: 14 budgets 0.1 % above their truth, 240 CI runs: red at most 2.5 % (binomial) as one family, about 25 % judged alone; a budget at 70 % of its truth FAILs in >= 95 %
	@tests/need.sh python3
	$(DRAIN_T_ENV) CALIB_APP=$(BUILD)/calibrate/calib_app tests/drain/t_verdict_family.sh

test-drain-marks: $(DRAIN_T_TOOLS) $(DRAIN_T)/refuse_app host_tools/msamp-dump ## drain: a live table that refuses samples marks its sites' in-use (">=", widened interval, "lower_bound", check WARN), records lost mark every estimate, a clean run stays exact and PASSes; the summary's frees are END's
	@tests/need.sh python3
	$(DRAIN_T_ENV) REFUSE_APP=$(DRAIN_T)/refuse_app MSAMP_DUMP=host_tools/msamp-dump tests/drain/t_marks.sh

# Library frames as module + offset (docs/DRAIN.md "Symbolization"): libframes_app reaches its
# allocations through liblf.so (libframes_lib.c), built with frame pointers and its debug
# information split off into liblf.so.debug beside it (found by the .gnu_debuglink).
TESTS += drain-libframes
$(DRAIN_T)/libframes/liblf.so: tests/drain/libframes_lib.c
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -fno-omit-frame-pointer \
	  -fno-optimize-sibling-calls -fPIC -shared -Wl,--build-id $< -o $@.full
	objcopy --only-keep-debug $@.full $@.debug
	objcopy --strip-debug --strip-unneeded --add-gnu-debuglink=$@.debug $@.full $@
	rm -f $@.full

$(DRAIN_T)/libframes/libframes_app: tests/drain/libframes_app.c $(DRAIN_T)/libframes/liblf.so \
		$(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -fno-omit-frame-pointer \
	  -fno-optimize-sibling-calls \
	  $$(PKG_CONFIG_PATH=$(BUILD)/hosted pkg-config --cflags msamp) $< \
	  -L$(@D) -llf -Wl,-rpath,'$$ORIGIN' \
	  $$(PKG_CONFIG_PATH=$(BUILD)/hosted pkg-config --libs msamp) -o $@

test-drain-libframes: $(DRAIN_T)/drain-asan host_tools/msamp-dump $(DRAIN_T)/libframes/libframes_app ## drain: a shared library's frames as symbols (its own ELF, its split debug file) or [lib]+0xOFF, never a raw address: three processes (ASLR) give the same --top, --json and diff sites, merge sums them, pprof shows them
	$(DRAIN_T_ENV) LF_APP=$(DRAIN_T)/libframes/libframes_app tests/drain/t_libframes.sh

# drain's stage rule and house measures (tests/drain/stages.py, docs/ARCHITECTURE.md "drain"):
# includes by path, none upward across DRAIN_STAGES, no circle between files, no per-stage -I.
TESTS += drain-stages
test-drain-stages: ## drain: its sources obey the stage rule (by-path includes, none upward, no circle, no per-stage -I); prints lines per folder, largest files and long functions
	@tests/need.sh python3
	python3 tests/drain/stages.py
