# The hosted Linux port: build/hosted/libmsamp.a (core + port) and build/hosted/msamp.pc.
# Linking a program: cc app.o $(PKG_CONFIG_PATH=build/hosted pkg-config --cflags --libs msamp)
# Cross builds for the other Linux architectures (run under qemu-user by tests/cross and
# tests/hosted) go to build/hosted-<arch>/ the same way.

# The core's lists (src/sources.mk) and the port's (port/hosted/port.mk), read before this fragment.
# hosted_cxx.c: the list of every C++ wrapper, for C++ programs (hosted_cxx.c says why).
HOSTED_PORT_SRCS := $(addprefix port/,$(msamp_port_hosted)) port/hosted/hosted_cxx.c
# glibc has no newlib entry points (_malloc_r...): their wrappers would name missing __real_ ones.
HOSTED_CORE_SRCS = $(MSAMP_CORE_SRCS) $(filter-out %_r.c,$(MSAMP_WRAP_SRCS))
HOSTED_CONFIG := -DMSAMP_CONFIG_FILE='"msamp_hosted_config.h"' -Iport/hosted
# The core as every build of it (freestanding, frame pointers); the port uses libc and pthreads.
HOSTED_CORE_CFLAGS = $(MSAMP_CORE_CFLAGS) -O2 -g -fPIE $(HOSTED_CONFIG)
# The C++ wrappers (src/wrap/wrap_cxx_*.c): std::bad_alloc unwinds through the throwing forms.
HOSTED_CXX_WRAP_CFLAGS := -fexceptions
hosted_obj_cflags = $(if $(filter wrap_cxx_%,$(notdir $@)),$(HOSTED_CXX_WRAP_CFLAGS))
# MSAMP_HOSTED_UNWIND=fp: a library whose walk follows frame chains only (hosted_walk.c, docs/HOSTED.md).
MSAMP_HOSTED_UNWIND ?= dwarf
HOSTED_PORT_CFLAGS = $(TARGET_WARN) -O2 -g -fno-omit-frame-pointer -fPIE -pthread $(HOSTED_CONFIG) \
	$(MSAMP_CORE_INC) -Iport/common $(if $(filter fp,$(MSAMP_HOSTED_UNWIND)),-DMSAMP_HOSTED_DWARF=0)

# $(call msamp_hosted_variant,NAME,CC,EXTRA_CFLAGS,AR,NM,EXTRA_LIBS[,ARCH_PORT]): build/NAME/libmsamp.a
# and build/NAME/msamp.pc. ARCH_PORT names a port/ folder whose walker the hosted port reuses
# (msamp_port_hosted_ARCH_PORT in port/hosted/port.mk). Objects keep their header dependencies
# (.d); build/NAME/flags changes, and rebuilds them, only when a flag does.
define msamp_hosted_variant
$(1)_OBJS := $(patsubst src/%.c,$(BUILD)/$(1)/core/%.o,$(HOSTED_CORE_SRCS)) \
	$(patsubst port/%.c,$(BUILD)/$(1)/port/%.o,$(HOSTED_PORT_SRCS) $(addprefix port/,$(msamp_port_hosted_$(7))))
$(BUILD)/$(1)/core/%.o: src/%.c $(BUILD)/$(1)/flags
	@mkdir -p $$(@D)
	$(2) $$(HOSTED_CORE_CFLAGS) $$(hosted_obj_cflags) $(3) -MMD -MP -c $$< -o $$@
$(BUILD)/$(1)/port/%.o: port/%.c $(BUILD)/$(1)/flags
	@mkdir -p $$(@D)
	$(2) $$(HOSTED_PORT_CFLAGS) $(3) $(if $(7),-Iport/$(7)) -MMD -MP -c $$< -o $$@
$(BUILD)/$(1)/libmsamp.a: $$($(1)_OBJS)
	rm -f $$@
	$(4) rcs $$@ $$^
$(BUILD)/$(1)/msamp.pc: $(BUILD)/$(1)/libmsamp.a port/hosted/gen_pc.sh
	port/hosted/gen_pc.sh $(5) $$< $$(abspath include) $$(abspath port/hosted/msamp_hosted_cxx.h) $(6) > $$@.tmp && mv $$@.tmp $$@
$(1)_flags_text = $(2) $$(HOSTED_CORE_CFLAGS) $$(HOSTED_PORT_CFLAGS) $(3) $(4) $(5) $(6) $(7) cxx:$$(HOSTED_CXX_WRAP_CFLAGS)
$(BUILD)/$(1)/flags: hosted-flags-force
	$$(if $$(subst |$$($(1)_flags_text)|,,|$$(file <$$@)|),$$(shell mkdir -p $$(@D))$$(file >$$@,$$($(1)_flags_text)))
-include $$($(1)_OBJS:.o=.d)
endef
.PHONY: hosted-flags-force
hosted-flags-force:

$(eval $(call msamp_hosted_variant,hosted,$(CC),,$(AR),nm,))
$(eval $(call msamp_hosted_variant,hosted-aarch64,aarch64-linux-gnu-gcc,,aarch64-linux-gnu-ar,aarch64-linux-gnu-nm,))
# MIPS64 code keeps no frame chain: the hosted build walks with port/mips64's prologue scanner.
$(eval $(call msamp_hosted_variant,hosted-mips64el,mips64el-linux-gnuabi64-gcc,,mips64el-linux-gnuabi64-ar,mips64el-linux-gnuabi64-nm,,mips64))
$(eval $(call msamp_hosted_variant,hosted-riscv64,riscv64-linux-gnu-gcc,,riscv64-linux-gnu-ar,riscv64-linux-gnu-nm,))

# The interposer (port/hosted/hosted_interpose.c): the allocator's own names, so that every shared
# library's calls reach them, passed to the C wrappers (built as msamp_ip_malloc and so on) while
# profiling runs; the real allocator found by dlsym(RTLD_NEXT).
# Two builds of it: build/hosted/libmsamp_preload.so (LD_PRELOAD, -fPIC, the context's TLS
# initial-exec: MSAMP_HOSTED_SHARED) exporting only the allocator's names (hosted_preload.map);
# build/hosted/libmsamp_interpose.a and msamp-interpose.pc, the same objects -fPIE for a link into
# the executable, whose malloc then takes every library's calls (docs/HOSTED.md).
INTERPOSE_WRAPS := malloc free calloc realloc posix_memalign aligned_alloc memalign
INTERPOSE_NAMES := $(INTERPOSE_WRAPS) valloc pvalloc malloc_usable_size
INTERPOSE_CFLAGS := $(foreach f,$(INTERPOSE_WRAPS),-D__wrap_$(f)=msamp_ip_$(f))
INTERPOSE_CORE_SRCS = $(MSAMP_CORE_SRCS) $(addprefix src/wrap/wrap_,$(addsuffix .c,$(INTERPOSE_WRAPS)))
INTERPOSE_PORT_SRCS := $(addprefix port/,$(msamp_port_hosted)) port/hosted/hosted_interpose.c
# $(call msamp_hosted_interposer,NAME,PIC_FLAGS): the objects of build/NAME/ (core/ and port/).
define msamp_hosted_interposer
$(1)_OBJS := $(patsubst src/%.c,$(BUILD)/$(1)/core/%.o,$(INTERPOSE_CORE_SRCS)) \
	$(patsubst port/%.c,$(BUILD)/$(1)/port/%.o,$(INTERPOSE_PORT_SRCS))
$(BUILD)/$(1)/core/%.o: src/%.c port/hosted/hosted.mk
	@mkdir -p $$(@D)
	$(CC) $$(filter-out -fPIE,$$(HOSTED_CORE_CFLAGS)) $(2) $$(INTERPOSE_CFLAGS) -MMD -MP -c $$< -o $$@
$(BUILD)/$(1)/port/%.o: port/%.c port/hosted/hosted.mk
	@mkdir -p $$(@D)
	$(CC) $$(filter-out -fPIE,$$(HOSTED_PORT_CFLAGS)) $(2) -MMD -MP -c $$< -o $$@
-include $$($(1)_OBJS:.o=.d)
endef
$(eval $(call msamp_hosted_interposer,hosted-preload,-fPIC -DMSAMP_HOSTED_SHARED=1))
$(eval $(call msamp_hosted_interposer,hosted-interpose,-fPIE))

$(BUILD)/hosted/libmsamp_preload.so: $(hosted-preload_OBJS) port/hosted/hosted_preload.map
	@mkdir -p $(@D)
	$(CC) -shared -Wl,--version-script=port/hosted/hosted_preload.map -Wl,-Bsymbolic-functions \
		-Wl,-z,defs -Wl,-soname,libmsamp_preload.so $(hosted-preload_OBJS) -ldl -pthread -o $@
$(BUILD)/hosted/libmsamp_interpose.a: $(hosted-interpose_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^
# Every name pulled from the archive (-u) and exported to the shared libraries (the loader binds
# their calls to the executable's definitions).
$(BUILD)/hosted/msamp-interpose.pc: $(BUILD)/hosted/libmsamp_interpose.a port/hosted/hosted.mk
	{ echo 'includedir=$(abspath include)'; echo 'libdir=$(abspath $(@D))'; echo; \
	  echo 'Name: msamp-interpose'; \
	  echo 'Description: Sampling heap profiler, hosted Linux port: the interposing link (every shared library'"'"'s allocations)'; \
	  echo 'Version: 0.1'; echo 'Cflags: -I$${includedir} -fno-omit-frame-pointer'; \
	  echo 'Libs: -Wl,$(subst $(eval) ,$(msamp_comma),$(foreach n,$(INTERPOSE_NAMES),-u,$(n))) -Wl,$(subst $(eval) ,$(msamp_comma),$(foreach n,$(INTERPOSE_NAMES),--export-dynamic-symbol=$(n))) -L$${libdir} -lmsamp_interpose -ldl -pthread'; \
	} > $@.tmp && mv $@.tmp $@

.PHONY: hosted hosted-cross
hosted: ## Build the hosted Linux library, its msamp.pc and the host tools (installs missing packages when root)
	@ci/deps.sh host
	@$(MAKE) --no-print-directory hosted-build
.PHONY: hosted-build
hosted-build: tools $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc $(BUILD)/hosted/libmsamp_preload.so \
	$(BUILD)/hosted/libmsamp_interpose.a $(BUILD)/hosted/msamp-interpose.pc
hosted-cross: $(foreach a,aarch64 mips64el riscv64,$(BUILD)/hosted-$(a)/libmsamp.a $(BUILD)/hosted-$(a)/msamp.pc) ## Build the hosted library for aarch64, mips64el and riscv64 Linux

ALL_TARGETS += hosted
TEST_PREREQS += hosted
