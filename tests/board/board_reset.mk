# A profile that survives a reset (tests/board/t_reset.sh, reset_fw.c; docs/POSTMORTEM.md): the
# firmware samples a known live set, writes msamp's block as it is (ram.bin, by semihosting), then
# resets itself (SYSRESETREQ on the Cortex-M3, PSCI SYSTEM_RESET on AArch64 virt) or takes a fault
# whose handler notes it; the next boot sends the previous session. Built per board (BOARD=...,
# the full profile) against a library whose ring (512 bytes) is smaller than the replay:
#   reset-fw        a software reset, msamp_note_reset(SOFTWARE)
#   reset-fw-fault  an undefined instruction: the board's exception handler (board_fault_hook)
#                   notes FAULT and resets
#   reset-fw-once   one boot, no reset (a cold boot over garbage)
#   reset-fw-other  reset-fw's objects linked with another build-id (the same layout): a block
#                   reset-fw kept, loaded into it, is not its own
ifneq ($(wildcard boards/$(BOARD)/board.mk),)
RESET_MK := tests/board/board_reset.mk
RESET_LIB := $(BOARD_DIR)/reset-lib/libmsamp.a
$(eval $(call test_lib,reset-lib,-DMSAMP_CFG_RING_SIZE=512,$(RESET_MK)))
RESET_DEFS_reset-fw :=
RESET_DEFS_reset-fw-fault := -DRESET_FW_FAULT=1
RESET_DEFS_reset-fw-once := -DRESET_FW_BOOTS=1
RESET_LINK = $(BOARD_CC) $(BOARD_TARGET_CFLAGS) $(BOARD_LINK_FLAGS) \
	-Wl,--defsym=__reset_noinit_lo=ADDR\(.noinit\) -Wl,--defsym=__reset_noinit_hi=ADDR\(.noinit\)+SIZEOF\(.noinit\)
RESET_INPUTS = $(BOARD_OBJS) $(DEMO_OBJS) $(RESET_LIB) $(BOARD_DIR)/libmsamp_uart.a
define reset_fw
$(BOARD_DIR)/reset/$(1).o: tests/board/reset_fw.c $(BOARD_FLAGS) $(RESET_MK)
	@mkdir -p $$(@D)
	$$(BOARD_COMPILE) $(RESET_DEFS_$(1)) -c $$< -o $$@
$(BOARD_DIR)/reset/$(1).elf: $(BOARD_DIR)/reset/$(1).o $(RESET_INPUTS) $(BOARD_LDSCRIPT)
	$$(RESET_LINK) -o $$@ $$< $(RESET_INPUTS) $(BOARD_LIBGCC)
endef
$(foreach v,reset-fw reset-fw-fault reset-fw-once,$(eval $(call reset_fw,$(v))))
$(BOARD_DIR)/reset/reset-fw-other.elf: $(BOARD_DIR)/reset/reset-fw.o $(RESET_INPUTS) $(BOARD_LDSCRIPT)
	$(RESET_LINK) -Wl,--build-id=0x5eed0000000000000000000000000000000000ff -o $@ $< $(RESET_INPUTS) $(BOARD_LIBGCC)
RESET_ELFS := $(addprefix $(BOARD_DIR)/reset/,reset-fw.elf reset-fw-fault.elf reset-fw-once.elf reset-fw-other.elf)
endif

# The tests: t_reset.sh on a board (the Cortex-M3 in the full profile, AArch64 virt).
RESET_NEEDS = $(BOARD_CROSS)gcc $(firstword $(BOARD_QEMU)) python3
.PHONY: board-reset-one test-board-reset-cortexm test-board-reset-aarch64
board-reset-one:
	@tests/need.sh $(RESET_NEEDS)
	@$(MAKE) --no-print-directory -s host_tools/drain $(RESET_ELFS)
	@$(BOARD_ENV) DRAIN=host_tools/drain tests/board/t_reset.sh $(BOARD_DIR)/reset
TESTS += board-reset-cortexm board-reset-aarch64
test-board-reset-cortexm: ## A reset kept: the Cortex-M3 (full profile) resets itself (SYSRESETREQ) and faults; the next boot sends the previous session, equal to its RAM dump; cold and other-build blocks refused
	@$(MAKE) --no-print-directory -s BOARD=qemu-mps2-an385 MSAMP_PROFILE=full board-reset-one
test-board-reset-aarch64: ## A reset kept: AArch64 virt resets itself (PSCI SYSTEM_RESET) and faults; the next boot sends the previous session, equal to its RAM dump; cold and other-build blocks refused
	@$(MAKE) --no-print-directory -s BOARD=qemu-virt-aarch64 board-reset-one
