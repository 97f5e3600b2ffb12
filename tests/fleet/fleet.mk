# The fleet store (docs/FLEET.md): drain push and drain fleet against a real PostgreSQL server the
# test starts itself (tests/fleet/pg.sh: initdb in a scratch folder, 127.0.0.1 only, stopped
# after). Profiles of three hosted devices (tests/analysis' growth_app and peak_app) and two
# QEMU boards: the default board's (test-analysis-board's, made first when missing) and
# analysis_app's run on FLEET_BOARD2 (run by the test). A full disk on the server: enospc.so
# (tests/fleet/enospc_shim.c) preloaded into it. The benchmark: make bench-fleet.
FLEET_T := $(BUILD)/fleet
FLEET_BOARD2 ?= qemu-mps2-an385
# (its tools, named in test-fleet-store's need.sh line as the deps check reads them: another board
# may need another QEMU)
TESTS += fleet-store
BENCHES += fleet

$(FLEET_T)/enospc.so: tests/fleet/enospc_shim.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 -Wall -Wextra -Werror -shared -fPIC $< -o $@ -ldl

test-fleet-store: $(BUILD)/drain/drain-asan $(ANALYSIS_T)/growth_app $(ANALYSIS_T)/peak_app $(FLEET_T)/enospc.so ## PostgreSQL fleet store: push once, fleet merge --exact = drain merge byte for byte and fleet merge = it as canon.py's text (all, by device, build, time, label; two QEMU boards), top, devices by min free heap, leaks by the latest profile's verdict and across consecutive profiles (3 seeds; a device of one profile), partitions by month and their pruning, prune --before, migration from versions 1 and 2, server down, wrong password, newer schema, full disk
	@tests/need.sh arm-none-eabi-gcc qemu-system-arm
	@[ -f $(ANALYSIS_T)/board/b.pb.gz ] || $(MAKE) --no-print-directory test-analysis-board
	@$(MAKE) --no-print-directory -s BOARD=$(FLEET_BOARD2) $(BUILD)/$(FLEET_BOARD2)/analysis/analysis_fw.elf
	DRAIN=$(BUILD)/drain/drain-asan W=$(FLEET_T)/store GROWTH_APP=$(ANALYSIS_T)/growth_app \
	  PEAK_APP=$(ANALYSIS_T)/peak_app BOARD_PROF=$(ANALYSIS_T)/board/b.pb.gz \
	  BOARD2_ELF=$(BUILD)/$(FLEET_BOARD2)/analysis/analysis_fw.elf \
	  BOARD2_QEMU="$$($(MAKE) -s --no-print-directory BOARD=$(FLEET_BOARD2) board-qemu)" \
	  ENOSPC_SHIM=$(abspath $(FLEET_T)/enospc.so) \
	  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 tests/fleet/t_fleet.sh

# A session a reset ended, pushed (tests/fleet/t_reset.sh on the saved stream
# tests/drain/reset_cortexm3.bin: no QEMU run).
TESTS += fleet-reset
test-fleet-reset: $(BUILD)/drain/drain-asan ## PostgreSQL fleet store: a session a reset ended (a saved Cortex-M3 stream) pushed: its in-use (the known live set) and ending stored, fleet devices' resets, top, fleet merge's "ended"
	@tests/need.sh python3
	DRAIN=$(BUILD)/drain/drain-asan W=$(FLEET_T)/reset ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 tests/fleet/t_reset.sh

# drain push's and fleet's bad cases (tests/fleet/t_push.sh on a generated stream: no board).
TESTS += fleet-push
test-fleet-push: $(BUILD)/drain/drain-asan $(DRAIN_T)/gen ## PostgreSQL fleet store: push names every file it could not store and goes on (the connection lost on one: the next pushed; the server stopped: each left named), a label holding a NUL byte refused, a sample type named in UTF-8 kept in the jsonb, fleet times the server does not read exit 2
	@tests/need.sh python3
	DRAIN=$(BUILD)/drain/drain-asan W=$(FLEET_T)/push GEN=$(DRAIN_T)/gen \
	  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 tests/fleet/t_push.sh

.PHONY: bench-fleet
bench-fleet: host_tools/drain ## Push and query times, database bytes per profile and per site row (PROFILES profiles of 1000 sites, default 10000)
	DRAIN=host_tools/drain W=$(FLEET_T)/bench tests/fleet/bench_fleet.sh

# Hosted devices add up: three processes of libframes_app (tests/drain/drain_tests.mk), their
# library at another address in each (ASLR), pushed; fleet top sums them per site.
TESTS += fleet-libframes
test-fleet-libframes: $(BUILD)/drain/drain-asan $(DRAIN_T)/libframes/libframes_app ## PostgreSQL fleet store: three processes of one hosted program (a shared library's frames, ASLR) pushed: fleet top lists each site once with the sum, the library symbolized or [lib]+0xOFF when deleted
	DRAIN=$(BUILD)/drain/drain-asan W=$(FLEET_T)/libframes LF_APP=$(DRAIN_T)/libframes/libframes_app \
	  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 tests/fleet/t_fleet_libframes.sh

# The rollups against the full scan (tests/fleet/t_rollup.sh on a generated stream: no board).
TESTS += fleet-rollup
test-fleet-rollup: $(BUILD)/drain/drain-asan $(DRAIN_T)/gen ## PostgreSQL fleet store: fleet top by the rollups equals the full scan over the site rows, fleet merge by the buckets' merged profiles equals --exact (canon.py; one bucket byte for byte; made again after a push into it) (4 devices, 2 build ids, 5 times each; no filter, each filter and several, times that cut a bucket), after prune cuts buckets, and on a version 3 store migrated to 7; two sites' equal rollup hashes fail a push
	@tests/need.sh python3
	DRAIN=$(BUILD)/drain/drain-asan W=$(FLEET_T)/rollup GEN=$(DRAIN_T)/gen \
	  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 tests/fleet/t_rollup.sh
