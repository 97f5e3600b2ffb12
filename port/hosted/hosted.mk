# The hosted Linux port: build/hosted/libmsamp.a (core + port) and build/hosted/msamp.pc.
# Linking a program: cc app.o $(PKG_CONFIG_PATH=build/hosted pkg-config --cflags --libs msamp)
# Cross builds for the other Linux architectures (run under qemu-user by tests/cross and
# tests/hosted) go to build/hosted-<arch>/ the same way.

HOSTED_PORT_SRCS := port/hosted/hosted.c port/hosted/hosted_walk.c port/hosted/hosted_maps.c
# glibc has no newlib entry points (_malloc_r...): their wrappers would name missing __real_ ones.
HOSTED_CORE_SRCS = $(MSAMP_CORE_SRCS) $(filter-out %_r.c,$(MSAMP_WRAP_SRCS))
HOSTED_HDRS = $(MSAMP_CORE_HDRS) $(wildcard port/hosted/*.h)
HOSTED_CONFIG := -DMSAMP_CONFIG_FILE='"msamp_hosted_config.h"' -Iport/hosted
# The core as every build of it (freestanding, frame pointers); the port uses libc and pthreads.
HOSTED_CORE_CFLAGS = $(MSAMP_CORE_CFLAGS) -O2 -g -fPIE $(HOSTED_CONFIG)
HOSTED_PORT_CFLAGS = $(TARGET_WARN) -O2 -g -fno-omit-frame-pointer -fPIE -pthread $(HOSTED_CONFIG) \
	$(MSAMP_CORE_INC)

# Fragments are read in name order, src/core.mk after this one: prerequisites that name the core's
# files are expanded a second time, once every fragment has been read.
.SECONDEXPANSION:

# $(call msamp_hosted_variant,NAME,CC,EXTRA_CFLAGS,AR,NM,EXTRA_LIBS[,ARCH_PORT]): build/NAME/libmsamp.a
# and build/NAME/msamp.pc. ARCH_PORT names a port/ folder whose walker the hosted port reuses.
define msamp_hosted_variant
$(1)_OBJS = $$(patsubst src/%.c,$$(BUILD)/$(1)/core/%.o,$$(HOSTED_CORE_SRCS)) \
	$$(patsubst port/hosted/%.c,$$(BUILD)/$(1)/port/%.o,$$(HOSTED_PORT_SRCS)) \
	$(if $(7),$$(patsubst port/$(7)/%,$$(BUILD)/$(1)/$(7)/%.o,$$(HOSTED_WALK_$(7))))
$$(BUILD)/$(1)/core/%.o: src/%.c $$$$(HOSTED_HDRS)
	@mkdir -p $$(@D)
	$(2) $$(HOSTED_CORE_CFLAGS) $(3) -c $$< -o $$@
$$(BUILD)/$(1)/port/%.o: port/hosted/%.c $$$$(HOSTED_HDRS)
	@mkdir -p $$(@D)
	$(2) $$(HOSTED_PORT_CFLAGS) $(3) $(if $(7),-Iport/$(7)) -c $$< -o $$@
$$(BUILD)/$(1)/libmsamp.a: $$$$($(1)_OBJS)
	rm -f $$@
	$(4) rcs $$@ $$^
$$(BUILD)/$(1)/msamp.pc: $$(BUILD)/$(1)/libmsamp.a port/hosted/gen_pc.sh
	port/hosted/gen_pc.sh $(5) $$< $$(abspath include) $(6) > $$@.tmp && mv $$@.tmp $$@
endef

$(eval $(call msamp_hosted_variant,hosted,$(CC),,$(AR),nm,))
$(eval $(call msamp_hosted_variant,hosted-aarch64,aarch64-linux-gnu-gcc,,aarch64-linux-gnu-ar,aarch64-linux-gnu-nm,))
# MIPS64 code keeps no frame chain: the hosted build walks with port/mips64's prologue scanner.
HOSTED_WALK_mips64 := port/mips64/msamp_mips64_walk.c port/mips64/msamp_mips64_capture.c
$(eval $(call msamp_hosted_variant,hosted-mips64el,mips64el-linux-gnuabi64-gcc,,mips64el-linux-gnuabi64-ar,mips64el-linux-gnuabi64-nm,,mips64))
$(BUILD)/hosted-mips64el/mips64/%.o: port/mips64/% $$(HOSTED_HDRS)
	@mkdir -p $(@D)
	mips64el-linux-gnuabi64-gcc $(HOSTED_PORT_CFLAGS) -Iport/mips64 -c $< -o $@
$(eval $(call msamp_hosted_variant,hosted-riscv64,riscv64-linux-gnu-gcc,,riscv64-linux-gnu-ar,riscv64-linux-gnu-nm,))

.PHONY: hosted hosted-cross
hosted: $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc ## Build the hosted Linux library and its msamp.pc
hosted-cross: $(foreach a,aarch64 mips64el riscv64,$(BUILD)/hosted-$(a)/libmsamp.a $(BUILD)/hosted-$(a)/msamp.pc) ## Build the hosted library for aarch64, mips64el and riscv64 Linux

ALL_TARGETS += hosted
TEST_PREREQS += hosted
