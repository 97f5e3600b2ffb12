# msamp's core: its sources and flags, for every build of it (port/msamp.mk, port/msamp.cmake
# mirrors it, boards, hosted, unit and cross tests). Paths start with $(msamp_p): empty inside
# msamp's own tree, "DIR/" when a firmware project includes port/msamp.mk from elsewhere.
# MSAMP_PROFILE (full or tiny) is read when the variables are used, not when this file is read.
msamp_p ?=
msamp_src_full = $(sort $(wildcard $(msamp_p)src/*.c))
msamp_src_tiny = $(sort $(wildcard $(msamp_p)src/tiny/*.c)) $(addprefix $(msamp_p)src/,msamp_sampler.c \
	msamp_port_defaults.c msamp_hooks.c msamp_note_realloc.c)
# The core without the wrappers, for the profile in MSAMP_PROFILE (default full).
MSAMP_CORE_SRCS = $(if $(filter tiny,$(MSAMP_PROFILE)),$(msamp_src_tiny),$(msamp_src_full))
# Every allocator wrapper (one per file: a static link pulls only those it needs).
MSAMP_WRAP_SRCS = $(sort $(wildcard $(msamp_p)src/wrap/*.c))
# What the profile adds to every msamp source's flags.
MSAMP_PROFILE_CFLAGS = $(if $(filter tiny,$(MSAMP_PROFILE)),-DMSAMP_CFG_TINY=1)
MSAMP_CORE_HDRS = $(wildcard $(msamp_p)include/*.h $(msamp_p)src/*.h $(msamp_p)src/wrap/*.h $(msamp_p)src/tiny/*.h)
MSAMP_CORE_INC = -I$(msamp_p)include -I$(msamp_p)src
# Every build of the core: freestanding C11, frame pointers kept (the walkers need them).
MSAMP_CORE_CFLAGS = -ffreestanding -fno-omit-frame-pointer $(TARGET_WARN) $(MSAMP_CORE_INC)
