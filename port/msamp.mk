# msamp for a firmware project's Makefile. Set these, then include this file:
#   MSAMP_DIR        path of the msamp checkout (default: this file's parent folder)
#   MSAMP_ARCH       port folder under port/: aarch64, arm, riscv64, mips64, x86_64, hosted
#   MSAMP_TRANSPORT  a file of port/transport/ without .c (pl011, semihosting), or none when the
#                    firmware defines msamp_transport_write() itself
#   MSAMP_WRAP_FUNCS allocator functions to wrap (default: malloc free calloc realloc)
#   MSAMP_PROFILE    full (default) or tiny: the core's profile (docs/TINY.md)
# It defines (it never touches CFLAGS, LDFLAGS or rules of the including Makefile):
#   MSAMP_SRCS       all msamp sources to compile: core, wrappers, port and transport
#   MSAMP_LIB_SRCS   or, to archive into a libmsamp.a: core, every wrapper and the port
#   MSAMP_CFLAGS     include paths and the flags msamp needs (frame pointers, the profile)
#   MSAMP_OWN_CFLAGS optional, for msamp's sources but the wrappers and hooks: no frame pointers
#   MSAMP_LDFLAGS    the --wrap flags that route malloc & co. through msamp, and --build-id
# Example:
#   MSAMP_DIR := third_party/msamp
#   MSAMP_ARCH := aarch64
#   MSAMP_TRANSPORT := pl011
#   include $(MSAMP_DIR)/port/msamp.mk
#   SRCS += $(MSAMP_SRCS)
#   CFLAGS += $(MSAMP_CFLAGS) -DMSAMP_PL011_BASE=0x09000000
#   LDFLAGS += $(MSAMP_LDFLAGS)
MSAMP_DIR ?= $(patsubst %/,%,$(dir $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))))
MSAMP_DIR := $(patsubst %/,%,$(MSAMP_DIR))
# Prefix of msamp's paths: none when building from msamp's own folder.
msamp_p := $(if $(filter .,$(MSAMP_DIR)),,$(MSAMP_DIR)/)
MSAMP_TRANSPORT ?= none

ifeq ($(strip $(MSAMP_ARCH)),)
$(error msamp.mk: set MSAMP_ARCH to one of: $(notdir $(wildcard $(msamp_p)port/*/)))
endif
ifeq ($(wildcard $(msamp_p)port/$(MSAMP_ARCH)/),)
$(error msamp.mk: no port folder $(msamp_p)port/$(MSAMP_ARCH))
endif

# The allocator entry points to wrap: malloc free calloc realloc aligned_alloc memalign
# posix_memalign, and newlib's _malloc_r _free_r _calloc_r _realloc_r. Wrap only functions the
# firmware's allocator defines: each wrapper calls the real one (__real_NAME).
MSAMP_WRAP_FUNCS ?= malloc free calloc realloc
msamp_wraps := $(foreach f,$(MSAMP_WRAP_FUNCS),$(msamp_p)src/wrap/wrap_$(f).c)
ifneq ($(filter-out $(wildcard $(msamp_wraps)),$(msamp_wraps)),)
$(error msamp.mk: no wrapper for: $(filter-out $(wildcard $(msamp_wraps)),$(msamp_wraps)))
endif

# The core: one list for every profile (src/sources.mk); the profile is a configuration preset.
MSAMP_PROFILE ?= full
ifeq ($(filter full tiny,$(MSAMP_PROFILE)),)
$(error msamp.mk: MSAMP_PROFILE is full or tiny, not '$(MSAMP_PROFILE)')
endif
include $(msamp_p)src/sources.mk
msamp_core := $(MSAMP_CORE_SRCS)
msamp_profile_flags := $(MSAMP_PROFILE_CFLAGS)
# The port: its folder, plus port/common/ on bare metal (the build-id note reader, contexts by
# interrupt nesting).
MSAMP_PORT_SRCS ?= $(sort $(wildcard $(msamp_p)port/$(MSAMP_ARCH)/*.c $(msamp_p)port/$(MSAMP_ARCH)/*.S)) \
	$(if $(filter hosted,$(MSAMP_ARCH)),,$(sort $(wildcard $(msamp_p)port/common/*.c)))
ifeq ($(MSAMP_TRANSPORT),none)
MSAMP_TRANSPORT_SRCS :=
else ifeq ($(MSAMP_TRANSPORT),semihosting)
MSAMP_TRANSPORT_SRCS := $(msamp_p)port/transport/semihosting.c $(msamp_p)port/transport/semihost.c
else
MSAMP_TRANSPORT_SRCS := $(msamp_p)port/transport/$(MSAMP_TRANSPORT).c
ifeq ($(wildcard $(MSAMP_TRANSPORT_SRCS)),)
$(error msamp.mk: unknown MSAMP_TRANSPORT $(MSAMP_TRANSPORT))
endif
endif
# To compile into the firmware: the core, the chosen wrappers, the port and the transport.
MSAMP_SRCS := $(msamp_core) $(msamp_wraps) $(MSAMP_PORT_SRCS) $(MSAMP_TRANSPORT_SRCS)
# For a static library (libmsamp.a) instead: every wrapper, the link pulls only those it needs.
MSAMP_LIB_SRCS := $(msamp_core) $(sort $(wildcard $(msamp_p)src/wrap/*.c)) $(MSAMP_PORT_SRCS)

MSAMP_INCLUDES := -I$(msamp_p)include -I$(msamp_p)src -I$(msamp_p)port/$(MSAMP_ARCH) -I$(msamp_p)port/transport \
	-I$(msamp_p)port/common
MSAMP_CFLAGS := $(MSAMP_INCLUDES) -fno-omit-frame-pointer $(msamp_profile_flags)
# Optional, after MSAMP_CFLAGS, for msamp's sources other than the wrappers (src/wrap/) and
# src/msamp_hooks.c: no frame pointers, smaller code. Every walk starts at the frame of a wrapper
# or hook and goes up through your code, which keeps frame pointers; the wrappers and hooks keep
# them too (clang lays out a frame record only with them on, even where the frame address is taken).
MSAMP_OWN_CFLAGS := -fomit-frame-pointer -ffunction-sections -fdata-sections

MSAMP_LDFLAGS := $(foreach f,$(MSAMP_WRAP_FUNCS),-Wl,--wrap=$(f)) -Wl,--build-id
