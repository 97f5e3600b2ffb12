# The core library's sources and flags, for every build of it (hosted, boards, cross checks).
MSAMP_CORE_SRCS := $(sort $(wildcard src/*.c)) $(sort $(wildcard src/wrap/*.c))
MSAMP_CORE_HDRS := $(wildcard include/*.h src/*.h src/wrap/*.h src/tiny/*.h)
MSAMP_CORE_INC := -Iinclude -Isrc
# Every build of the core: freestanding C11, frame pointers kept (the walkers need them).
MSAMP_CORE_CFLAGS := -ffreestanding -fno-omit-frame-pointer $(TARGET_WARN) $(MSAMP_CORE_INC)
