# msamp for a firmware project's Makefile (GNU make). Set these, then include this file:
#   MSAMP_DIR        path of the msamp checkout (default: this file's parent folder)
#   MSAMP_ARCH       port folder under port/: aarch64, arm, riscv64, mips64, x86_64, hosted
#   MSAMP_TRANSPORT  a file of port/transport/ without .c (pl011, cmsdk_uart, uart16550,
#                    semihosting), or none when the firmware defines msamp_transport_write() itself
#   MSAMP_WRAP_FUNCS allocator functions to wrap (default: malloc free calloc realloc); the word
#                    cxx stands for every C++ operator new and delete (below)
#   MSAMP_PROFILE    full (default) or tiny: the core's profile (docs/TINY.md)
#   MSAMP_RTOS       none (default) or freertos: the RTOS layer (port/rtos/freertos/,
#                    docs/FREERTOS.md): a sampler context per task, the kernel's critical section
#                    and tick clock, task names in the stream, pvPortMalloc/vPortFree wrapped. Its
#                    sources need the firmware's FreeRTOS include paths (FreeRTOS.h,
#                    FreeRTOSConfig.h, portmacro.h) in the firmware's CFLAGS
#   MSAMP_RTOS_TASKS tasks with a context of their own (freertos; default 16, docs/FREERTOS.md)
#   MSAMP_RTOS_HEAP  1 (default): wrap the RTOS's heap (freertos: pvPortMalloc, vPortFree); 0 when
#                    it calls malloc, wrapped itself (FreeRTOS's heap_3)
#   MSAMP_LIBC_HEAP  none (default) or newlib: the heap's own state for msamp's HEAP records from
#                    newlib's or newlib-nano's malloc (port/newlib/, docs/HEALTH.md): _mallinfo_r,
#                    nano's free list; the firmware may define msamp_newlib_heap_end()
#                    (port/newlib/msamp_newlib.h) for the room its _sbrk has not given yet
#   MSAMP_COMPILER   gcc or clang: the compiler of the firmware's target code, for the flags the
#                    port's stack walker needs from it (default: clang when $(CC) names it, else gcc)
# It defines (it never touches CFLAGS, LDFLAGS or rules of the including Makefile):
#   MSAMP_SRCS       all msamp sources to compile: core, wrappers, port and transport
#   MSAMP_LIB_SRCS   or, to archive into a libmsamp.a: core, every wrapper and the port
#   MSAMP_PORT_SRCS  the port alone (port/$(MSAMP_ARCH)/port.mk: its folder and what it takes
#                    from port/common/)
#   MSAMP_TRANSPORT_SRCS  the transport alone, with the semihosting helpers it needs
#   MSAMP_SEMIHOSTING_SRCS  the architecture's semihosting helpers (port/semihosting/: console
#                    text, exit, host files), for firmware that uses them itself; empty on x86
#   MSAMP_CFLAGS     include paths and the flags msamp needs (frame pointers, the profile, the
#                    walker's unwind tables, the wrappers' nesting guard): for EVERY file of the
#                    firmware, not only msamp's, since each walk goes up through your code
#   MSAMP_UNWIND_CFLAGS  the part of MSAMP_CFLAGS the walker needs on every file: -funwind-tables
#                    for MSAMP_ARCH arm with gcc (its Thumb code keeps no frame chain: the walker
#                    reads .ARM.exidx, port/arm/README.md); without it on msamp's files every stack
#                    is empty (DROPS no_frame), on yours stacks stop at your first function
#   MSAMP_OWN_CFLAGS optional, for MSAMP_OWN_SRCS (msamp's sources but the wrappers and hooks):
#                    no frame pointers, a section per function (for -Wl,--gc-sections)
#   MSAMP_LDFLAGS    the --wrap flags that route malloc & co. through msamp, --build-id, and
#                    -L of port/, where the linker script's `INCLUDE msamp.ld` finds port/msamp.ld
#                    (the stack bounds and the build-id note the link needs: README.md)
#   MSAMP_RTOS_SRCS, MSAMP_RTOS_CFLAGS, MSAMP_RTOS_LDFLAGS  the RTOS layer's sources and its part
#                    of MSAMP_CFLAGS and MSAMP_LDFLAGS (empty for MSAMP_RTOS none)
#   MSAMP_LIBC_HEAP_SRCS, MSAMP_LIBC_HEAP_LDFLAGS  the C library's heap hook and its part of
#                    MSAMP_LDFLAGS (-u: the hook out of a libmsamp.a; empty for MSAMP_LIBC_HEAP none)
#   MSAMP_CXX_SRCS   the C++ wrappers (every one): compile them with MSAMP_CXX_CFLAGS added
#   MSAMP_CXX_CFLAGS -fexceptions (a std::bad_alloc unwinds through operator new's wrappers)
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
MSAMP_PROFILE ?= full

# The core's sources and flags (MSAMP_CORE_SRCS for MSAMP_PROFILE, MSAMP_WRAP_SRCS...), and below
# the port's list: each read once (msamp's own Makefile reads them before this file).
ifeq ($(filter $(msamp_p)src/sources.mk,$(MAKEFILE_LIST)),)
include $(msamp_p)src/sources.mk
endif

msamp_ports := $(patsubst $(msamp_p)port/%/port.mk,%,$(wildcard $(msamp_p)port/*/port.mk))
ifeq ($(filter $(MSAMP_ARCH),$(msamp_ports)),)
$(error msamp.mk: set MSAMP_ARCH to one of: $(msamp_ports))
endif
ifeq ($(filter $(msamp_p)port/$(MSAMP_ARCH)/port.mk,$(MAKEFILE_LIST)),)
include $(msamp_p)port/$(MSAMP_ARCH)/port.mk
endif
ifeq ($(filter full tiny,$(MSAMP_PROFILE)),)
$(error msamp.mk: MSAMP_PROFILE is full or tiny, not '$(MSAMP_PROFILE)')
endif
# What the port's walker needs the compiler to put in every file (port/$(MSAMP_ARCH)/port.mk sets
# msamp_unwind_<compiler>_<arch>).
MSAMP_COMPILER ?= $(if $(findstring clang,$(notdir $(firstword $(CC)))),clang,gcc)
ifeq ($(filter gcc clang,$(MSAMP_COMPILER)),)
$(error msamp.mk: MSAMP_COMPILER is gcc or clang, not '$(MSAMP_COMPILER)')
endif
MSAMP_UNWIND_CFLAGS := $(msamp_unwind_$(MSAMP_COMPILER)_$(MSAMP_ARCH))

# The allocator entry points to wrap: malloc free calloc realloc aligned_alloc memalign
# posix_memalign, and newlib's _malloc_r _free_r _calloc_r _realloc_r _memalign_r. Wrap only functions the
# firmware's allocator defines: each wrapper calls the real one (__real_NAME).
MSAMP_WRAP_FUNCS ?= malloc free calloc realloc
# C++: the word cxx in MSAMP_WRAP_FUNCS stands for every operator new and operator delete of C++17
# (src/wrap/wrap_cxx_*.c), wrapped under their mangled names for MSAMP_ARCH: size_t is unsigned
# int (j) on arm, unsigned long (m) on the 64-bit ones (src/wrap/msamp_wrap_cxx.h picks the same).
# Their files need MSAMP_CXX_CFLAGS. With cxx, every wrapper is also named with -u, so that a
# libmsamp.a's wrappers are linked before libstdc++, whose members call forms the firmware's code
# may not, and malloc and free. On arm, msamp's stand-ins for the EHABI personality routines give
# way to libgcc's unwinder, which C++ links.
msamp_cxx_size := $(if $(filter arm,$(MSAMP_ARCH)),j,m)
MSAMP_CXX_FUNCS := $(subst @,$(msamp_cxx_size),_Znw@ _Zna@ _Znw@St11align_val_t _Zna@St11align_val_t \
	_Znw@RKSt9nothrow_t _Zna@RKSt9nothrow_t _Znw@St11align_val_tRKSt9nothrow_t \
	_Zna@St11align_val_tRKSt9nothrow_t _ZdlPv _ZdaPv _ZdlPv@ _ZdaPv@ _ZdlPvSt11align_val_t \
	_ZdaPvSt11align_val_t _ZdlPv@St11align_val_t _ZdaPv@St11align_val_t _ZdlPvRKSt9nothrow_t \
	_ZdaPvRKSt9nothrow_t _ZdlPvSt11align_val_tRKSt9nothrow_t _ZdaPvSt11align_val_tRKSt9nothrow_t)
MSAMP_CXX_SRCS := $(filter $(msamp_p)src/wrap/wrap_cxx_%,$(MSAMP_WRAP_SRCS))
MSAMP_CXX_CFLAGS := -fexceptions
msamp_cxx := $(filter cxx,$(MSAMP_WRAP_FUNCS))
# The wrapper of f: src/wrap/wrap_f.c (newlib's _malloc_r: wrap_malloc_r.c; cxx: all of C++'s).
msamp_wrap_src = $(if $(filter cxx,$(1)),$(MSAMP_CXX_SRCS),$(filter %/wrap_$(1).c %/wrap_$(patsubst _%,%,$(1)).c,$(MSAMP_WRAP_SRCS)))
msamp_wraps := $(foreach f,$(MSAMP_WRAP_FUNCS),$(call msamp_wrap_src,$(f)))
msamp_unwrapped := $(strip $(foreach f,$(MSAMP_WRAP_FUNCS),$(if $(call msamp_wrap_src,$(f)),,$(f))))
ifneq ($(msamp_unwrapped),)
$(error msamp.mk: no wrapper for: $(msamp_unwrapped))
endif
# Wrapped functions that call each other (newlib: malloc, free, calloc, realloc and memalign jump
# to _malloc_r, _free_r, _calloc_r, _realloc_r and _memalign_r; _calloc_r calls _malloc_r;
# _realloc_r and _memalign_r call _malloc_r and _free_r). The wrappers of calloc, realloc, the
# aligned allocators, _calloc_r and _realloc_r always guard their real call (MSAMP_CFG_WRAP_NESTED
# 1, include/msamp_config.h), so an allocation is seen once, by the outermost wrapper; malloc's
# wrapper guards its own only at 2, set when _malloc_r is wrapped too (otherwise each malloc would
# count twice). free and _free_r need no guard: the first wrapper forgets the block, the second
# finds nothing.
MSAMP_WRAP_CFLAGS := $(strip $(if $(and $(filter malloc,$(MSAMP_WRAP_FUNCS)),$(filter _malloc_r,$(MSAMP_WRAP_FUNCS))),-DMSAMP_CFG_WRAP_NESTED=2) \
	$(if $(and $(msamp_cxx),$(filter arm,$(MSAMP_ARCH))),-DMSAMP_ARM_PR_STUBS=0))

MSAMP_PORT_SRCS := $(addprefix $(msamp_p)port/,$(msamp_port_$(MSAMP_ARCH)))
MSAMP_SEMIHOSTING_SRCS := $(addprefix $(msamp_p)port/,$(msamp_semihosting_$(MSAMP_ARCH)))
ifeq ($(MSAMP_TRANSPORT),none)
MSAMP_TRANSPORT_SRCS :=
else ifeq ($(MSAMP_TRANSPORT),semihosting)
ifeq ($(MSAMP_SEMIHOSTING_SRCS),)
$(error msamp.mk: port/$(MSAMP_ARCH) has no semihosting)
endif
MSAMP_TRANSPORT_SRCS := $(msamp_p)port/transport/semihosting.c $(MSAMP_SEMIHOSTING_SRCS)
else
MSAMP_TRANSPORT_SRCS := $(msamp_p)port/transport/$(MSAMP_TRANSPORT).c
ifeq ($(wildcard $(MSAMP_TRANSPORT_SRCS)),)
$(error msamp.mk: unknown MSAMP_TRANSPORT $(MSAMP_TRANSPORT))
endif
endif
# The RTOS layer: its sources (MSAMP_RTOS_SRCS, in MSAMP_SRCS and MSAMP_LIB_SRCS), flags and the
# wrapped allocator of the kernel's heap. The core's context registry holds every task's context,
# the interrupts' and the one of code outside tasks.
msamp_comma := ,
MSAMP_RTOS ?= none
MSAMP_RTOS_TASKS ?= 16
ifeq ($(MSAMP_RTOS),none)
MSAMP_RTOS_SRCS :=
MSAMP_RTOS_CFLAGS :=
MSAMP_RTOS_LDFLAGS :=
else ifeq ($(MSAMP_RTOS),freertos)
MSAMP_RTOS_HEAP ?= 1
MSAMP_RTOS_SRCS := $(addprefix $(msamp_p)port/rtos/freertos/,msamp_freertos.c \
	$(if $(filter 1,$(MSAMP_RTOS_HEAP)),msamp_freertos_heap.c))
MSAMP_RTOS_CFLAGS := -I$(msamp_p)port/rtos/freertos -DMSAMP_PORT_RTOS=1 \
	-DMSAMP_FREERTOS_MAX_TASKS=$(MSAMP_RTOS_TASKS) -DMSAMP_CFG_MAX_CONTEXTS=$(shell expr $(MSAMP_RTOS_TASKS) + 2)
MSAMP_RTOS_LDFLAGS := $(if $(filter 1,$(MSAMP_RTOS_HEAP)),-Wl$(msamp_comma)--wrap=pvPortMalloc$(msamp_comma)--wrap=vPortFree)
else
$(error msamp.mk: MSAMP_RTOS is none or freertos, not '$(MSAMP_RTOS)')
endif
# The C library's heap state (msamp_port_heap_stats): newlib's and newlib-nano's, one object.
MSAMP_LIBC_HEAP ?= none
ifeq ($(MSAMP_LIBC_HEAP),none)
MSAMP_LIBC_HEAP_SRCS :=
MSAMP_LIBC_HEAP_LDFLAGS :=
else ifeq ($(MSAMP_LIBC_HEAP),newlib)
MSAMP_LIBC_HEAP_SRCS := $(msamp_p)port/newlib/msamp_newlib_heap.c
MSAMP_LIBC_HEAP_LDFLAGS := -Wl,-u,msamp_newlib_heap_stats
else
$(error msamp.mk: MSAMP_LIBC_HEAP is none or newlib, not '$(MSAMP_LIBC_HEAP)')
endif
# To compile into the firmware: the core, the chosen wrappers, the port and the transport.
MSAMP_SRCS := $(MSAMP_CORE_SRCS) $(msamp_wraps) $(MSAMP_PORT_SRCS) $(MSAMP_TRANSPORT_SRCS) $(MSAMP_RTOS_SRCS) \
	$(MSAMP_LIBC_HEAP_SRCS)
# For a static library (libmsamp.a) instead: every wrapper, the link pulls only those it needs.
MSAMP_LIB_SRCS := $(MSAMP_CORE_SRCS) $(MSAMP_WRAP_SRCS) $(MSAMP_PORT_SRCS) $(MSAMP_RTOS_SRCS) $(MSAMP_LIBC_HEAP_SRCS)

MSAMP_INCLUDES := $(MSAMP_CORE_INC) $(addprefix -I$(msamp_p)port/,$(MSAMP_ARCH) common transport semihosting) \
	$(if $(MSAMP_LIBC_HEAP_SRCS),-I$(msamp_p)port/newlib)
MSAMP_CFLAGS := $(MSAMP_INCLUDES) -fno-omit-frame-pointer $(MSAMP_UNWIND_CFLAGS) $(MSAMP_PROFILE_CFLAGS) \
	$(MSAMP_WRAP_CFLAGS) $(MSAMP_RTOS_CFLAGS)
# Optional, after MSAMP_CFLAGS, for MSAMP_OWN_SRCS: msamp's sources other than the wrappers and
# the hooks, without frame pointers, smaller code. Every walk starts at the frame of a wrapper or
# hook and goes up through your code, which keeps frame pointers; the wrappers and hooks keep
# them too (clang lays out a frame record only with them on, even where the frame address is taken).
# A section per function, so that a firmware linked with -Wl,--gc-sections keeps only what it calls.
MSAMP_OWN_CFLAGS := -fomit-frame-pointer -ffunction-sections -fdata-sections
MSAMP_OWN_SRCS := $(filter-out $(MSAMP_WRAP_SRCS) %/msamp_hooks.c %/msamp_freertos_heap.c,$(MSAMP_LIB_SRCS) $(MSAMP_TRANSPORT_SRCS))

# newlib's _r functions: their wrappers named with -u too (always, cxx or not), since newlib's own
# malloc, strdup, printf... call them from libc.a: with a libmsamp.a linked before libc.a, a
# firmware that reaches them only through newlib would otherwise not link (__wrap__malloc_r
# undefined).
msamp_wrap_undef := $(if $(msamp_cxx),$(patsubst cxx,$(MSAMP_CXX_FUNCS),$(MSAMP_WRAP_FUNCS)),$(filter _%_r,$(MSAMP_WRAP_FUNCS)))
MSAMP_LDFLAGS := $(foreach f,$(patsubst cxx,$(MSAMP_CXX_FUNCS),$(MSAMP_WRAP_FUNCS)),-Wl,--wrap=$(f)) \
	$(foreach f,$(msamp_wrap_undef),-Wl,-u,__wrap_$(f)) -Wl,--build-id $(MSAMP_RTOS_LDFLAGS) $(MSAMP_LIBC_HEAP_LDFLAGS) \
	-L$(msamp_p)port
