# What the MPS2 boards' board.mk files share (qemu-mps2-an385, -an385-freertos, -an386, -an505):
# a Cortex-M bare metal, built with gcc (the exidx walker: -funwind-tables) or BOARD_COMPILER=clang
# (the r7 frame chain), with qemu-mps2-an385's start-up, board code and linker script and a CMSDK
# UART. A board.mk sets MPS2_MACHINE (QEMU's machine) and MPS2_UART_BASE (the UART's address),
# includes this file, and then sets BOARD_CLANG_TARGET and BOARD_CFLAGS (its CPU's flags and
# MPS2_WALKER_CFLAGS) and whatever else it does its own way.
BOARD_ARCH := arm
BOARD_CROSS := arm-none-eabi-
BOARD_LDFLAGS :=
BOARD_VARIANT := $(if $(filter clang,$(BOARD_COMPILER)),-clang)
MPS2_WALKER_CFLAGS := $(if $(filter clang,$(BOARD_COMPILER)),-fshort-enums -gdwarf-4 -gdwarf-aranges,-funwind-tables)
BOARD_LDSCRIPT := boards/qemu-mps2-an385/link.ld
BOARD_SRCS := boards/qemu-mps2-an385/start.S boards/qemu-mps2-an385/board.c boards/common/board_port.c \
	boards/qemu-mps2-an385/aeabi_mem.c
BOARD_TRANSPORT_SRCS_uart := port/transport/cmsdk_uart.c
BOARD_TRANSPORT_DEFS_uart := -DMSAMP_CMSDK_UART_BASE=$(MPS2_UART_BASE)
QEMU_MACHINE := qemu-system-arm -M $(MPS2_MACHINE)
include boards/common/qemu.mk
BOARD_PACKAGES := gcc-arm-none-eabi qemu-system-arm
