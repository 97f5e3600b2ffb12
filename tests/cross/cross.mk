# The same code on other architectures: the core compiled freestanding for every target with gcc
# and clang; the core's unit tests (tests/unit) and the hosted port's end-to-end, behaviour and
# unwinder tests built for aarch64, riscv64 and mips64el Linux and run under qemu-user.
# (32-bit ARM Linux needs a libc for arm-linux-gnueabihf, which the project does not install.)

CROSS_OUT := $(BUILD)/tests/cross
NPROC := $(shell nproc 2>/dev/null || echo 2)

TESTS += cross-core
test-cross-core: ## The core compiles with -ffreestanding -Werror for x86-64, aarch64, Cortex-M0/M3/M23/M33/A15, mips64 (el/be), riscv64, riscv32 (RV32IMAC), gcc and clang
	TARGET_WARN="$(TARGET_WARN)" tests/cross/core_compile.sh $(CROSS_OUT)/core $(MSAMP_CORE_SRCS) $(MSAMP_WRAP_SRCS)

TESTS += cross-core-tiny
test-cross-core-tiny: ## The tiny profile of the core compiles the same way for every target
	TARGET_WARN="$(TARGET_WARN)" CORE_DEFS=-DMSAMP_CFG_TINY=1 tests/cross/core_compile.sh \
		$(CROSS_OUT)/core-tiny $(MSAMP_CORE_SRCS) $(MSAMP_WRAP_SRCS)

TESTS += cross-hosted-port-clang
test-cross-hosted-port-clang: ## The hosted port compiles with clang -Werror for x86-64, aarch64, riscv64 and mips64el Linux
	@tests/need.sh clang
	set -e; for t in x86_64-linux-gnu aarch64-linux-gnu riscv64-linux-gnu mips64el-linux-gnuabi64; do \
	  mkdir -p $(CROSS_OUT)/port-clang/$$t; \
	  sysroot=; [ $$t = x86_64-linux-gnu ] || sysroot=--sysroot=/usr/$$t; \
	  for f in $(HOSTED_PORT_SRCS) port/mips64/msamp_mips64_walk.c; do \
	    clang --target=$$t $$sysroot $(HOSTED_PORT_CFLAGS) -Iport/mips64 -c $$f \
	      -o $(CROSS_OUT)/port-clang/$$t/$$(basename $$f .c).o; \
	  done; \
	  echo "ok    clang $$t: $(notdir $(HOSTED_PORT_SRCS))"; \
	done

# $(call msamp_cross,ARCH,GCC,QEMU): unit and hosted tests of one architecture.
define msamp_cross
TESTS += cross-unit-$(1) cross-hosted-$(1)

$$(CROSS_OUT)/$(1)/zlib/libz.a: tests/cross/zlib_crc.c
	@mkdir -p $$(@D)
	$(2) -std=c11 -O2 -Wall -Wextra -Werror -c $$< -o $$(@D)/zlib_crc.o
	rm -f $$@ && $(patsubst %gcc,%ar,$(2)) rcs $$@ $$(@D)/zlib_crc.o

test-cross-unit-$(1): $$(CROSS_OUT)/$(1)/zlib/libz.a ## Core unit tests for $(1), under $(3)
	@tests/need.sh $(2) $(3)
	$$(MAKE) -s --no-print-directory -j$$(NPROC) UNIT_CC=$(2) UNIT_RUN=$(3) UNIT_OUT=$$(BUILD)/unit-$(1) \
		UNIT_SAN="-static -L$$(CROSS_OUT)/$(1)/zlib" $$(addprefix test-unit-,$$(UNIT_TESTS))

$$(CROSS_OUT)/$(1)/e2e_app: tests/hosted/e2e_app.c $$(BUILD)/hosted-$(1)/libmsamp.a $$(BUILD)/hosted-$(1)/msamp.pc
	@mkdir -p $$(@D)
	$(2) $$(HT_CFLAGS) -static $$< $$$$($$(call HT_PC,hosted-$(1))) -o $$@

$$(CROSS_OUT)/$(1)/behave_plain: tests/hosted/behave_app.c
	@mkdir -p $$(@D)
	$(2) $$(HT_CFLAGS) -static $$< -o $$@

$$(CROSS_OUT)/$(1)/behave_msamp: tests/hosted/behave_app.c $$(BUILD)/hosted-$(1)/libmsamp.a $$(BUILD)/hosted-$(1)/msamp.pc
	@mkdir -p $$(@D)
	$(2) $$(HT_CFLAGS) -static $$< $$$$($$(call HT_PC,hosted-$(1))) -o $$@

$$(CROSS_OUT)/$(1)/nofp_lib.o: tests/hosted/nofp_lib.c
	@mkdir -p $$(@D)
	$(2) -std=c11 -O2 -fomit-frame-pointer -Wall -Wextra -Werror -c $$< -o $$@

$$(CROSS_OUT)/$(1)/unwind_app: tests/hosted/unwind_app.c $$(CROSS_OUT)/$(1)/nofp_lib.o $$(BUILD)/hosted-$(1)/libmsamp.a $$(BUILD)/hosted-$(1)/msamp.pc
	@mkdir -p $$(@D)
	$(2) $$(HT_CFLAGS) -static $$< $$(CROSS_OUT)/$(1)/nofp_lib.o $$$$($$(call HT_PC,hosted-$(1))) -o $$@

test-cross-hosted-$(1): $$(addprefix $$(CROSS_OUT)/$(1)/,e2e_app behave_plain behave_msamp unwind_app) $$(BUILD)/tests/hosted/msamp_check ## Hosted port on $(1) under $(3): end to end, behaviour, unwinder
	@tests/need.sh $(2) $(3)
	RUNNER=$(3) tests/hosted/e2e.sh $$(CROSS_OUT)/$(1)/e2e_app $$(HT)/msamp_check $$(CROSS_OUT)/$(1)/e2e
	RUNNER=$(3) tests/hosted/behave.sh $$(CROSS_OUT)/$(1) $$(HT)/msamp_check
	tests/hosted/unwind.sh $$(CROSS_OUT)/$(1)/unwind_app $$(HT)/msamp_check $$(CROSS_OUT)/$(1)/unwind $(3)
endef

$(eval $(call msamp_cross,aarch64,aarch64-linux-gnu-gcc,qemu-aarch64))
$(eval $(call msamp_cross,riscv64,riscv64-linux-gnu-gcc,qemu-riscv64))
$(eval $(call msamp_cross,mips64el,mips64el-linux-gnuabi64-gcc,qemu-mips64el))
