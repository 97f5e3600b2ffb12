# qemu-virt-riscv64: QEMU's RISC-V virt machine, one hart in machine mode, no firmware (-bios none):
# boards/common/qemu_virt_riscv.mk.
RISCV_XLEN := 64
include boards/common/qemu_virt_riscv.mk
BOARD_CROSS := riscv64-linux-gnu-
BOARD_CLANG_TARGET := riscv64-unknown-elf
BOARD_CFLAGS := -march=rv64gc -mabi=lp64d -mcmodel=medany -mno-relax \
	$(if $(filter clang,$(BOARD_COMPILER)),-gdwarf-4 -gdwarf-aranges)
BOARD_PACKAGES := gcc-riscv64-linux-gnu qemu-system-misc
