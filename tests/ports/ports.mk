# Walker tests of the bare-metal ports (port/arm, port/mips64, port/riscv64, port/x86_64): for each
# architecture and compiler mode, tests/ports/walk_test.c (the code walked) is built at -O0, -O2
# and -Os, linked with the port built as the library is (-O2), and run as a static Linux user
# program (qemu-user, or natively on x86-64). See walk_test.c for what it checks. One test per
# configuration: ports-<config>.

PT_DIR := $(BUILD)/ports
PT_OPTS := O0 O2 Os
PT_WARN := $(TARGET_WARN) -Werror=frame-address
PT_COMMON := -ffreestanding -fno-omit-frame-pointer -g -Iinclude -Iport/transport -Iport/common -Itests/ports
# The tests link the port as a board does (its port.mk list): build-id bounds of their own.
PT_LDFLAGS := -nostdlib -static -Wl,--defsym=__msamp_text_lo=__executable_start \
	-Wl,--defsym=__msamp_text_hi=etext -Wl,-z,noexecstack -Wl,--defsym=__msamp_build_id_start=__executable_start \
	-Wl,--defsym=__msamp_build_id_end=__executable_start

pt_port = $(addprefix port/,$(msamp_port_$(1))) tests/ports/start_$(1).S
# MSAMP_MIPS64_TEST_HOOKS: the scanner counts its reads of code and says where its cache puts a
# return address (walk_test.c's cache check).
PT_MIPS_FLAGS := -mno-abicalls -fno-pic -G0 -march=mips64r2 -DMSAMP_MIPS64_TEST_HOOKS

# MSAMP_ARM_TEST_HOOKS: the exidx walker counts its decodes, says where its unwind cache puts a
# return address, takes walk_test.c's lock and lets it interrupt a read (walk_test.c's cache
# check): the default cache on thumb-gcc and m3-gcc, 4 entries on m0-gcc (evictions every walk),
# none on m23-gcc (the interpreter alone, as the small configurations build it).
PT_ARM_SMALL_CACHE := -DMSAMP_ARM_TEST_HOOKS -DMSAMP_CFG_UNWIND_CACHE=4
# name | compiler | flags | port folder | sources | link driver | runner
PT_CONFIGS := arm-gcc arm-gcc-apcs arm-clang thumb-gcc thumb-clang m3-gcc m3-clang mips64el mips64 \
	riscv64-gcc riscv64-clang x86_64-gcc x86_64-clang
# ARMv6-M (Cortex-M0) and ARMv8-M baseline (Cortex-M23): Thumb-1 code, run by qemu-arm's default CPU.
PT_CONFIGS += m0-gcc m0-clang m23-gcc m23-clang
pt_cfg = $(eval PT_CC_$(1) := $(2))$(eval PT_FLAGS_$(1) := $(3))$(eval PT_ARCH_$(1) := $(4))$(eval \
	PT_SRCS_$(1) := $(5))$(eval PT_LD_$(1) := $(6))$(eval PT_RUN_$(1) := $(7))
$(call pt_cfg,arm-gcc,arm-none-eabi-gcc,-marm -mcpu=cortex-a15 -mfloat-abi=soft,arm,$(call pt_port,arm),arm-none-eabi-gcc,qemu-arm)
$(call pt_cfg,arm-gcc-apcs,arm-none-eabi-gcc,-marm -mcpu=cortex-a15 -mfloat-abi=soft -mapcs-frame -DMSAMP_ARM_FRAME_LAYOUT=MSAMP_ARM_FRAME_APCS,arm,$(call pt_port,arm),arm-none-eabi-gcc,qemu-arm)
$(call pt_cfg,arm-clang,clang --target=armv7a-none-eabi,-marm -mcpu=cortex-a15 -mfloat-abi=soft -fshort-enums,arm,$(call pt_port,arm),arm-none-eabi-gcc,qemu-arm)
$(call pt_cfg,thumb-gcc,arm-none-eabi-gcc,-mthumb -mcpu=cortex-a15 -mfloat-abi=soft -funwind-tables -DMSAMP_ARM_TEST_HOOKS,arm,$(call pt_port,arm),arm-none-eabi-gcc,qemu-arm)
$(call pt_cfg,thumb-clang,clang --target=armv7a-none-eabi,-mthumb -mcpu=cortex-a15 -mfloat-abi=soft -fshort-enums,arm,$(call pt_port,arm),arm-none-eabi-gcc,qemu-arm)
$(call pt_cfg,m3-gcc,arm-none-eabi-gcc,-mthumb -mcpu=cortex-m3 -funwind-tables -DMSAMP_ARM_TEST_HOOKS,arm,$(call pt_port,arm),arm-none-eabi-gcc,qemu-arm)
$(call pt_cfg,m3-clang,clang --target=thumbv7m-none-eabi,-mthumb -mcpu=cortex-m3 -mfloat-abi=soft -fshort-enums,arm,$(call pt_port,arm),arm-none-eabi-gcc,qemu-arm)
$(call pt_cfg,m0-gcc,arm-none-eabi-gcc,-mthumb -mcpu=cortex-m0 -funwind-tables $(PT_ARM_SMALL_CACHE),arm,$(call pt_port,arm),arm-none-eabi-gcc,qemu-arm)
$(call pt_cfg,m0-clang,clang --target=thumbv6m-none-eabi,-mthumb -mcpu=cortex-m0 -mfloat-abi=soft -fshort-enums,arm,$(call pt_port,arm),arm-none-eabi-gcc,qemu-arm)
$(call pt_cfg,m23-gcc,arm-none-eabi-gcc,-mthumb -mcpu=cortex-m23 -funwind-tables -DMSAMP_CFG_UNWIND_CACHE=0,arm,$(call pt_port,arm),arm-none-eabi-gcc,qemu-arm)
$(call pt_cfg,m23-clang,clang --target=thumbv8m.base-none-eabi,-mthumb -mcpu=cortex-m23 -mfloat-abi=soft -fshort-enums,arm,$(call pt_port,arm),arm-none-eabi-gcc,qemu-arm)
$(call pt_cfg,mips64el,mips64el-linux-gnuabi64-gcc,$(PT_MIPS_FLAGS) -EL,mips64,$(call pt_port,mips64),mips64el-linux-gnuabi64-gcc -EL,qemu-mips64el)
$(call pt_cfg,mips64,mips64el-linux-gnuabi64-gcc,$(PT_MIPS_FLAGS) -EB,mips64,$(call pt_port,mips64),mips64el-linux-gnuabi64-gcc -EB,qemu-mips64)
$(call pt_cfg,riscv64-gcc,riscv64-linux-gnu-gcc,-mcmodel=medany,riscv64,$(call pt_port,riscv64),riscv64-linux-gnu-gcc,qemu-riscv64)
$(call pt_cfg,riscv64-clang,clang --target=riscv64-linux-gnu --sysroot=/usr/riscv64-linux-gnu,-mcmodel=medany -mno-relax,riscv64,$(call pt_port,riscv64),riscv64-linux-gnu-gcc,qemu-riscv64)
$(call pt_cfg,x86_64-gcc,gcc,-fno-pie -fcf-protection=none,x86_64,$(call pt_port,x86_64),gcc -no-pie,)
$(call pt_cfg,x86_64-clang,clang,-fno-pie -fcf-protection=none,x86_64,$(call pt_port,x86_64),gcc -no-pie,)

# $(1) config, $(2) optimisation level. Objects keep their header dependencies (.d); each
# configuration's flags file changes, and rebuilds its objects, only when a flag does.
pt_flags_text = $(PT_CC_$(1)) $(PT_WARN) $(PT_COMMON) $(PT_FLAGS_$(1)) $(PT_LD_$(1)) $(PT_LDFLAGS)
define pt_build
PT_OBJS_$(1)_$(2) := $$(patsubst %,$(PT_DIR)/$(1)/$(2)/%.o,tests/ports/walk_test.c $$(PT_SRCS_$(1)))
$(PT_DIR)/$(1)/$(2)/%.o: % $(PT_DIR)/$(1)/flags
	@mkdir -p $$(@D)
	$$(PT_CC_$(1)) $(PT_WARN) $(PT_COMMON) -Iport/$$(PT_ARCH_$(1)) $$(PT_FLAGS_$(1)) -MMD -MP \
		$$(if $$(filter tests/ports/%,$$<),-$(2),-O2) -DTEST_NAME='"$(1)-$(2)"' -c $$< -o $$@
$(PT_DIR)/$(1)/walk_test-$(2): $$(PT_OBJS_$(1)_$(2))
	$$(PT_LD_$(1)) $$(PT_FLAGS_$(1)) $(PT_LDFLAGS) -o $$@ $$^ -lgcc
-include $$(PT_OBJS_$(1)_$(2):.o=.d)
endef
.PHONY: pt-flags-force
pt-flags-force:

define pt_test
$(foreach o,$(PT_OPTS),$(eval $(call pt_build,$(1),$(o))))
$(PT_DIR)/$(1)/flags: pt-flags-force
	$$(if $$(subst |$$(call pt_flags_text,$(1))|,,|$$(file <$$@)|),$$(shell mkdir -p $$(@D))$$(file >$$@,$$(call pt_flags_text,$(1))))
TESTS += ports-$(1)
test-ports-$(1): ## Walker test of one port configuration (see tests/ports/ports.mk), -O0/-O2/-Os
	@tests/need.sh $(firstword $(PT_CC_$(1))) $(firstword $(PT_LD_$(1))) $(PT_RUN_$(1))
	@$(MAKE) --no-print-directory -s $(foreach o,$(PT_OPTS),$(PT_DIR)/$(1)/walk_test-$(o))
	@set -e; for o in $(PT_OPTS); do timeout 120 $(PT_RUN_$(1)) $(PT_DIR)/$(1)/walk_test-$$$$o; done
endef
$(foreach c,$(PT_CONFIGS),$(eval $(call pt_test,$(c))))

.PHONY: test-ports
test-ports: $(foreach c,$(PT_CONFIGS),test-ports-$(c)) ## All port walker tests

# One size table across architectures (run by `make size-table`; see tests/ports/size_table.sh).
SIZE_TABLE_SMALL = $(SIZE_SMALL_DEFS)
.PHONY: size-table
size-table: ## Library text/data/bss per architecture, default and small configuration, unwinder share
	@MAKE="$(MAKE)" tests/ports/size_table.sh $(BUILD)/size-table "$(SIZE_TABLE_SMALL)"

# The table itself, checked (tests/ports/check_size.sh): rows, the probe on every board, the tiny
# profile's RAM bound, the control API left out of a firmware that does not call it.
TESTS += ports-size
test-ports-size:
	@tests/need.sh arm-none-eabi-gcc clang ld.lld aarch64-linux-gnu-gcc mips64el-linux-gnuabi64-gcc \
		riscv64-linux-gnu-gcc riscv64-unknown-elf-gcc
	@MAKE="$(MAKE)" tests/ports/check_size.sh $(BUILD)/test-size "$(SIZE_TABLE_SMALL)"

# End to end on the boards of these ports: the demo under QEMU, drained and checked like on
# qemu-virt-aarch64 (symbolized sites, estimates within bound, leak, interrupt stacks, drops), over
# the UART and over semihosting where the architecture has it; the other compiler or instruction
# set of a board over the UART. Runs tests/board's e2e rules with BOARD= and the board's variables.
# Every board of boards/*/board.mk (named without qemu-) over each transport its board.mk lists but
# rtt (tests/rtt), except the boards tested elsewhere: qemu-virt-aarch64 (tests/board), the FreeRTOS
# board (tests/rtos). Then the variants: another compiler, instruction set or profile of a board.
PT_BOARDS_ELSEWHERE := qemu-virt-aarch64 qemu-mps2-an385-freertos
PT_BOARDS := $(filter-out $(PT_BOARDS_ELSEWHERE),$(patsubst boards/%/board.mk,%,$(wildcard boards/*/board.mk)))
PT_VARIANTS := mps2-an385-clang mps2-an385-full virt-arm-thumb virt-arm-thumb-clang
PT_VARIANTS += microbit-clang mps2-an386-clang mps2-an505-clang
PT_VARIANTS += virt-riscv32-clang
PT_BOARD_CONFIGS := $(patsubst qemu-%,%,$(PT_BOARDS)) $(PT_VARIANTS)
# name | board | make variables | transports (all: the board's BOARD_TRANSPORTS but rtt)
pt_board = $(eval PTB_BOARD_$(1) := $(2))$(eval PTB_VARS_$(1) := $(3))$(eval PTB_T_$(1) := $(4))
$(foreach b,$(PT_BOARDS),$(call pt_board,$(patsubst qemu-%,%,$(b)),$(b),,all))
$(call pt_board,mps2-an385-clang,qemu-mps2-an385,BOARD_COMPILER=clang,uart)
$(call pt_board,mps2-an385-full,qemu-mps2-an385,MSAMP_PROFILE=full,uart)
$(call pt_board,mps2-an385-clang-full,qemu-mps2-an385,MSAMP_PROFILE=full BOARD_COMPILER=clang,uart)
$(call pt_board,microbit-clang,qemu-microbit,BOARD_COMPILER=clang,uart)
$(call pt_board,mps2-an386-clang,qemu-mps2-an386,BOARD_COMPILER=clang,uart)
$(call pt_board,mps2-an505-clang,qemu-mps2-an505,BOARD_COMPILER=clang,uart)
$(call pt_board,virt-arm-thumb,qemu-virt-arm,ARM_ISA=thumb,uart semihosting)
$(call pt_board,virt-arm-thumb-clang,qemu-virt-arm,ARM_ISA=thumb BOARD_COMPILER=clang,uart)
$(call pt_board,virt-riscv32-clang,qemu-virt-riscv32,BOARD_COMPILER=clang,uart)

define pt_board_test
TESTS += ports-board-$(1)
test-ports-board-$(1):
	@$(MAKE) --no-print-directory -s BOARD=$(PTB_BOARD_$(1)) $(PTB_VARS_$(1)) \
		$(if $(filter all,$(PTB_T_$(1))),pt-board-e2e-all,$(foreach t,$(PTB_T_$(1)),test-board-e2e-$(t)))
endef
$(foreach c,$(PT_BOARD_CONFIGS),$(eval $(call pt_board_test,$(c))))

# Instructions per walk and per sampled allocation on a board (tests/ports/bench_fw.c, counted by
# tests/ports/bench.sh under QEMU): `make bench` runs bench-ports over the boards below.
ifneq ($(wildcard boards/$(BOARD)/board.mk),)
.PHONY: pt-board-e2e-all
pt-board-e2e-all: $(foreach t,$(filter-out rtt,$(BOARD_TRANSPORTS)),test-board-e2e-$(t))
PT_BENCH_ELF := $(BOARD_DIR)/bench/bench_fw.elf
$(BOARD_DIR)/bench/bench_fw.o: tests/ports/bench_fw.c $(BOARD_FLAGS)
	@mkdir -p $(@D)
	$(BOARD_COMPILE) -I$(DEMO_DIR) -c $< -o $@
$(PT_BENCH_ELF): $(BOARD_DIR)/bench/bench_fw.o $(BOARD_OBJS) $(DEMO_OBJS) $(BOARD_LIB) \
		$(BOARD_DIR)/libmsamp_uart.a $(BOARD_LDSCRIPT)
	$(BOARD_CC) $(BOARD_TARGET_CFLAGS) $(BOARD_LINK_FLAGS) -o $@ $(filter %.o,$^) \
		$(BOARD_DIR)/libmsamp_uart.a $(BOARD_LIB) $(BOARD_LIBGCC)
PT_THIN_ELF := $(BOARD_DIR)/bench/bench_thin_fw.elf
$(BOARD_DIR)/bench/bench_thin_fw.o: tests/ports/bench_thin_fw.c $(BOARD_FLAGS)
	@mkdir -p $(@D)
	$(BOARD_COMPILE) -I$(DEMO_DIR) -c $< -o $@
$(PT_THIN_ELF): $(BOARD_DIR)/bench/bench_thin_fw.o $(BOARD_OBJS) $(DEMO_OBJS) \
		$(BOARD_LIB) $(BOARD_DIR)/libmsamp_uart.a $(BOARD_LDSCRIPT)
	$(BOARD_CC) $(BOARD_TARGET_CFLAGS) $(BOARD_LINK_FLAGS) -o $@ $(filter %.o,$^) \
		$(BOARD_DIR)/libmsamp_uart.a $(BOARD_LIB) $(BOARD_LIBGCC)
.PHONY: bench-thin-one
bench-thin-one: $(PT_THIN_ELF)
	@BOARD_QEMU="$(BOARD_QEMU)" tests/ports/bench_thin.sh $(PT_THIN_ELF) "$(PT_BENCH_LABEL)"
.PHONY: bench-ports-one
bench-ports-one: $(PT_BENCH_ELF)
	@BOARD_QEMU="$(BOARD_QEMU)" NM=$(if $(BOARD_CROSS),$(BOARD_CROSS)nm,nm) \
		tests/ports/bench.sh $(PT_BENCH_ELF) "$(PT_BENCH_LABEL)"
endif

PT_BENCH_BOARDS := mps2-an385 mps2-an385-clang mps2-an385-full mps2-an385-clang-full virt-arm virt-arm-thumb malta-mips64el virt-riscv64 \
	microvm-x86_64
PT_BENCH_BOARDS += microbit microbit-clang mps2-an386 mps2-an386-clang mps2-an505 mps2-an505-clang
PT_BENCH_BOARDS += virt-riscv32 virt-riscv32-clang
BENCHES += thin-boards
bench-thin-boards: ## Adaptive interval: instructions of a thinning pass on the Cortex-M3 (tiny and full) under QEMU
	@echo "a thinning pass on the board, instructions (QEMU, one per TB), ratio to a sampled malloc+free"
	@set -e; $(foreach b,mps2-an385-clang mps2-an385-clang-full,$(MAKE) --no-print-directory -s \
		BOARD=$(PTB_BOARD_$(b)) $(PTB_VARS_$(b)) PT_BENCH_LABEL=$(b) bench-thin-one;)
BENCHES += ports
bench-ports: ## Instructions per unwind, per sampled malloc+free and per heap-stats hook call on each port's board (QEMU)
	@echo "msamp on the boards: instructions (QEMU, one per TB), a 6-deep chain, mean of each region"
	@printf '  %-34s %8s %8s %10s %10s %10s %10s %8s\n' board walk frames sampled drain "smp+drain" unsampled heap
	@set -e; $(foreach b,$(PT_BENCH_BOARDS),$(MAKE) --no-print-directory -s BOARD=$(PTB_BOARD_$(b)) \
		$(PTB_VARS_$(b)) PT_BENCH_LABEL=$(b) bench-ports-one;)
	@echo "transport cost per byte: instructions in msamp_transport_write (QEMU, 16 calls of 256 bytes; tests/rtt/)"
	@printf '  %-34s %10s %10s %10s\n' board uart rtt rtt/uart
	@set -e; $(foreach b,qemu-mps2-an385 qemu-virt-aarch64,$(MAKE) --no-print-directory -s BOARD=$(b) bench-rtt-one;)
