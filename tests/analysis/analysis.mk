# The answers drain gives beyond the profile's totals (docs/DRAIN.md): realloc chains, lifetimes,
# --min-lifetime culling, the peak profile, device labels through drain merge, folded stacks with
# file:line. One program, tests/analysis/analysis_app.c, whose allocations' sites, lifetimes and
# peak it knows: linked with the hosted library (test-analysis-hosted) and built as firmware for
# the board under QEMU (test-analysis-board). tests/analysis/check.sh holds the checks both share.

ANALYSIS_T := $(BUILD)/analysis

TESTS += analysis-hosted analysis-board analysis-chains analysis-growth analysis-board-growth analysis-peak

$(ANALYSIS_T)/analysis_app: tests/analysis/analysis_app.c $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -fno-optimize-sibling-calls \
	  $$(PKG_CONFIG_PATH=$(BUILD)/hosted pkg-config --cflags msamp) $< \
	  $$(PKG_CONFIG_PATH=$(BUILD)/hosted pkg-config --libs msamp) -lm -o $@

test-analysis-hosted: $(BUILD)/drain/drain-asan host_tools/drain $(ANALYSIS_T)/analysis_app ## Realloc chain, lifetimes, culling, peak, device labels through merge, folded: a hosted program (go tool pprof)
	@tests/need.sh go
	DRAIN=$(BUILD)/drain/drain-asan APP=$(ANALYSIS_T)/analysis_app W=$(ANALYSIS_T)/hosted \
	  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 tests/analysis/t_analysis.sh

# Allocated as peers count it: realloc chains (doubled arrays, 100 -> 1000 -> 4000 byte chains)
# against the program's own truth, per site, pooled over seeds at a pinned and a rising interval.
$(ANALYSIS_T)/chains_app: tests/analysis/chains_app.c $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -fno-optimize-sibling-calls -fno-builtin-malloc \
	  $$(PKG_CONFIG_PATH=$(BUILD)/hosted pkg-config --cflags msamp) $< \
	  $$(PKG_CONFIG_PATH=$(BUILD)/hosted pkg-config --libs msamp) -lm -o $@

test-analysis-chains: host_tools/drain $(ANALYSIS_T)/chains_app ## Realloc chains' allocated per site (every block the allocator returns, at its call) against a hosted program's truth: 16 seeds pooled, bias < 3 se, at a pinned and a rising interval (go tool pprof)
	@tests/need.sh go
	DRAIN=host_tools/drain APP=$(ANALYSIS_T)/chains_app W=$(ANALYSIS_T)/chains tests/analysis/t_chains.sh

# Time to exhaustion (docs/VERDICTS.md): a steady workload is not running out, a leak runs out
# driven by its site, a heap that grows is unknown (tests/analysis/t_exhaust.sh); its coverage of
# the true time is the calibration suite's exhaustion workload.
TESTS += analysis-exhaustion
test-analysis-exhaustion: $(BUILD)/drain/drain-asan $(BUILD)/calibrate/exhaust_app $(ANALYSIS_T)/growth_app ## Time to exhaustion: a steady workload (no leak) says not running out in --top, --json and drain check over 5 seeds; a 4 MB/s leak runs out driven by leak_record (exhaustion>=1d FAILs); a heap that grows (glibc's) is unknown
	@tests/need.sh python3
	DRAIN=$(BUILD)/drain/drain-asan APP=$(BUILD)/calibrate/exhaust_app GROWTH=$(ANALYSIS_T)/growth_app \
	  W=$(ANALYSIS_T)/exhaust ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 tests/analysis/t_exhaust.sh

# Its coverage on the demo firmware under QEMU against the truth the firmware prints itself:
# tests/calibrate/board_exhaust.sh (board.sh's runs), 40 seeds, two QEMUs at a time.
TESTS += analysis-board-exhaustion
test-analysis-board-exhaustion: ## Time to exhaustion on the demo firmware (demo-exhaust: its 48-byte leak paced by the device clock) under QEMU, 40 sampling seeds: the true time (free bytes over the leak's rate in the allocator's bytes, printed by the firmware) within drain check's 95 % interval in >= 90 % of runs, every forecast driven by leak_record, the leak uniform in time, drain's per-block overhead unbiased; prints the bias and its t
	CALIB_JOBS=2 tests/calibrate/board_exhaust.sh $(ANALYSIS_T)/board-exhaustion 40

# Leaks by growth (docs/VERDICTS.md): a leak, a cache that levels off, a kept set, churn and a late
# one-time pool, over seeds at four intervals: only the leak is called a leak, the pool a step, and
# --leaks, the heap verdict and --json agree (tests/analysis/leaks_agree.sh).
$(ANALYSIS_T)/growth_app: tests/analysis/growth_app.c $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -fno-optimize-sibling-calls \
	  $$(PKG_CONFIG_PATH=$(BUILD)/hosted pkg-config --cflags msamp) $< \
	  $$(PKG_CONFIG_PATH=$(BUILD)/hosted pkg-config --libs msamp) -lm -o $@

test-analysis-growth: $(BUILD)/drain/drain-asan host_tools/drain $(ANALYSIS_T)/growth_app ## Leaks by growth on a hosted program: only the steady leak is a leak (not a cache that levels off, a kept set, churn, nor a pool allocated once at 70 % of the run: a step), and --leaks, the heap verdict and --json name it alike, 5 seeds at 512K, 64K, 16K and 4K; drain merge keeps the verdicts
	@tests/need.sh python3
	DRAIN=$(BUILD)/drain/drain-asan APP=$(ANALYSIS_T)/growth_app W=$(ANALYSIS_T)/growth \
	  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 tests/analysis/t_growth.sh

# The demo firmware (uart) built with 5 sampling seeds (DEMO_SEED).
GROWTH_FW_SEEDS := 1 2 3 4 5
GROWTH_FW := $(GROWTH_FW_SEEDS:%=$(BOARD_DIR)/analysis/demo-seed%.elf)
$(BOARD_DIR)/analysis/demo-seed%.o: $(BOARD_DEMO_SRC) $(BOARD_FLAGS)
	@mkdir -p $(@D)
	$(BOARD_COMPILE) $(DEMO_MSAMP_DEFS) -DDEMO_SEED=$* -c $< -o $@
$(BOARD_DIR)/analysis/demo-seed%.elf: $(BOARD_DIR)/analysis/demo-seed%.o $(BOARD_OBJS) $(DEMO_OBJS) \
		$(DEMO_LIB) $(BOARD_DIR)/libmsamp_uart.a $(BOARD_LDSCRIPT)
	$(BOARD_CC) $(BOARD_TARGET_CFLAGS) $(BOARD_LINK_FLAGS) -o $@ $< \
		$(BOARD_OBJS) $(DEMO_OBJS) $(BOARD_DIR)/libmsamp_uart.a $(DEMO_LIB) $(BOARD_LIBGCC)

test-analysis-board-growth: ## Leaks by growth on the demo firmware under QEMU (BOARD, over the UART, 5 sampling seeds): leak_record alone is called a leak (not cache_insert) by --leaks, the heap verdict and the JSON (the live run's out/demo.json and the stream's)
	@tests/need.sh python3
	@tests/need.sh $(BOARD_CROSS)gcc $(firstword $(BOARD_QEMU))
	@$(MAKE) --no-print-directory -s host_tools/drain $(GROWTH_FW)
	@$(BOARD_ENV) DRAIN=host_tools/drain tests/analysis/t_growth_board.sh $(ANALYSIS_T)/board-growth $(GROWTH_FW)

# The honest peak (docs/VERDICTS.md): SQLite's churn (libsqlite3-dev) through an exact tracker.
$(ANALYSIS_T)/peak_app: tests/analysis/peak_app.c $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -fno-optimize-sibling-calls \
	  $$(PKG_CONFIG_PATH=$(BUILD)/hosted pkg-config --cflags msamp) $< \
	  $$(PKG_CONFIG_PATH=$(BUILD)/hosted pkg-config --libs msamp) -lsqlite3 -lm -o $@

test-analysis-peak: host_tools/drain ## The peak on SQLite's churn against an exact tracker: its 95 % interval holds the exact peak in >= 90 % of 20 runs (10 seeds, default interval and 4 KiB), within 25 % at 4 KiB, exact at interval 1
	@[ -f /usr/include/sqlite3.h ] || { echo "missing libsqlite3-dev (run ci/deps.sh all as root)" >&2; \
	  [ "$${CI:-}" = true ] && exit 1; exit 77; }
	@$(MAKE) --no-print-directory -s $(ANALYSIS_T)/peak_app
	DRAIN=host_tools/drain APP=$(ANALYSIS_T)/peak_app W=$(ANALYSIS_T)/peak tests/analysis/t_peak.sh

# The same program as firmware for the board (BOARD, default qemu-virt-aarch64): the demo's heap,
# library (its configuration header) and UART transport; -DANALYSIS_BOARD picks the board's main.
ANALYSIS_FW := $(BOARD_DIR)/analysis/analysis_fw.elf
$(BOARD_DIR)/analysis/analysis_fw.o: tests/analysis/analysis_app.c $(BOARD_FLAGS)
	@mkdir -p $(@D)
	$(BOARD_COMPILE) $(DEMO_MSAMP_DEFS) -DANALYSIS_BOARD -I$(DEMO_DIR) -c $< -o $@
$(ANALYSIS_FW): $(BOARD_DIR)/analysis/analysis_fw.o $(BOARD_OBJS) $(DEMO_OBJS) $(BOARD_DIR)/libmsamp_uart.a \
		$(DEMO_LIB) $(BOARD_LDSCRIPT)
	$(BOARD_CC) $(BOARD_TARGET_CFLAGS) $(BOARD_LINK_FLAGS) -o $@ $(BOARD_DIR)/analysis/analysis_fw.o \
		$(BOARD_OBJS) $(DEMO_OBJS) $(DEMO_LIB) $(BOARD_DIR)/libmsamp_uart.a $(BOARD_LIBGCC)

test-analysis-board: ## The same checks on the board under QEMU (one firmware run over the UART, device id from msamp_config), and its timeline and flame graph in headless Chromium
	@tests/need.sh $(BOARD_CROSS)gcc $(firstword $(BOARD_QEMU)) go chromium python3
	@$(MAKE) --no-print-directory -s host_tools/drain $(BUILD)/drain/drain-asan $(ANALYSIS_FW)
	@$(BOARD_ENV) DRAIN=$(BUILD)/drain/drain-asan ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
	  ART=$(BUILD)/test-artifacts/analysis \
	  tests/analysis/t_analysis_board.sh $(ANALYSIS_FW) $(ANALYSIS_T)/board

# One truth, said once (docs/VERDICTS.md "One verdict model"): every view of a stream names the
# JSON's leaks, peak, low watermark, heap verdict and sites; on growth_app (two seeds, the default
# interval and 16 KiB; with its one-time pool, a step), on verdict_app's TLS-like bursts (a peak not
# placed) and on the demo firmware under QEMU (BOARD). tests/analysis/consistency.py.
TESTS += analysis-consistency
test-analysis-consistency: host_tools/drain $(ANALYSIS_T)/growth_app $(BUILD)/drain/verdict_app $(BUILD)/calibrate/exhaust_app ## Every view (--top, --leaks, --json, timeline, CSV, flame, folded, check, diff) names the JSON's leaks, peak, low watermark, heap verdict and sites: growth_app and the demo firmware under QEMU; every drain --help view is in the test
	@tests/need.sh python3 $(BOARD_CROSS)gcc $(firstword $(BOARD_QEMU))
	@$(MAKE) --no-print-directory -s $(firstword $(GROWTH_FW))
	@set -e; w=$(ANALYSIS_T)/consistency; rm -rf $$w; mkdir -p $$w/hosted; \
	for iv in 524288 16384; do for seed in 1 2; do \
	  MSAMP_OUTPUT=$$w/hosted/i$$iv-s$$seed.bin MSAMP_INTERVAL=$$iv MSAMP_SEED=$$seed $(ANALYSIS_T)/growth_app; \
	done; done; \
	GROWTH_POOL=1 MSAMP_OUTPUT=$$w/hosted/pool-s3.bin MSAMP_INTERVAL=65536 MSAMP_SEED=3 $(ANALYSIS_T)/growth_app; \
	for wl in leak steady; do MSAMP_OUTPUT=$$w/hosted/exhaust-$$wl.bin MSAMP_INTERVAL=32768 MSAMP_SEED=1 \
	  EXHAUST_SECONDS=2 $(BUILD)/calibrate/exhaust_app $$wl 1 $$w/hosted/exhaust-$$wl.truth; done; \
	mkdir -p $$w/tls; MSAMP_OUTPUT=$$w/tls/tls-s1.bin MSAMP_SEED=1 VERDICT_TLS=1 $(BUILD)/drain/verdict_app $$w/tls/truth; \
	$(BOARD_ENV) boards/examples/demo/run_demo.sh $(firstword $(GROWTH_FW)) uart $$w/board $$w/board/demo.pb.gz >$$w/board.log 2>&1 || \
	  { cat $$w/board.log; exit 1; }; \
	DRAIN=host_tools/drain tests/analysis/t_consistency.sh $$w/out \
	  $$(for f in $$w/hosted/i*.bin $$w/hosted/pool*.bin; do echo $$f:$(ANALYSIS_T)/growth_app:leak_record; done) \
	  $$w/hosted/exhaust-leak.bin:$(BUILD)/calibrate/exhaust_app:leak_record \
	  $$w/hosted/exhaust-steady.bin:$(BUILD)/calibrate/exhaust_app: \
	  $$w/tls/tls-s1.bin:$(BUILD)/drain/verdict_app: \
	  $$w/board/stream.bin:$(firstword $(GROWTH_FW)):leak_record
