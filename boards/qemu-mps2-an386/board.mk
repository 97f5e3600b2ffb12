# qemu-mps2-an386: QEMU's Arm MPS2 with a Cortex-M4F (AN386), bare metal, hard-float ABI (the FPU
# enabled at reset), built with gcc (exidx walker, -funwind-tables) or BOARD_COMPILER=clang (r7
# frame chain). AN386 has AN385's memory map: qemu-mps2-an385's board code, start-up, linker script
# and CMSDK UART. The full profile by default.
BOARD_ARCH := arm
BOARD_CROSS := arm-none-eabi-
BOARD_CLANG_TARGET := thumbv7em-none-eabihf
BOARD_VARIANT := $(if $(filter clang,$(BOARD_COMPILER)),-clang)
BOARD_CFLAGS := -mthumb -mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard -Os \
	$(if $(filter clang,$(BOARD_COMPILER)),-fshort-enums -gdwarf-4 -gdwarf-aranges,-funwind-tables)
BOARD_LDFLAGS :=
BOARD_LDSCRIPT := boards/qemu-mps2-an385/link.ld
BOARD_SRCS := boards/qemu-mps2-an385/start.S boards/qemu-mps2-an385/board.c boards/common/board_port.c \
	boards/qemu-mps2-an385/aeabi_mem.c
BOARD_TRANSPORTS := uart semihosting
BOARD_TRANSPORT_SRCS_uart := port/transport/cmsdk_uart.c
BOARD_TRANSPORT_DEFS_uart := -DMSAMP_CMSDK_UART_BASE=0x40004000
BOARD_QEMU := qemu-system-arm -M mps2-an386 -display none -monitor none -nic none \
	-semihosting-config enable=on,target=native
BOARD_QEMU_TIMEOUT := 60
BOARD_PACKAGES := gcc-arm-none-eabi qemu-system-arm
