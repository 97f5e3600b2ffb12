# drain's model under loss and hostile streams (docs/DRAIN.md: "Records before the header",
# "Bounds"): a noisy line at byte error rates 1e-4..1e-2, and crafted streams that must finish in
# linear time and bounded memory. Both honour SOAK=1 (more seeds, larger streams): `make soak` runs
# them in their long form. (Read before drain_tests.mk: names its variables define are spelled out
# where make expands them at once, in targets and prerequisites.)

DRAIN_M_TOOLS = host_tools/drain $(BUILD)/drain/drain-asan $(BUILD)/drain/gen $(BUILD)/drain/mangle

$(BUILD)/drain/craft: tests/drain/craft.c tests/drain/streamgen.h include/msamp_wire.h
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -Iinclude -Itests/drain $< -o $@

TESTS += drain-lossy drain-bounds
ROBUST_TESTS += drain-lossy drain-bounds
TEST_PREREQS += $(BUILD)/drain/craft

test-drain-lossy: $(DRAIN_M_TOOLS) host_tools/msamp-dump ## drain: a noisy line (1e-4..1e-2 byte errors, late join): >= 80 % of intact frames' samples used, in-use <= allocated
	@tests/need.sh go
	$(DRAIN_T_ENV) MSAMP_DUMP=host_tools/msamp-dump tests/drain/t_lossy.sh

test-drain-bounds: $(DRAIN_M_TOOLS) $(BUILD)/drain/craft ## drain: crafted hostile streams in linear time and bounded memory
	@tests/need.sh go
	$(DRAIN_T_ENV) tests/drain/t_bounds.sh
