# drain's model under loss and hostile streams (docs/DRAIN.md: "Records before the header",
# "Bounds"): a noisy line at byte error rates 1e-4..1e-2, and crafted streams that must finish in
# linear time and bounded memory. Both honour SOAK=1 (more seeds, larger streams): `make soak` runs
# them in their long form.

DRAIN_M_TOOLS := $(DRAIN_T_TOOLS)

$(DRAIN_T)/craft: tests/drain/craft.c tests/drain/streamgen.h include/msamp_wire.h
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -Iinclude -Itests/drain $< -o $@

TESTS += drain-lossy drain-bounds drain-bounds-sites drain-slots
ROBUST_TESTS += drain-lossy drain-bounds drain-bounds-sites drain-slots
TEST_PREREQS += $(DRAIN_T)/craft

test-drain-lossy: $(DRAIN_M_TOOLS) host_tools/msamp-dump ## drain: a noisy line (1e-4..1e-2 byte errors, late join): >= 80 % of intact frames' samples used, in-use <= allocated; estimates within 2 %/5 % at 1e-3/4e-3 (6 seeds)
	@tests/need.sh go
	$(DRAIN_T_ENV) MSAMP_DUMP=host_tools/msamp-dump tests/drain/t_lossy.sh

test-drain-bounds: $(DRAIN_M_TOOLS) $(DRAIN_T)/craft ## drain: crafted hostile streams in linear time and bounded memory
	@tests/need.sh go
	$(DRAIN_T_ENV) tests/drain/t_bounds.sh

test-drain-bounds-sites: $(DRAIN_M_TOOLS) $(DRAIN_T)/craft ## drain: (stack, task) sites past the site cap fold into one overflow site: memory within the bound, the capture kept
	@tests/need.sh go
	$(DRAIN_T_ENV) tests/drain/t_bounds_sites.sh

$(DRAIN_T)/slots_app: tests/drain/slots_app.c $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror \
	  $$(PKG_CONFIG_PATH=$(BUILD)/hosted pkg-config --cflags msamp) $< \
	  $$(PKG_CONFIG_PATH=$(BUILD)/hosted pkg-config --libs msamp) -o $@

test-drain-slots: $(DRAIN_M_TOOLS) $(DRAIN_T)/craft $(DRAIN_T)/slots_app ## drain: a 2^21-slot live table (the one slot limit, MSAMP_WIRE_MAX_SLOTS): in-use equal to the truth
	@tests/need.sh go
	$(DRAIN_T_ENV) SLOTS_APP=$(DRAIN_T)/slots_app tests/drain/t_slots.sh

# The clock's "too slow" rule (docs/DRAIN.md "The device's clock"): a crafted session in two parts
# through a pipe, a pause between them (tests/drain/t_clock.sh).
TESTS += drain-clock
test-drain-clock: $(DRAIN_M_TOOLS) $(DRAIN_T)/craft ## drain: a clock far too slow for the stream's pace (crafted, paced through a pipe) warned on stderr and in --json clock_warning; an honest one and a file not
	@tests/need.sh python3
	$(DRAIN_T_ENV) tests/drain/t_clock.sh
