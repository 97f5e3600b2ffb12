# Tests of the host decoder and msamp-dump: unit tests, golden vectors, robustness, fuzzing.
# The decoder is rebuilt here with $(SAN_FLAGS) so every test runs it under ASan and UBSan.

DEC_TEST_DIR := $(BUILD)/host/san
DEC_SAN_CFLAGS := $(HOST_TOOLS_CFLAGS) -O1 $(SAN_FLAGS) $(HOSTDEC_INC) -Itests/decoder
DEC_SAN_SRCS := $(HOSTDEC_SRCS) tests/decoder/wire_build.c
DEC_TEST_HDRS := $(HOSTDEC_HDRS) tests/decoder/wire_build.h
DEC_VECTORS = $(sort $(wildcard tests/vectors/*.bin))
# Real captures other tests may have left: hosted end-to-end runs and board runs. Optional.
DEC_REAL_STREAMS = $(sort $(wildcard $(BUILD)/hosted-e2e/*.msamp $(BUILD)/tests/hosted/e2e/*.bin \
	$(BUILD)/*/*/run/stream.bin))

TESTS += decoder-unit vectors-decode msamp-dump-cli decoder-robust decoder-fuzz
TEST_PREREQS += $(DEC_TEST_DIR)/test_decoder $(DEC_TEST_DIR)/test_robust $(DEC_TEST_DIR)/msamp-dump

$(DEC_TEST_DIR)/test_decoder: tests/decoder/test_decoder.c $(DEC_SAN_SRCS) $(DEC_TEST_HDRS)
	@mkdir -p $(@D)
	$(CC) $(DEC_SAN_CFLAGS) $< $(DEC_SAN_SRCS) -lz -o $@

$(DEC_TEST_DIR)/test_robust: tests/decoder/test_robust.c $(DEC_SAN_SRCS) $(DEC_TEST_HDRS)
	@mkdir -p $(@D)
	$(CC) $(DEC_SAN_CFLAGS) $< $(DEC_SAN_SRCS) -lz -o $@

$(DEC_TEST_DIR)/msamp-dump: host_tools/src/msamp-dump.c $(HOSTDEC_SRCS) $(HOSTDEC_HDRS)
	@mkdir -p $(@D)
	$(CC) $(DEC_SAN_CFLAGS) $< $(HOSTDEC_SRCS) -lz -o $@

.PHONY: test-decoder-unit test-vectors-decode test-msamp-dump-cli test-decoder-robust test-decoder-fuzz fuzz fuzz-decoder

test-decoder-unit: $(DEC_TEST_DIR)/test_decoder
	$<

# Each golden vector decodes to its listing, with the tool as built and under the sanitizers.
test-vectors-decode: host_tools/msamp-dump $(DEC_TEST_DIR)/msamp-dump
	tests/decoder/vectors_decode.sh $^

# Command line: stdin/file, -t, -s, --strict, --help, exit status 2 for unreadable input.
test-msamp-dump-cli: host_tools/msamp-dump $(DEC_TEST_DIR)/msamp-dump
	set -e; for d in $^; do tests/decoder/dump_cli.sh $$d; done

# Real streams (the vectors, and the captures of other tests when there are any) with seeded
# damage: truncation, byte flips, dropped runs, inserted garbage, late join, concatenation.
test-decoder-robust: $(DEC_TEST_DIR)/test_robust
	@test -n "$(DEC_VECTORS)" || { echo "decoder-robust: no tests/vectors/*.bin to damage" >&2; exit 1; }
	$< $(DEC_VECTORS) -- $(DEC_REAL_STREAMS)

DEC_FUZZ := $(BUILD)/host/fuzz/decoder_fuzz
$(DEC_FUZZ): tests/decoder/fuzz_decoder.c $(DEC_SAN_SRCS) $(DEC_TEST_HDRS)
	@mkdir -p $(@D)
	clang -std=c11 -D_GNU_SOURCE -g -O1 -Wall -Wextra -Werror -Wcast-qual \
	  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all $(HOSTDEC_INC) -Itests/decoder \
	  $< $(DEC_SAN_SRCS) -lz -o $@

# Runs the decoder fuzzer with libFuzzer's limits $(1) on a corpus in build/, seeded from the
# vectors. `make fuzz` (tests/fuzz/fuzz.mk) runs it for FUZZ_RUNS executions (or FUZZ_SECONDS).
FUZZ_TARGETS += decoder
define dec_fuzz_run
	@tests/need.sh clang
	@$(MAKE) --no-print-directory $(DEC_FUZZ)
	@mkdir -p $(BUILD)/fuzz/decoder-corpus $(BUILD)/fuzz/decoder-seed $(BUILD)/fuzz/decoder-crashes
	@rm -f $(BUILD)/fuzz/decoder-seed/*
	@for f in $(DEC_VECTORS); do cp $$f $(BUILD)/fuzz/decoder-seed/; done
	$(DEC_FUZZ) $(1) -timeout=10 -rss_limit_mb=1024 -print_final_stats=1 \
	  -artifact_prefix=$(BUILD)/fuzz/decoder-crashes/ \
	  $(BUILD)/fuzz/decoder-corpus $(BUILD)/fuzz/decoder-seed
endef

test-decoder-fuzz:
	$(call dec_fuzz_run,-max_total_time=20)

fuzz-decoder:
	$(call dec_fuzz_run,$(FUZZ_LONG_OPTS))

BENCHES += decoder
$(BUILD)/host/bench_decoder: tests/decoder/bench_decoder.c $(HOSTDEC_LIB) tests/decoder/wire_build.c $(DEC_TEST_HDRS)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(HOSTDEC_INC) -Itests/decoder $< tests/decoder/wire_build.c $(HOSTDEC_LIB) -lz -o $@

bench-decoder: $(BUILD)/host/bench_decoder ## Decoder speed on real streams, against CRC-32 alone
	@test -n "$(DEC_VECTORS)" || { echo "bench-decoder: no tests/vectors/*.bin" >&2; exit 1; }
	$< $(DEC_VECTORS) $(DEC_REAL_STREAMS)
