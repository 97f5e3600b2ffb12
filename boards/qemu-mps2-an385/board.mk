# qemu-mps2-an385: QEMU's Arm MPS2 with a Cortex-M3 (AN385), bare metal, built with gcc (exidx
# walker, -funwind-tables) or BOARD_COMPILER=clang (r7 frame chain). The tiny profile of the core
# by default (docs/TINY.md); MSAMP_PROFILE=full builds the full one.
BOARD_ARCH := arm
BOARD_CROSS := arm-none-eabi-
BOARD_CLANG_TARGET := thumbv7m-none-eabi
BOARD_VARIANT := $(if $(filter clang,$(BOARD_COMPILER)),-clang)
BOARD_PROFILE := tiny
BOARD_CFLAGS := -mthumb -mcpu=cortex-m3 -mfloat-abi=soft -Os $(if $(filter clang,$(BOARD_COMPILER)),-fshort-enums -gdwarf-4 -gdwarf-aranges,-funwind-tables)
BOARD_LDFLAGS :=
BOARD_LDSCRIPT := boards/qemu-mps2-an385/link.ld
BOARD_SRCS := boards/qemu-mps2-an385/start.S boards/qemu-mps2-an385/board.c boards/common/board_port.c \
	boards/qemu-mps2-an385/aeabi_mem.c
BOARD_TRANSPORTS := uart semihosting rtt
BOARD_TRANSPORT_SRCS_uart := port/transport/cmsdk_uart.c
BOARD_TRANSPORT_DEFS_uart := -DMSAMP_CMSDK_UART_BASE=0x40004000
# SEGGER RTT: the up-buffer's size here, the rest is boards.mk's.
BOARD_TRANSPORT_DEFS_rtt := -DMSAMP_RTT_UP_SIZE=4096 -DMSAMP_RTT_BLOCK=1
BOARD_QEMU := qemu-system-arm -M mps2-an385 -display none -monitor none -nic none \
	-semihosting-config enable=on,target=native
BOARD_QEMU_TIMEOUT := 60
BOARD_PACKAGES := gcc-arm-none-eabi qemu-system-arm
