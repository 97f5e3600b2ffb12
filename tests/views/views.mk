# Tests of drain's views (docs/VIEWS.md): heap over time (--timeline, --timeline-csv) and the flame
# graph (--flame), from a hosted program's real stream, loaded in headless Chromium (DOM after the
# scripts ran, and the screenshot's pixels); the screenshots are kept in
# $(BUILD)/test-artifacts/views/. Drain runs sanitized (ASan+UBSan: $(DRAIN_T)/drain-asan).

VIEWS_T := $(BUILD)/views
VIEWS_ENV = DRAIN=$(DRAIN_T)/drain-asan T=$(VIEWS_T) ART=$(BUILD)/test-artifacts/views \
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1

TESTS += views-browser views-bounds views-timeline-work

$(VIEWS_T)/views_app: tests/views/views_app.c $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -fno-omit-frame-pointer \
	  $$(PKG_CONFIG_PATH=$(BUILD)/hosted pkg-config --cflags msamp) $< \
	  $$(PKG_CONFIG_PATH=$(BUILD)/hosted pkg-config --libs msamp) -lm -o $@

test-views-browser: $(DRAIN_T)/drain-asan $(VIEWS_T)/views_app ## views: a hosted program's timeline (HTML, CSV) and flame graph (SVG) checked against its truth and in headless Chromium
	@tests/need.sh chromium python3
	$(VIEWS_ENV) tests/views/t_browser.sh

test-views-bounds: $(DRAIN_T)/drain-asan $(DRAIN_T)/gen $(DRAIN_T)/craft ## views: many sites and sessions, hostile streams, write errors (/dev/full) and SIGINT: bounded, clear, written
	$(VIEWS_ENV) GEN=$(DRAIN_T)/gen CRAFT=$(DRAIN_T)/craft tests/views/t_bounds.sh

test-views-timeline-work: host_tools/drain $(DRAIN_T)/craft ## views: the timeline's work per session bounded, in instructions (callgrind): 300 short sessions whose time spans double 30 times each
	@tests/need.sh valgrind
	REL=host_tools/drain T=$(VIEWS_T) CRAFT=$(DRAIN_T)/craft tests/views/t_timeline_work.sh
