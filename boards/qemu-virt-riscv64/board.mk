# qemu-virt-riscv64: QEMU's RISC-V virt machine, one hart in machine mode, no firmware (-bios none).
BOARD_ARCH := riscv64
BOARD_CROSS := riscv64-linux-gnu-
BOARD_CLANG_TARGET := riscv64-unknown-elf
BOARD_CFLAGS := -march=rv64gc -mabi=lp64d -mcmodel=medany -mno-relax \
	$(if $(filter clang,$(BOARD_COMPILER)),-gdwarf-4 -gdwarf-aranges)
BOARD_LDFLAGS := -Wl,--no-relax
BOARD_LDSCRIPT := boards/qemu-virt-riscv64/link.ld
BOARD_SRCS := boards/qemu-virt-riscv64/start.S boards/qemu-virt-riscv64/board.c boards/common/board_port.c
BOARD_TRANSPORTS := uart semihosting
BOARD_TRANSPORT_SRCS_uart := port/transport/uart16550.c
BOARD_TRANSPORT_DEFS_uart := -DMSAMP_16550_BASE=0x10000000
BOARD_QEMU := qemu-system-riscv64 -M virt -bios none -m 128M -display none -monitor none -nic none \
	-semihosting-config enable=on,target=native
BOARD_QEMU_TIMEOUT := 60
BOARD_PACKAGES := gcc-riscv64-linux-gnu qemu-system-misc
