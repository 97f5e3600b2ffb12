# qemu-microvm-x86_64: QEMU's microvm machine, one x86-64 CPU in long mode without an OS. PVH
# entry (an ELF note) in 32-bit mode, identity-mapped first GiB, COM1 for the stream, the debug
# console port 0xe9 for text, isa-debug-exit (or a reset with -no-reboot for status 0) to exit.
BOARD_ARCH := x86_64
BOARD_CROSS :=
BOARD_CLANG_TARGET := x86_64-unknown-none-elf
BOARD_CFLAGS := -m64 -mno-red-zone -mgeneral-regs-only -fno-stack-protector -fcf-protection=none \
	-mcmodel=small $(if $(filter clang,$(BOARD_COMPILER)),-gdwarf-4 -gdwarf-aranges)
BOARD_LDFLAGS := -Wl,-z,max-page-size=4096 -Wl,-z,noexecstack
BOARD_LDSCRIPT := boards/qemu-microvm-x86_64/link.ld
BOARD_SRCS := boards/qemu-microvm-x86_64/start.S boards/qemu-microvm-x86_64/board.c boards/common/board_port.c
BOARD_TRANSPORTS := uart
BOARD_TRANSPORT_SRCS_uart := port/transport/uart16550.c
BOARD_TRANSPORT_DEFS_uart := -DMSAMP_16550_BASE=0x3f8 -DMSAMP_16550_PORT_IO=1
BOARD_QEMU := qemu-system-x86_64 -M microvm -m 128M -display none -monitor none -nic none -no-reboot \
	-debugcon stdio -device isa-debug-exit,iobase=0xf4,iosize=0x04
BOARD_QEMU_TIMEOUT := 60
BOARD_PACKAGES := gcc qemu-system-x86
