# drain (host_tools/drain): msamp stream -> symbolized pprof profiles, reports, merge.
# Sources in host_tools/src/drain/, one folder per stage, lower first (DRAIN_STAGES, the one place
# the order is written; docs/ARCHITECTURE.md "drain's stages"): input/ (inputs), model/ (session
# model, estimates, growth tracker), pprof/ (pprof model and codec, builder, file, symbols, the
# verdicts' comments), verdict/ (verdicts with intervals, merge, --json, check, diff), views/
# (reports, timeline, flame), fleet/ (the store), driver/ (drain.c and its options); util.c the
# base. A file includes its own stage or lower ones, by path from $(DRAIN_DIR): DRAIN_INC has no
# per-stage -I (test-drain-stages checks both). Tests in tests/drain/drain_tests.mk. Needs zlib,
# libdw and libstdc++ (its __cxa_demangle turns C++ symbol names into source names:
# pprof/symbolize.c). libpq (fleet/: drain push and drain fleet store and query profiles in
# PostgreSQL, docs/FLEET.md) is not linked but loaded (dlopen) when a
# store is used: its header at build time, DRAIN_DLOPEN at run time (firstcontact-deps checks both).

DRAIN_DIR := host_tools/src/drain
DRAIN_STAGES := input model pprof verdict views fleet driver
DRAIN_SRCS := $(wildcard $(DRAIN_DIR)/*.c $(DRAIN_DIR)/*/*.c)
DRAIN_HDRS := $(wildcard $(DRAIN_DIR)/*.h $(DRAIN_DIR)/*/*.h host_tools/lib/*.h) \
	include/msamp_wire.h
DRAIN_INC := -I$(DRAIN_DIR) -Ihost_tools/lib -Iinclude \
	-I/usr/include/postgresql
DRAIN_LIBS := -ldw -lelf -lz -lm -lstdc++ -pthread
DRAIN_DLOPEN := libpq.so.5
DRAIN_DECLIB := $(HOSTDEC_LIB)

TOOLS += host_tools/drain
CLEAN_FILES += host_tools/drain

host_tools/drain: $(DRAIN_SRCS) $(DRAIN_HDRS) $(DRAIN_DECLIB)
	$(CC) $(HOST_TOOLS_CFLAGS) $(DRAIN_INC) $(DRAIN_SRCS) $(DRAIN_DECLIB) $(DRAIN_LIBS) -o $@
