# qemu-virt-aarch64: QEMU's Arm virt machine with a Cortex-A53, bare metal at EL1.
BOARD_ARCH := aarch64
BOARD_CROSS := aarch64-linux-gnu-
BOARD_CFLAGS := -mcpu=cortex-a53 -mstrict-align -mgeneral-regs-only -mno-outline-atomics
BOARD_LDFLAGS :=
BOARD_LDSCRIPT := boards/qemu-virt-aarch64/link.ld
BOARD_SRCS := boards/qemu-virt-aarch64/start.S boards/qemu-virt-aarch64/board.c boards/common/board_port.c
BOARD_TRANSPORTS := uart semihosting rtt
BOARD_TRANSPORT_SRCS_uart := port/transport/pl011.c
BOARD_TRANSPORT_DEFS_uart := -DMSAMP_PL011_BASE=0x09000000
# SEGGER RTT: the up-buffer's size here, the rest is boards.mk's.
BOARD_TRANSPORT_DEFS_rtt := -DMSAMP_RTT_UP_SIZE=16384 -DMSAMP_RTT_BLOCK=1
BOARD_QEMU := qemu-system-aarch64 -M virt -cpu cortex-a53 -m 128M -display none -monitor none -nic none \
	-semihosting-config enable=on,target=native
BOARD_QEMU_TIMEOUT := 60
BOARD_DEPS := demo
BOARD_CLANG_TARGET := aarch64-none-elf
