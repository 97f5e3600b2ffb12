# qemu-virt-riscv32: QEMU's RISC-V virt machine in 32 bits (RV32IMAC, the MCU class: ESP32-C3,
# GD32V, CH32V), one hart in machine mode, no firmware (-bios none). Debian's bare-metal
# riscv64-unknown-elf gcc (its rv32imac/ilp32 multilib: libgcc) or clang.
BOARD_ARCH := riscv32
BOARD_CROSS := riscv64-unknown-elf-
BOARD_CLANG_TARGET := riscv32-unknown-elf
# gcc 12 with binutils 2.40: the CSR instructions are extension zicsr, implied by ISA spec 2.2
# (-march=rv32imac_zicsr would miss the rv32imac/ilp32 multilib's libgcc).
BOARD_CFLAGS := -march=rv32imac -mabi=ilp32 -mcmodel=medany -mno-relax \
	$(if $(filter clang,$(BOARD_COMPILER)),-gdwarf-4 -gdwarf-aranges,-misa-spec=2.2)
BOARD_LDFLAGS := -Wl,--no-relax
BOARD_LDSCRIPT := boards/qemu-virt-riscv32/link.ld
BOARD_SRCS := boards/qemu-virt-riscv32/start.S boards/qemu-virt-riscv32/board.c boards/common/board_port.c
BOARD_TRANSPORTS := uart semihosting
BOARD_TRANSPORT_SRCS_uart := port/transport/uart16550.c
BOARD_TRANSPORT_DEFS_uart := -DMSAMP_16550_BASE=0x10000000
BOARD_QEMU := qemu-system-riscv32 -M virt -bios none -m 128M -display none -monitor none -nic none \
	-semihosting-config enable=on,target=native
BOARD_QEMU_TIMEOUT := 60
BOARD_PACKAGES := gcc-riscv64-unknown-elf qemu-system-misc
