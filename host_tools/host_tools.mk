# Host tools: the wire-format decoder library (build/host/libmsampdec.a) and msamp-dump.
# Other fragments link the decoder with $(HOSTDEC_INC) and $(HOSTDEC_LIB) -lz (its CRC is zlib's),
# and add their tools
# to TOOLS (`make tools` builds them all).

# Host tools build with -Wcast-qual on top of HOST_CFLAGS: no const is ever cast away.
HOST_TOOLS_CFLAGS = $(HOST_CFLAGS) -Wcast-qual
HOSTDEC_INC := -Ihost_tools/lib -Iinclude
HOSTDEC_LIB := $(BUILD)/host/libmsampdec.a
HOSTDEC_SRCS := host_tools/lib/msamp_decode.c host_tools/lib/msamp_cobs_crc.c host_tools/lib/msamp_listing.c \
	host_tools/lib/msamp_command.c
HOSTDEC_HDRS := host_tools/lib/msamp_decode.h host_tools/lib/msamp_command.h include/msamp_wire.h
# the architectures as the host knows them (drain, msamp-dump)
HOSTDEC_SRCS += host_tools/lib/msamp_arch.c
HOSTDEC_HDRS += host_tools/lib/msamp_arch.h
HOSTDEC_OBJS := $(patsubst host_tools/lib/%.c,$(BUILD)/host/%.o,$(HOSTDEC_SRCS))

TOOLS += host_tools/msamp-dump
ALL_TARGETS += tools
TEST_PREREQS += tools
CLEAN_FILES += host_tools/msamp-dump

.PHONY: tools
tools: $(TOOLS) ## Build the host tools (msamp-dump, drain, ...)

$(BUILD)/host/%.o: host_tools/lib/%.c $(HOSTDEC_HDRS)
	@mkdir -p $(@D)
	$(CC) $(HOST_TOOLS_CFLAGS) $(HOSTDEC_INC) -c $< -o $@

$(HOSTDEC_LIB): $(HOSTDEC_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

host_tools/msamp-dump: host_tools/src/msamp-dump.c $(HOSTDEC_LIB) $(HOSTDEC_HDRS)
	$(CC) $(HOST_TOOLS_CFLAGS) $(HOSTDEC_INC) $< $(HOSTDEC_LIB) -lz -o $@
