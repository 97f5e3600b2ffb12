# The fleet store (docs/FLEET.md): drain push and drain fleet against a real PostgreSQL server the
# test starts itself (tests/fleet/pg.sh: initdb in a scratch folder, 127.0.0.1 only, stopped
# after). Profiles of three hosted devices (tests/analysis' growth_app and peak_app) and the
# board's (test-analysis-board's, made first when missing). The benchmark: make bench-fleet.
FLEET_T := $(BUILD)/fleet
TESTS += fleet-store
BENCHES += fleet

test-fleet-store: $(BUILD)/drain/drain-asan $(ANALYSIS_T)/growth_app $(ANALYSIS_T)/peak_app ## PostgreSQL fleet store: push once, fleet merge = drain merge (all, by device, build, time, label), top/devices/leaks, server down, wrong password, newer schema
	@[ -f $(ANALYSIS_T)/board/b.pb.gz ] || $(MAKE) --no-print-directory test-analysis-board
	DRAIN=$(BUILD)/drain/drain-asan W=$(FLEET_T)/store GROWTH_APP=$(ANALYSIS_T)/growth_app \
	  PEAK_APP=$(ANALYSIS_T)/peak_app BOARD_PROF=$(ANALYSIS_T)/board/b.pb.gz \
	  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 tests/fleet/t_fleet.sh

.PHONY: bench-fleet
bench-fleet: host_tools/drain ## Push and query times, database bytes per profile and per site row (PROFILES profiles of 1000 sites, default 10000)
	DRAIN=host_tools/drain W=$(FLEET_T)/bench tests/fleet/bench_fleet.sh
