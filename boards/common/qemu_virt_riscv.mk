# What qemu-virt-riscv32 and qemu-virt-riscv64 share: QEMU's RISC-V virt machine, one hart in
# machine mode, no firmware (-bios none), a 16550 UART; start-up boards/common/riscv_start.S. A
# board.mk sets RISCV_XLEN (32 or 64), includes this file, and sets its compiler and flags.
BOARD_ARCH := riscv$(RISCV_XLEN)
BOARD_LDFLAGS := -Wl,--no-relax
BOARD_LDSCRIPT := boards/qemu-virt-riscv$(RISCV_XLEN)/link.ld
BOARD_SRCS := boards/qemu-virt-riscv$(RISCV_XLEN)/start.S boards/qemu-virt-riscv$(RISCV_XLEN)/board.c \
	boards/common/board_port.c
BOARD_TRANSPORT_SRCS_uart := port/transport/uart16550.c
BOARD_TRANSPORT_DEFS_uart := -DMSAMP_16550_BASE=0x10000000
QEMU_MACHINE := qemu-system-riscv$(RISCV_XLEN) -M virt -bios none -m 128M
include boards/common/qemu.mk
