# qemu-mps2-an505: QEMU's Arm MPS2+ with the SSE-200 and a Cortex-M33 (AN505, ARMv8-M mainline),
# bare metal in Secure state without TrustZone set-up: the Secure aliases of memory (code at
# 0x10000000, data at 0x38000000) and peripherals (0x5xxxxxxx), which the MPCs and PPCs allow at
# reset. Hard-float ABI (the FPU enabled at reset). Built with gcc (exidx walker) or
# BOARD_COMPILER=clang (r7 frame chain). qemu-mps2-an385's board code with AN505's TIMER0 (IRQ 3),
# its CMSDK UART0, a 20 MHz system clock. The full profile by default.
BOARD_ARCH := arm
BOARD_CROSS := arm-none-eabi-
BOARD_CLANG_TARGET := thumbv8m.main-none-eabihf
BOARD_VARIANT := $(if $(filter clang,$(BOARD_COMPILER)),-clang)
BOARD_CFLAGS := -mthumb -mcpu=cortex-m33 -mfpu=fpv5-sp-d16 -mfloat-abi=hard -Os \
	-DMSAMP_ARM_CPU_HZ=20000000u -DBOARD_TIMER0_BASE=0x50000000u -DBOARD_TIMER0_IRQ=3u \
	$(if $(filter clang,$(BOARD_COMPILER)),-fshort-enums -gdwarf-4 -gdwarf-aranges,-funwind-tables)
BOARD_LDFLAGS :=
BOARD_LDSCRIPT := boards/qemu-mps2-an505/link.ld
BOARD_SRCS := boards/qemu-mps2-an385/start.S boards/qemu-mps2-an385/board.c boards/common/board_port.c \
	boards/qemu-mps2-an385/aeabi_mem.c
BOARD_TRANSPORTS := uart semihosting
BOARD_TRANSPORT_SRCS_uart := port/transport/cmsdk_uart.c
BOARD_TRANSPORT_DEFS_uart := -DMSAMP_CMSDK_UART_BASE=0x50200000
BOARD_QEMU := qemu-system-arm -M mps2-an505 -display none -monitor none -nic none \
	-semihosting-config enable=on,target=native
BOARD_QEMU_TIMEOUT := 60
BOARD_PACKAGES := gcc-arm-none-eabi qemu-system-arm
