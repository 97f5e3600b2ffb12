# Fuzzing with libFuzzer (clang -fsanitize=fuzzer,address,undefined), docs/DRAIN.md "Fuzzing".
# Targets: decoder (tests/decoder/fuzz_decoder.c, built by decoder.mk), model (drain's session
# model, pprof builder, reports and writer fed with decoded records, the profile read back) and
# merge (the pprof reader of `drain merge`, gzip and raw, and the merger). Seed corpora are made at
# build time by tests/fuzz/seeds.sh from tests/drain/gen.c streams, tests/vectors and drain's
# profiles of them; corpora grow in $(BUILD)/fuzz/NAME-corpus, findings land in
# $(BUILD)/fuzz/NAME-crashes/. Every finding kept as a regression input in tests/fuzz/regress/NAME/
# is run by test-fuzz-regress.
#   make fuzz                  every target in FUZZ_TARGETS for FUZZ_RUNS executions (10^7)
#   make fuzz FUZZ_SECONDS=300 ... or at most that long each
#   make fuzz-model            one target
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_SECONDS ?=
FUZZ_SHORT_SECONDS ?= 20
FUZZ_CFLAGS_BASE := -std=c11 -D_GNU_SOURCE -g -O2 -Wall -Wextra -Werror -Wcast-qual \
	-fno-sanitize-recover=all
FUZZ_CFLAGS := $(FUZZ_CFLAGS_BASE) -fsanitize=fuzzer,address,undefined
FUZZ_DRAIN_SRCS = $(DRAIN_T_SRCS) $(HOSTDEC_SRCS)
# drain's sources are compiled for the fuzzers once, into one archive that every fuzzer (model,
# merge, heapdump) links: each compiled them all itself before, about 90 s of CPU each, 3 times in
# every `make test`. The objects take the sanitizers' instrumentation without libFuzzer's main
# (fuzzer-no-link); fuzz_lib builds the archive under a lock with two jobs, since the fuzz tests run
# side by side in the test runner's two workers and would otherwise write the same objects at once.
FUZZ_OBJ_DIR := $(FUZZ_DIR)/obj
FUZZ_DRAIN_LIB := $(FUZZ_DIR)/libdrain_fuzz.a
FUZZ_DRAIN_OBJS = $(patsubst %.c,$(FUZZ_OBJ_DIR)/%.o,$(FUZZ_DRAIN_SRCS))
# Limits of every run: a 10 s hang or 2 GiB is a finding; inputs up to 16 KiB (the seeds are
# below 8 KiB: small inputs run faster). ASan's quarantine is 32 MiB instead of 256 (a use after
# free is still caught when the block was freed recently, as it is within one input): 1.6x faster.
FUZZ_OPTS := -timeout=10 -rss_limit_mb=2048 -max_len=16384 -print_final_stats=1
FUZZ_ENV := ASAN_OPTIONS=$${ASAN_OPTIONS:-quarantine_size_mb=32}
FUZZ_LONG_OPTS = -runs=$(FUZZ_RUNS) $(if $(FUZZ_SECONDS),-max_total_time=$(FUZZ_SECONDS))

FUZZ_TARGETS += model merge
TESTS += fuzz-model fuzz-merge fuzz-regress
ROBUST_TESTS += fuzz-model fuzz-merge fuzz-regress

$(FUZZ_OBJ_DIR)/%.o: %.c $(DRAIN_HDRS) $(HOSTDEC_HDRS)
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS_BASE) -fsanitize=fuzzer-no-link,address,undefined $(DRAIN_INC) -c $< -o $@

$(FUZZ_DRAIN_LIB): $(FUZZ_DRAIN_OBJS)
	rm -f $@ && ar rcs $@ $^

# The archive, built once however many fuzz tests ask for it at the same time.
define fuzz_lib
	@mkdir -p $(FUZZ_DIR)
	@flock $(FUZZ_DIR)/.lib.lock $(MAKE) --no-print-directory -s -j2 $(FUZZ_DRAIN_LIB)
endef

$(FUZZ_DIR)/model_fuzz: tests/fuzz/fuzz_model.c $(FUZZ_DRAIN_LIB)
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) $(DRAIN_INC) $< $(FUZZ_DRAIN_LIB) $(DRAIN_LIBS) -o $@

$(FUZZ_DIR)/merge_fuzz: tests/fuzz/fuzz_merge.c $(FUZZ_DRAIN_LIB)
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) $(DRAIN_INC) $< $(FUZZ_DRAIN_LIB) $(DRAIN_LIBS) -o $@

$(DRAIN_T)/unframe: tests/fuzz/unframe.c $(HOSTDEC_SRCS) $(HOSTDEC_HDRS)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(HOSTDEC_INC) $< $(HOSTDEC_SRCS) -lz -o $@

$(FUZZ_DIR)/.seeds: tests/fuzz/seeds.sh $(DRAIN_T)/gen $(DRAIN_T)/drain-asan $(DRAIN_T)/unframe \
		$(wildcard tests/vectors/*.bin)
	@mkdir -p $(@D)
	ASAN_OPTIONS=detect_leaks=1 tests/fuzz/seeds.sh $(DRAIN_T) $(FUZZ_DIR)
	@touch $@

# $(1): target (model, merge); $(2): libFuzzer's limits. Runs on a corpus in $(FUZZ_DIR), seeded.
define fuzz_run
	@tests/need.sh clang
	$(fuzz_lib)
	@$(MAKE) --no-print-directory $(FUZZ_DIR)/$(1)_fuzz $(FUZZ_DIR)/.seeds
	@mkdir -p $(FUZZ_DIR)/$(1)-corpus $(FUZZ_DIR)/$(1)-crashes
	$(FUZZ_ENV) $(FUZZ_DIR)/$(1)_fuzz $(2) $(FUZZ_OPTS) -artifact_prefix=$(FUZZ_DIR)/$(1)-crashes/ \
	  $(FUZZ_DIR)/$(1)-corpus $(FUZZ_DIR)/$(1)-seed
endef

.PHONY: fuzz fuzz-model fuzz-merge test-fuzz-model test-fuzz-merge test-fuzz-regress

fuzz: ## Fuzz every target (FUZZ_TARGETS) for FUZZ_RUNS executions each (or FUZZ_SECONDS)
	@set -e; for t in $(FUZZ_TARGETS); do $(MAKE) --no-print-directory fuzz-$$t; done

fuzz-model:
	$(call fuzz_run,model,$(FUZZ_LONG_OPTS))

fuzz-merge:
	$(call fuzz_run,merge,$(FUZZ_LONG_OPTS))

test-fuzz-model: ## Fuzz drain's model and pprof writer for 20 s (libFuzzer, ASan+UBSan)
	$(call fuzz_run,model,-max_total_time=$(FUZZ_SHORT_SECONDS))

test-fuzz-merge: ## Fuzz drain merge's pprof reader for 20 s (libFuzzer, ASan+UBSan)
	$(call fuzz_run,merge,-max_total_time=$(FUZZ_SHORT_SECONDS))

# Every kept finding runs once through its fuzzer (which aborts on any failure).
test-fuzz-regress: ## Run the fuzzers' regression inputs (tests/fuzz/regress/)
	@tests/need.sh clang
	$(fuzz_lib)
	@$(MAKE) --no-print-directory $(FUZZ_DIR)/model_fuzz $(FUZZ_DIR)/merge_fuzz $(DEC_FUZZ)
	@set -e; n=0; for t in decoder model merge; do \
	  bin=$(FUZZ_DIR)/$${t}_fuzz; [ $$t = decoder ] && bin=$(DEC_FUZZ); \
	  files=$$(find tests/fuzz/regress/$$t -type f ! -name '*.md' 2>/dev/null | sort); \
	  [ -n "$$files" ] || continue; \
	  $$bin $(FUZZ_OPTS) $$files >$(FUZZ_DIR)/regress-$$t.log 2>&1 || \
	    { cat $(FUZZ_DIR)/regress-$$t.log; echo "fuzz-regress: $$t failed"; exit 1; }; \
	  k=$$(echo "$$files" | wc -l); n=$$((n + k)); echo "fuzz-regress: $$t: $$k inputs ok"; \
	done; test $$n -gt 0 || { echo "fuzz-regress: no regression inputs"; exit 1; }
