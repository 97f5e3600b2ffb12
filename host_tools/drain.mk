# drain (host_tools/drain): msamp stream -> symbolized pprof profiles, reports, merge.
# Sources in host_tools/src/drain/; tests in tests/drain/drain_tests.mk. Needs zlib, libdw and
# libstdc++ (its __cxa_demangle turns C++ symbol names into source names: symbolize.c).

DRAIN_SRCS := $(wildcard host_tools/src/drain/*.c)
DRAIN_HDRS := $(wildcard host_tools/src/drain/*.h host_tools/lib/*.h) include/msamp_wire.h
DRAIN_INC := -Ihost_tools/src/drain -Ihost_tools/lib -Iinclude
DRAIN_LIBS := -ldw -lelf -lz -lm -lstdc++
DRAIN_DECLIB := $(HOSTDEC_LIB)

TOOLS += host_tools/drain
CLEAN_FILES += host_tools/drain

host_tools/drain: $(DRAIN_SRCS) $(DRAIN_HDRS) $(DRAIN_DECLIB)
	$(CC) $(HOST_TOOLS_CFLAGS) $(DRAIN_INC) $(DRAIN_SRCS) $(DRAIN_DECLIB) $(DRAIN_LIBS) -o $@
