# drain (host_tools/drain): msamp stream -> symbolized pprof profiles, reports, merge.
# Sources in host_tools/src/drain/ by stage: input/ (inputs, post-mortem reader), model/ (session
# model), pprof/ (profile builder, codec, file, merge, symbols), views/ (reports, timeline, flame),
# verdict/ (estimates with intervals, check, diff), fleet/ and, at the top, driver/ (drain.c: the
# capture; options.c: the command line); util.c/util.h at the root, the base; tests in
# tests/drain/drain_tests.mk. Needs zlib, libdw and libstdc++ (its __cxa_demangle turns C++
# symbol names into source names: symbolize.c). libpq (fleet/: drain push and drain fleet
# store and query profiles in PostgreSQL, docs/FLEET.md) is not linked but loaded (dlopen) when a
# store is used: its header at build time, DRAIN_DLOPEN at run time (firstcontact-deps checks both).

DRAIN_DIR := host_tools/src/drain
DRAIN_STAGES := input model pprof views verdict fleet driver
DRAIN_SRCS := $(wildcard $(DRAIN_DIR)/*.c $(DRAIN_STAGES:%=$(DRAIN_DIR)/%/*.c))
DRAIN_HDRS := $(wildcard $(DRAIN_DIR)/*.h $(DRAIN_STAGES:%=$(DRAIN_DIR)/%/*.h) host_tools/lib/*.h) \
	include/msamp_wire.h
DRAIN_INC := -I$(DRAIN_DIR) $(DRAIN_STAGES:%=-I$(DRAIN_DIR)/%) -Ihost_tools/lib -Iinclude \
	-I/usr/include/postgresql
DRAIN_LIBS := -ldw -lelf -lz -lm -lstdc++
DRAIN_DLOPEN := libpq.so.5
DRAIN_DECLIB := $(HOSTDEC_LIB)

TOOLS += host_tools/drain
CLEAN_FILES += host_tools/drain

host_tools/drain: $(DRAIN_SRCS) $(DRAIN_HDRS) $(DRAIN_DECLIB)
	$(CC) $(HOST_TOOLS_CFLAGS) $(DRAIN_INC) $(DRAIN_SRCS) $(DRAIN_DECLIB) $(DRAIN_LIBS) -o $@
