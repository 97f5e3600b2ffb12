# qemu-mps2-an505: QEMU's Arm MPS2+ with the SSE-200 and a Cortex-M33 (AN505, ARMv8-M mainline),
# bare metal in Secure state without TrustZone set-up: the Secure aliases of memory (code at
# 0x10000000, data at 0x38000000) and peripherals (0x5xxxxxxx), which the MPCs and PPCs allow at
# reset. Hard-float ABI (the FPU enabled at reset). Built with gcc (exidx walker) or
# BOARD_COMPILER=clang (r7 frame chain). qemu-mps2-an385's board code (boards/common/mps2.mk) with
# AN505's TIMER0 (IRQ 3), its CMSDK UART0, a 20 MHz system clock and a linker script of its own.
# The full profile by default.
MPS2_MACHINE := mps2-an505
MPS2_UART_BASE := 0x50200000
include boards/common/mps2.mk
BOARD_CLANG_TARGET := thumbv8m.main-none-eabihf
BOARD_CFLAGS := -mthumb -mcpu=cortex-m33 -mfpu=fpv5-sp-d16 -mfloat-abi=hard -Os \
	-DMSAMP_ARM_CPU_HZ=20000000u -DBOARD_TIMER0_BASE=0x50000000u -DBOARD_TIMER0_IRQ=3u $(MPS2_WALKER_CFLAGS)
BOARD_LDSCRIPT := boards/qemu-mps2-an505/link.ld
