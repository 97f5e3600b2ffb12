# The core library's sources and flags, for every build of it (hosted, boards, cross checks).
MSAMP_CORE_SRCS := $(sort $(wildcard src/*.c)) $(sort $(wildcard src/wrap/*.c))
# The tiny profile (-DMSAMP_CFG_TINY=1): its core, the parts of src/ it shares, the wrappers.
MSAMP_TINY_CORE_SRCS := $(sort $(wildcard src/tiny/*.c)) src/msamp_sampler.c src/msamp_port_defaults.c \
	src/msamp_hooks.c src/msamp_note_realloc.c
MSAMP_TINY_SRCS := $(MSAMP_TINY_CORE_SRCS) $(sort $(wildcard src/wrap/*.c))
MSAMP_CORE_HDRS := $(wildcard include/*.h src/*.h src/wrap/*.h src/tiny/*.h)
MSAMP_CORE_INC := -Iinclude -Isrc
# Every build of the core: freestanding C11, frame pointers kept (the walkers need them).
MSAMP_CORE_CFLAGS := -ffreestanding -fno-omit-frame-pointer $(TARGET_WARN) $(MSAMP_CORE_INC)
