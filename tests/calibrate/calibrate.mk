# The calibration suite (issue 36, docs/VERDICTS.md "Calibration"): drain's estimates and their
# 95 % intervals judged against the exact truth of hosted workloads (tests/calibrate/calib_app.c),
# over many seeded runs, one workload per table event (0, 1, 2, 3+ raises, a lowering, phases,
# realloc chains, many sites, threads). Per (workload, measure): coverage, bias with its t, median
# width (tests/calibrate/calib_table.py). test-calibrate is the short form (160 runs, under two
# minutes); `make calibrate` the full one (about 1400 runs with the long workload, about 20 minutes),
# whose table docs/VERDICTS.md shows: re-run it before the docs' numbers change.

CALIB_T := $(BUILD)/calibrate

TESTS += calibrate
BENCHES += calibrate

$(CALIB_T)/calib_app $(CALIB_T)/exhaust_app: $(CALIB_T)/%: tests/calibrate/%.c $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -fno-omit-frame-pointer \
	  -fno-optimize-sibling-calls $$(PKG_CONFIG_PATH=$(BUILD)/hosted pkg-config --cflags msamp) $< \
	  $$(PKG_CONFIG_PATH=$(BUILD)/hosted pkg-config --libs msamp) -o $@

CALIB_UNHELD_APP := $(BUILD)/tests/hosted/unheld_app
# drain-verdict-family (make test's second lane) runs it too: built before the lanes start.
TEST_PREREQS += $(CALIB_T)/calib_app
CALIB_DEPS := host_tools/drain host_tools/msamp-dump $(CALIB_T)/calib_app $(CALIB_T)/exhaust_app $(CALIB_UNHELD_APP)

test-calibrate: $(CALIB_DEPS) ## Calibration, short form: coverage of the 95 % intervals in [90, 99] % and |t| of the bias <= 4 per (workload, measure), hosted workloads of every table event
	@tests/need.sh python3
	CALIB_UNHELD_APP=$(CALIB_UNHELD_APP) tests/calibrate/calibrate.sh $(CALIB_T)/calib_app host_tools/drain host_tools/msamp-dump $(CALIB_T)/short short $(CALIB_ONLY)

.PHONY: calibrate bench-calibrate
calibrate: $(CALIB_DEPS) ## The calibration suite's full form (>= 1000 runs, the long workload): the table of docs/VERDICTS.md
	@tests/need.sh python3
	CALIB_UNHELD_APP=$(CALIB_UNHELD_APP) tests/calibrate/calibrate.sh $(CALIB_T)/calib_app host_tools/drain host_tools/msamp-dump $(CALIB_T)/full full $(CALIB_ONLY)

bench-calibrate: calibrate ## The calibration suite's full form (make calibrate)
