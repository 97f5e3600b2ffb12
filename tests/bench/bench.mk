# Benchmarks of the hosted port (`make bench`, not part of `make test`): instructions and wall
# time against an unwrapped build and a bare counting --wrap measured in the same run, the cost of
# a sampled allocation, and bytes on the wire. docs/HOSTED.md records the numbers.

BENCH_OUT := $(BUILD)/bench
BENCH_CFLAGS := -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -fno-builtin-malloc \
	-fno-omit-frame-pointer
BENCH_WRAPS := -Wl,--wrap=malloc,--wrap=free,--wrap=calloc,--wrap=realloc

$(BENCH_OUT)/alloc_none: tests/bench/bench_alloc.c
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) $< -o $@

$(BENCH_OUT)/alloc_bare: tests/bench/bench_alloc.c tests/bench/bare_wrap.c
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) $^ $(BENCH_WRAPS) -o $@

$(BENCH_OUT)/alloc_msamp: tests/bench/bench_alloc.c $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) $< $$(PKG_CONFIG_PATH=$(BUILD)/hosted pkg-config --cflags --libs msamp) -o $@

$(BENCH_OUT)/sampled: tests/bench/bench_sampled.c $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -fno-optimize-sibling-calls $< \
		$$(PKG_CONFIG_PATH=$(BUILD)/hosted pkg-config --cflags --libs msamp) -o $@

BENCHES += hosted
bench-hosted: $(addprefix $(BENCH_OUT)/,alloc_none alloc_bare alloc_msamp sampled) $(BUILD)/tests/hosted/msamp_check ## Hosted overhead: instructions, wall time, sampled cost, wire bytes
	@tests/need.sh valgrind
	tests/bench/bench.sh $(BENCH_OUT) $(BUILD)/tests/hosted/msamp_check

# The adaptive interval's estimate error against live set / live table = 1, 10, 100 (a 4096-slot
# table, the live set of tests/hosted/scale_app.c scaled), against the ratio-1 row of the same run.
BENCHES += estimate
bench-estimate: $(BUILD)/tests/hosted/scale_app host_tools/drain host_tools/msamp-dump ## Adaptive interval: estimate error at live set / table = 1, 10, 100
	tests/bench/estimate.sh $(BUILD)/tests/hosted/scale_app host_tools/drain host_tools/msamp-dump \
		$(BENCH_OUT)/estimate

# Issue 14's instruments: each wrapper's unsampled cost alone, and whole programs' time.
BENCH_W_CFLAGS := $(BENCH_CFLAGS) -fno-builtin
MSAMP_PC_LIBS = $$(PKG_CONFIG_PATH=$(BUILD)/hosted pkg-config --cflags --libs msamp)

$(BENCH_OUT)/wrappers_none: tests/bench/bench_wrappers.c
	@mkdir -p $(@D)
	$(CC) $(BENCH_W_CFLAGS) -DBENCH_NONE $< -o $@

$(BENCH_OUT)/wrappers_bare: tests/bench/bench_wrappers.c tests/bench/bare_wrap.c
	@mkdir -p $(@D)
	$(CC) $(BENCH_W_CFLAGS) $^ $(BENCH_WRAPS) -o $@

$(BENCH_OUT)/wrappers_msamp: tests/bench/bench_wrappers.c $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	@mkdir -p $(@D)
	$(CC) $(BENCH_W_CFLAGS) $< $(MSAMP_PC_LIBS) -o $@

BENCHES += wrappers
BENCHES += free-filter
bench-free-filter: ## Hosted free filter: share of unsampled frees its probe sends to the slow path, at 200/2000/10000 live samples, against the masks before issue 41
	@tests/need.sh python3
	tests/bench/free_filter.py
bench-wrappers: ## Per wrapper (malloc, free, calloc, realloc): unsampled instructions per call beyond a bare --wrap (callgrind)
	@ci/deps.sh bench
	@$(MAKE) --no-print-directory -s $(addprefix $(BENCH_OUT)/wrappers_,none bare msamp) host_tools/msamp-dump
	tests/bench/wrappers.sh $(BENCH_OUT) host_tools/msamp-dump

# bench-apps' programs, each unwrapped (_none) and with msamp (_msamp): Lua 5.4 and SQLite from
# Debian's static libraries (their allocator calls are the program's own, so --wrap sees them).
BENCH_LUA_CFLAGS = $$(pkg-config --cflags lua5.4)
BENCH_LUA_LIBS := -l:liblua5.4.a -lm
BENCH_SQLITE_LIBS := -l:libsqlite3.a -lm -lz
$(BENCH_OUT)/lua_trees_none: tests/bench/lua_trees.c
	@mkdir -p $(@D)
	$(CC) $(BENCH_W_CFLAGS) $(BENCH_LUA_CFLAGS) $< $(BENCH_LUA_LIBS) -o $@
$(BENCH_OUT)/lua_trees_msamp: tests/bench/lua_trees.c $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	@mkdir -p $(@D)
	$(CC) $(BENCH_W_CFLAGS) $(BENCH_LUA_CFLAGS) $< $(BENCH_LUA_LIBS) $(MSAMP_PC_LIBS) -o $@
$(BENCH_OUT)/sqlite_speed_none: tests/bench/sqlite_speed.c
	@mkdir -p $(@D)
	$(CC) $(BENCH_W_CFLAGS) $< $(BENCH_SQLITE_LIBS) -o $@
$(BENCH_OUT)/sqlite_speed_msamp: tests/bench/sqlite_speed.c $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	@mkdir -p $(@D)
	$(CC) $(BENCH_W_CFLAGS) $< $(BENCH_SQLITE_LIBS) $(MSAMP_PC_LIBS) -o $@

BENCHES += apps
BENCH_APPS_PROGS := $(addprefix $(BENCH_OUT)/,alloc_none alloc_msamp lua_trees_none lua_trees_msamp \
	sqlite_speed_none sqlite_speed_msamp)
bench-apps: ## Wall time / unwrapped of an allocation-heavy app, Lua and SQLite (interleaved pairs, A/A control), msamp on/off against jemalloc's and tcmalloc's sampling, the exit
	@ci/deps.sh bench
	@$(MAKE) --no-print-directory -s $(BENCH_APPS_PROGS) host_tools/msamp-dump
	CC="$(CC)" tests/bench/apps.sh $(BENCH_OUT) host_tools/msamp-dump
