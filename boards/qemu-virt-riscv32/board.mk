# qemu-virt-riscv32: QEMU's RISC-V virt machine in 32 bits (RV32IMAC, the MCU class: ESP32-C3,
# GD32V, CH32V), one hart in machine mode, no firmware (-bios none): boards/common/qemu_virt_riscv.mk.
# Debian's bare-metal riscv64-unknown-elf gcc (its rv32imac/ilp32 multilib: libgcc) or clang.
RISCV_XLEN := 32
include boards/common/qemu_virt_riscv.mk
BOARD_CROSS := riscv64-unknown-elf-
BOARD_CLANG_TARGET := riscv32-unknown-elf
# gcc 12 with binutils 2.40: the CSR instructions are extension zicsr, implied by ISA spec 2.2
# (-march=rv32imac_zicsr would miss the rv32imac/ilp32 multilib's libgcc).
BOARD_CFLAGS := -march=rv32imac -mabi=ilp32 -mcmodel=medany -mno-relax \
	$(if $(filter clang,$(BOARD_COMPILER)),-gdwarf-4 -gdwarf-aranges,-misa-spec=2.2)
BOARD_PACKAGES := gcc-riscv64-unknown-elf qemu-system-misc
