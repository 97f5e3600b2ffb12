# qemu-virt-arm: QEMU's Arm virt machine with a Cortex-A15, bare metal in SVC mode. ARM_ISA=arm
# (default: gcc's ARM-state frame chain) or ARM_ISA=thumb (gcc: the exidx walker with
# -funwind-tables; clang: the r7 frame chain). Builds land in build/qemu-virt-arm[-thumb][-clang].
ARM_ISA ?= arm
BOARD_ARCH := arm
BOARD_CROSS := arm-none-eabi-
BOARD_CLANG_TARGET := armv7a-none-eabi
BOARD_VARIANT := $(if $(filter thumb,$(ARM_ISA)),-thumb)$(if $(filter clang,$(BOARD_COMPILER)),-clang)
BOARD_CFLAGS := -m$(ARM_ISA) -mcpu=cortex-a15 -mfloat-abi=soft -mno-unaligned-access \
	$(if $(filter clang,$(BOARD_COMPILER)),-fshort-enums -gdwarf-4 -gdwarf-aranges,$(if $(filter thumb,$(ARM_ISA)),-funwind-tables))
BOARD_LDFLAGS :=
BOARD_LDSCRIPT := boards/qemu-virt-arm/link.ld
BOARD_SRCS := boards/qemu-virt-arm/start.S boards/qemu-virt-arm/board.c boards/common/board_port.c \
	boards/qemu-mps2-an385/aeabi_mem.c
BOARD_TRANSPORT_SRCS_uart := port/transport/pl011.c
BOARD_TRANSPORT_DEFS_uart := -DMSAMP_PL011_BASE=0x09000000
QEMU_MACHINE := qemu-system-arm -M virt -cpu cortex-a15 -m 128M
include boards/common/qemu.mk
BOARD_PACKAGES := gcc-arm-none-eabi qemu-system-arm
