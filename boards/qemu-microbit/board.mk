# qemu-microbit: QEMU's BBC micro:bit, an nRF51822 (Cortex-M0, ARMv6-M: Thumb-1 only) with 16 KiB
# of RAM and 256 KiB of flash, bare metal, built with gcc (exidx walker, -funwind-tables) or
# BOARD_COMPILER=clang (r7 frame chain). The tiny profile (docs/TINY.md) by default, and the demo
# scaled to the RAM (DEMO_SMALL_RAM: a 9 KiB heap, a 128-slot live table, a 1 KiB ring, a 2 KiB
# stack; docs/BOARDS.md). The nRF51's UART (boards/qemu-microbit/nrf51_uart.c) and semihosting.
# MICROBIT_CPU=cortex-m23 builds the same for an ARMv8-M baseline core (no QEMU machine has one:
# make size and the compile tests use it, in a folder of its own).
MICROBIT_CPU ?= cortex-m0
BOARD_ARCH := arm
BOARD_CROSS := arm-none-eabi-
BOARD_CLANG_TARGET := $(if $(filter cortex-m23,$(MICROBIT_CPU)),thumbv8m.base-none-eabi,thumbv6m-none-eabi)
BOARD_VARIANT := $(if $(filter-out cortex-m0,$(MICROBIT_CPU)),-$(MICROBIT_CPU))$(if $(filter clang,$(BOARD_COMPILER)),-clang)
BOARD_PROFILE := tiny
BOARD_CFLAGS := -mthumb -mcpu=$(MICROBIT_CPU) -mfloat-abi=soft -Os -DMSAMP_ARM_CPU_HZ=16000000u -DDEMO_SMALL_RAM=1 \
	$(if $(filter clang,$(BOARD_COMPILER)),-fshort-enums -gdwarf-4 -gdwarf-aranges -Wno-atomic-alignment,-funwind-tables)
BOARD_LDFLAGS :=
BOARD_LDSCRIPT := boards/qemu-microbit/link.ld
BOARD_SRCS := boards/qemu-mps2-an385/start.S boards/qemu-microbit/board.c boards/common/board_port.c \
	boards/qemu-mps2-an385/aeabi_mem.c
BOARD_TRANSPORTS := uart semihosting
BOARD_TRANSPORT_SRCS_uart := boards/qemu-microbit/nrf51_uart.c
BOARD_QEMU := qemu-system-arm -M microbit -display none -monitor none -nic none \
	-semihosting-config enable=on,target=native
BOARD_QEMU_TIMEOUT := 60
BOARD_PACKAGES := gcc-arm-none-eabi qemu-system-arm
