# Unit tests of the core, built for the host with AddressSanitizer and UBSan, on the fake port.
# UNIT_CC / UNIT_RUN let tests/cross build and run the same tests for other architectures.

UNIT_CC ?= $(CC)
UNIT_SAN ?= $(SAN_FLAGS)
UNIT_RUN ?=
UNIT_OUT ?= $(BUILD)/unit
UNIT_CFLAGS = -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror -fno-omit-frame-pointer \
	$(UNIT_SAN) -Iinclude -Isrc -Itests/unit $(HOSTDEC_INC)
UNIT_DEPS := $(MSAMP_CORE_HDRS) tests/unit/check.h tests/unit/fake_port.h tests/unit/rec_log.h \
	tests/unit/writer_port.h tests/unit/decode_since.h tests/unit/mark_list.h
# Small tables where a test fills them.
UNIT_SMALL := -DMSAMP_CONFIG_FILE='"small_config.h"'
UNIT_WRAPS := src/wrap/wrap_malloc.c src/wrap/wrap_free.c src/wrap/wrap_calloc.c \
	src/wrap/wrap_realloc.c
VECTORS := $(sort $(wildcard tests/vectors/*.txt))
# The host decoder the tests read the core's stream back with: compiled once into $(UNIT_OUT)/hostdec/
# for every test program (no MSAMP_CFG_* knob reaches it), not once per program.
UNIT_HOSTDEC = $(patsubst host_tools/lib/%.c,$(UNIT_OUT)/hostdec/%.o,$(HOSTDEC_SRCS))
$(UNIT_OUT)/hostdec/%.o: host_tools/lib/%.c $(HOSTDEC_HDRS)
	@mkdir -p $(@D)
	$(UNIT_CC) $(UNIT_CFLAGS) -c $< -o $@

$(UNIT_OUT)/test_sampler: tests/unit/test_sampler.c src/msamp_sampler.c $(UNIT_DEPS)
	@mkdir -p $(@D)
	$(UNIT_CC) $(UNIT_CFLAGS) $(filter %.c %.o,$^) -lm -o $@

# The same tests with the 32-bit generator of the tiny profile.
$(UNIT_OUT)/test_sampler32: tests/unit/test_sampler.c src/msamp_sampler.c $(UNIT_DEPS)
	@mkdir -p $(@D)
	$(UNIT_CC) $(UNIT_CFLAGS) -DMSAMP_CFG_SAMPLER32=1 $(filter %.c %.o,$^) -lm -o $@

# The tiny profile end to end, in the smallest useful configuration.
$(UNIT_OUT)/test_tiny: tests/unit/test_tiny.c tests/unit/fake_port.c $(MSAMP_CORE_SRCS) $(UNIT_WRAPS) \
		$(UNIT_HOSTDEC) $(UNIT_DEPS) $(HOSTDEC_HDRS)
	@mkdir -p $(@D)
	$(UNIT_CC) $(UNIT_CFLAGS) -DMSAMP_CFG_TINY=1 -DMSAMP_CONFIG_FILE='"msamp_config_small.h"' \
		$(filter %.c %.o,$^) -lz -lm -o $@

# The same end to end in the minimal configuration of make size (every feature knob off:
# include/msamp_config_minimal.h); realloc followed as a free and a new block.
$(UNIT_OUT)/test_tiny_minimal: tests/unit/test_tiny.c tests/unit/fake_port.c $(MSAMP_CORE_SRCS) \
		$(UNIT_WRAPS) $(UNIT_HOSTDEC) $(UNIT_DEPS) $(HOSTDEC_HDRS)
	@mkdir -p $(@D)
	$(UNIT_CC) $(UNIT_CFLAGS) -DMSAMP_CFG_TINY=1 -include include/msamp_config_minimal.h \
		-DMSAMP_CONFIG_FILE='"msamp_config_small.h"' $(filter %.c %.o,$^) -lz -lm -o $@

# The writer with each CRC: its default (the byte table on 64-bit hosts), the nibble table, bit by bit
# (with the tiny profile's MSAMP_CFG_SMALL_CODE, as there: records sized by writing them).
$(UNIT_OUT)/test_writer: tests/unit/test_writer.c src/msamp_writer.c src/msamp_records.c \
		src/msamp_sampler.c $(UNIT_DEPS)
	@mkdir -p $(@D)
	$(UNIT_CC) $(UNIT_CFLAGS) -DMSAMP_CFG_RING_SIZE=4096 $(filter %.c %.o,$^) -o $@
$(UNIT_OUT)/test_writer_bitwise: tests/unit/test_writer.c src/msamp_writer.c src/msamp_records.c \
		src/msamp_sampler.c $(UNIT_DEPS)
	@mkdir -p $(@D)
	$(UNIT_CC) $(UNIT_CFLAGS) -DMSAMP_CFG_RING_SIZE=4096 -DMSAMP_CFG_CRC_TABLE=0 -DMSAMP_CFG_SMALL_CODE=1 \
		$(filter %.c %.o,$^) -o $@
$(UNIT_OUT)/test_writer_nibble: tests/unit/test_writer.c src/msamp_writer.c src/msamp_records.c \
		src/msamp_sampler.c $(UNIT_DEPS)
	@mkdir -p $(@D)
	$(UNIT_CC) $(UNIT_CFLAGS) -DMSAMP_CFG_RING_SIZE=4096 -DMSAMP_CFG_CRC_TABLE=1 $(filter %.c %.o,$^) -o $@

# The table interface, on the RAM-dump tables and on the compact ones.
$(UNIT_OUT)/test_tables: tests/unit/test_tables.c src/msamp_live.c src/msamp_table_dump.c src/msamp_sampler.c \
		src/msamp_table_compact.c $(UNIT_DEPS)
	@mkdir -p $(@D)
	$(UNIT_CC) $(UNIT_CFLAGS) $(UNIT_SMALL) $(filter %.c %.o,$^) -o $@
$(UNIT_OUT)/test_tables_compact: tests/unit/test_tables.c src/msamp_live.c src/msamp_table_dump.c src/msamp_sampler.c \
		src/msamp_table_compact.c $(UNIT_DEPS)
	@mkdir -p $(@D)
	$(UNIT_CC) $(UNIT_CFLAGS) $(UNIT_SMALL) -DMSAMP_CFG_HEAPDUMP=0 $(filter %.c %.o,$^) -o $@

# The free filter of tables sized at init (the hosted build's): counts, a detached slot, a cell at 255.
$(UNIT_OUT)/test_tables_runtime: tests/unit/test_tables_runtime.c src/msamp_live.c src/msamp_table_dump.c \
		src/msamp_sampler.c $(UNIT_DEPS)
	@mkdir -p $(@D)
	$(UNIT_CC) $(UNIT_CFLAGS) -DMSAMP_CFG_RUNTIME_TABLES=1 $(filter %.c %.o,$^) -o $@

$(UNIT_OUT)/test_core: tests/unit/test_core.c tests/unit/fake_port.c $(MSAMP_CORE_SRCS) \
		$(UNIT_WRAPS) $(UNIT_HOSTDEC) $(UNIT_DEPS) $(HOSTDEC_HDRS)
	@mkdir -p $(@D)
	$(UNIT_CC) $(UNIT_CFLAGS) $(filter %.c %.o,$^) -lz -o $@

# The same test in a small build that keeps the RAM-dump block and snapshot passes: the tiny
# profile's knobs but the full tables (MSAMP_CFG_COMPACT_TABLES 0), in its smallest useful configuration.
$(UNIT_OUT)/test_core_small: tests/unit/test_core.c tests/unit/fake_port.c $(MSAMP_CORE_SRCS) \
		$(UNIT_WRAPS) $(UNIT_HOSTDEC) $(UNIT_DEPS) $(HOSTDEC_HDRS)
	@mkdir -p $(@D)
	$(UNIT_CC) $(UNIT_CFLAGS) -DMSAMP_CFG_TINY=1 -DMSAMP_CFG_COMPACT_TABLES=0 \
		-DMSAMP_CONFIG_FILE='"msamp_config_small.h"' $(filter %.c %.o,$^) -lz -o $@

# The device's record layouts and writer against the golden vectors, without and with addresses.
$(UNIT_OUT)/test_vectors: tests/unit/test_vectors.c src/msamp_writer.c src/msamp_records.c src/msamp_sampler.c \
		$(UNIT_DEPS)
	@mkdir -p $(@D)
	$(UNIT_CC) $(UNIT_CFLAGS) -DMSAMP_CFG_MAX_DEPTH=256 -DMSAMP_CFG_RING_SIZE=65536 -DMSAMP_CFG_MAPPINGS=1 \
		$(filter %.c %.o,$^) -o $@
$(UNIT_OUT)/test_vectors_addr: tests/unit/test_vectors.c src/msamp_writer.c src/msamp_records.c \
		src/msamp_sampler.c $(UNIT_DEPS)
	@mkdir -p $(@D)
	$(UNIT_CC) $(UNIT_CFLAGS) -DMSAMP_CFG_MAX_DEPTH=256 -DMSAMP_CFG_RING_SIZE=65536 -DMSAMP_CFG_MAPPINGS=1 \
		-DMSAMP_CFG_SEND_ADDRESSES=1 $(filter %.c %.o,$^) -o $@

# The adaptive interval: the coin's fit, unbiased weights, the core against a host replay.
$(UNIT_OUT)/test_adapt: tests/unit/test_adapt.c tests/unit/fake_port.c $(MSAMP_CORE_SRCS) \
		$(UNIT_WRAPS) $(UNIT_HOSTDEC) $(UNIT_DEPS) $(HOSTDEC_HDRS)
	@mkdir -p $(@D)
	$(UNIT_CC) $(UNIT_CFLAGS) -DMSAMP_CFG_LIVE_CAPACITY=256 -DMSAMP_CFG_STACK_CAPACITY=64 \
		-DMSAMP_CFG_RING_SIZE=65536 $(filter %.c %.o,$^) -lz -lm -o $@
# The same on the compact tables (sizes and intervals kept as 8-bit codes).
$(UNIT_OUT)/test_adapt_compact: tests/unit/test_adapt.c tests/unit/fake_port.c $(MSAMP_CORE_SRCS) \
		$(UNIT_WRAPS) $(UNIT_HOSTDEC) $(UNIT_DEPS) $(HOSTDEC_HDRS)
	@mkdir -p $(@D)
	$(UNIT_CC) $(UNIT_CFLAGS) -DMSAMP_CFG_TINY=1 -DMSAMP_CFG_LIVE_CAPACITY=256 \
		-DMSAMP_CFG_STACK_CAPACITY=64 -DMSAMP_CFG_RING_SIZE=65536 $(filter %.c %.o,$^) -lz -lm -o $@

# A table that fills: occupancy, refusals and interval changes under a steady workload and a
# live set that doubles (1024 slots), over three seeds; the same on the tiny profile's compact
# tables.
$(UNIT_OUT)/test_fill: tests/unit/test_fill.c tests/unit/fake_port.c $(MSAMP_CORE_SRCS) \
		$(UNIT_WRAPS) $(UNIT_DEPS)
	@mkdir -p $(@D)
	$(UNIT_CC) $(UNIT_CFLAGS) -DMSAMP_CFG_LIVE_CAPACITY=1024 -DMSAMP_CFG_RING_SIZE=65536 \
		$(filter %.c %.o,$^) -o $@
$(UNIT_OUT)/test_fill_tiny: tests/unit/test_fill.c tests/unit/fake_port.c $(MSAMP_CORE_SRCS) \
		$(UNIT_WRAPS) $(UNIT_DEPS)
	@mkdir -p $(@D)
	$(UNIT_CC) $(UNIT_CFLAGS) -DMSAMP_CFG_TINY=1 -DMSAMP_CFG_LIVE_CAPACITY=1024 \
		-DMSAMP_CFG_STACK_CAPACITY=64 -DMSAMP_CFG_RING_SIZE=65536 $(filter %.c %.o,$^) -o $@
FILL_SEEDS := 1 2 3
test-unit-fill test-unit-fill_tiny: test-unit-%: $(UNIT_OUT)/test_%
	$(foreach s,$(FILL_SEEDS),$(UNIT_RUN) $< $(s) &&) true

# Failures, the giant guard (1 MiB here), nested allocator calls and frameless walks, in both
# profiles of the core.
$(UNIT_OUT)/test_fail: tests/unit/test_fail.c tests/unit/fake_port.c $(MSAMP_CORE_SRCS) \
		$(UNIT_WRAPS) $(UNIT_HOSTDEC) $(UNIT_DEPS) $(HOSTDEC_HDRS)
	@mkdir -p $(@D)
	$(UNIT_CC) $(UNIT_CFLAGS) -DMSAMP_CFG_GIANT_BYTES=1048576 $(filter %.c %.o,$^) -lz -o $@

$(UNIT_OUT)/test_fail_tiny: tests/unit/test_fail.c tests/unit/fake_port.c $(MSAMP_CORE_SRCS) \
		$(UNIT_WRAPS) $(UNIT_HOSTDEC) $(UNIT_DEPS) $(HOSTDEC_HDRS)
	@mkdir -p $(@D)
	$(UNIT_CC) $(UNIT_CFLAGS) -DMSAMP_CFG_TINY=1 -DMSAMP_CFG_RING_SIZE=65536 \
		-DMSAMP_CFG_GIANT_BYTES=1048576 $(filter %.c %.o,$^) -lz -o $@

# The down-channel's parser, with hostile bytes (test_command.c overrides msamp_transport_read).
$(UNIT_OUT)/test_command: tests/unit/test_command.c tests/unit/fake_port.c $(MSAMP_CORE_SRCS) \
		$(UNIT_WRAPS) $(UNIT_HOSTDEC) $(UNIT_DEPS) $(HOSTDEC_HDRS)
	@mkdir -p $(@D)
	$(UNIT_CC) $(UNIT_CFLAGS) $(filter %.c %.o,$^) -lz -o $@
$(UNIT_OUT)/test_command_tiny: tests/unit/test_command.c tests/unit/fake_port.c $(MSAMP_CORE_SRCS) \
		$(UNIT_WRAPS) $(UNIT_HOSTDEC) $(UNIT_DEPS) $(HOSTDEC_HDRS)
	@mkdir -p $(@D)
	$(UNIT_CC) $(UNIT_CFLAGS) -DMSAMP_CFG_TINY=1 -DMSAMP_CFG_CONTROL=1 -DMSAMP_CFG_RING_SIZE=65536 \
		$(filter %.c %.o,$^) -lz -o $@

# Per-task budgets (2 entries): arguments, crossings, re-arming, the hook, the estimate.
$(UNIT_OUT)/test_budget: tests/unit/test_budget.c tests/unit/fake_port.c $(MSAMP_CORE_SRCS) \
		$(UNIT_WRAPS) $(UNIT_HOSTDEC) $(UNIT_DEPS) $(HOSTDEC_HDRS)
	@mkdir -p $(@D)
	$(UNIT_CC) $(UNIT_CFLAGS) -DMSAMP_CFG_TASK_BUDGETS=2 -DMSAMP_CFG_RING_SIZE=4096 \
		$(filter %.c %.o,$^) -lz -lm -o $@

UNIT_TESTS := sampler sampler32 writer writer_nibble writer_bitwise tables tables_compact tables_runtime core core_small tiny tiny_minimal vectors \
	adapt adapt_compact fill fill_tiny fail fail_tiny command command_tiny budget
TESTS += $(addprefix unit-,$(UNIT_TESTS))

test-unit-vectors: $(UNIT_OUT)/test_vectors $(UNIT_OUT)/test_vectors_addr
	$(UNIT_RUN) $(UNIT_OUT)/test_vectors $(VECTORS)
	$(UNIT_RUN) $(UNIT_OUT)/test_vectors_addr $(VECTORS)

test-unit-%: $(UNIT_OUT)/test_%
	$(UNIT_RUN) $<

vectors-regen: $(UNIT_OUT)/test_vectors $(UNIT_OUT)/test_vectors_addr ## Rewrite tests/vectors/*.bin from the .txt listings
	$(UNIT_OUT)/test_vectors --regen $(VECTORS)
	$(UNIT_OUT)/test_vectors_addr --regen $(VECTORS)

# How the live table's ways trade refusals against the free path's one-bucket probe.
$(UNIT_OUT)/bench_live_%: tests/unit/bench_live.c src/msamp_live.c src/msamp_table_dump.c \
		src/msamp_sampler.c $(UNIT_DEPS)
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 -Iinclude -Isrc -DMSAMP_CFG_LIVE_WAYS=$* $(filter %.c %.o,$^) -o $@

BENCHES += live-ways
bench-live-ways: $(UNIT_OUT)/bench_live_4 $(UNIT_OUT)/bench_live_8
	@$(UNIT_OUT)/bench_live_4
	@$(UNIT_OUT)/bench_live_8

# What a thinning pass costs: instructions of the whole pass (the worst an allocation pays) and of a
# sampled malloc+free (the baseline), counted by callgrind.
$(UNIT_OUT)/bench_thin: tests/unit/bench_thin.c tests/unit/fake_port.c $(MSAMP_CORE_SRCS) $(UNIT_WRAPS) \
		$(UNIT_DEPS)
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE -O2 -g -fno-omit-frame-pointer -Iinclude -Isrc -Itests/unit \
		-DMSAMP_CFG_LIVE_CAPACITY=4096 -DMSAMP_CFG_RING_SIZE=65536 $(filter %.c %.o,$^) -o $@

BENCHES += thin
bench-thin: $(UNIT_OUT)/bench_thin ## Adaptive interval: instructions of a thinning pass and per slot, against a sampled malloc+free
	@tests/need.sh valgrind
	@tests/unit/bench_thin.sh $(UNIT_OUT)/bench_thin

# The live table at heap-like addresses (strided, page-sized, freed and reused) at 1/2 and 3/4
# load, at 256, 1024 and 65536 slots; in make check's quick mode (TEST_QUICK=1) the 65536-slot
# table on 30 of its 78 strides (test_spread.c's --quick).
$(UNIT_OUT)/test_spread_%: tests/unit/test_spread.c src/msamp_live.c src/msamp_table_dump.c \
		src/msamp_sampler.c $(UNIT_DEPS)
	@mkdir -p $(@D)
	$(UNIT_CC) $(UNIT_CFLAGS) -DMSAMP_CFG_LIVE_CAPACITY=$* $(filter %.c %.o,$^) -o $@
TESTS += unit-spread
test-unit-spread: $(UNIT_OUT)/test_spread_256 $(UNIT_OUT)/test_spread_1024 $(UNIT_OUT)/test_spread_65536
	$(UNIT_RUN) $(UNIT_OUT)/test_spread_256
	$(UNIT_RUN) $(UNIT_OUT)/test_spread_1024
	$(UNIT_RUN) $(UNIT_OUT)/test_spread_65536 $(if $(TEST_QUICK),--quick)
