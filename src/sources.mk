# msamp's core: its sources and flags, for every build of it (port/msamp.mk, port/msamp.cmake
# mirrors it, boards, hosted, unit and cross tests). One list for every build: what differs
# between a Cortex-M0 and a 64-bit Linux build is configuration (MSAMP_PROFILE adds a preset,
# include/msamp_config.h has the knobs). Paths start with $(msamp_p): empty inside msamp's own
# tree, "DIR/" when a firmware project includes port/msamp.mk from elsewhere.
msamp_p ?=
# The core without the wrappers. Each file is one archive member: msamp_control.c (the control
# API) and msamp_hooks.c (msamp_on_*) are linked only by programs that call them.
MSAMP_CORE_SRCS = $(addprefix $(msamp_p)src/,msamp_adapt.c msamp_api.c msamp_command.c msamp_context.c msamp_control.c \
	msamp_hooks.c msamp_keep.c msamp_live.c msamp_note_realloc.c msamp_port_defaults.c msamp_records.c \
	msamp_report.c msamp_sample.c msamp_sampler.c msamp_table_compact.c msamp_table_dump.c \
	msamp_task_budget.c msamp_writer.c)
# Every allocator wrapper (one per file: a static link pulls only those it needs).
MSAMP_WRAP_SRCS = $(sort $(wildcard $(msamp_p)src/wrap/*.c))
# What MSAMP_PROFILE (full or tiny) adds to every msamp source's flags.
MSAMP_PROFILE_CFLAGS = $(if $(filter tiny,$(MSAMP_PROFILE)),-DMSAMP_CFG_TINY=1)
MSAMP_CORE_HDRS = $(wildcard $(msamp_p)include/*.h $(msamp_p)src/*.h $(msamp_p)src/wrap/*.h)
MSAMP_CORE_INC = -I$(msamp_p)include -I$(msamp_p)src
# Every build of the core: freestanding C11, frame pointers kept (the walkers need them).
MSAMP_CORE_CFLAGS = -ffreestanding -fno-omit-frame-pointer $(TARGET_WARN) $(MSAMP_CORE_INC)
