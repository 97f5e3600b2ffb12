# qemu-mps2-an386: QEMU's Arm MPS2 with a Cortex-M4F (AN386), bare metal, hard-float ABI (the FPU
# enabled at reset), built with gcc (exidx walker, -funwind-tables) or BOARD_COMPILER=clang (r7
# frame chain). AN386 has AN385's memory map: qemu-mps2-an385's board code, start-up, linker script
# and CMSDK UART (boards/common/mps2.mk). The full profile by default.
MPS2_MACHINE := mps2-an386
MPS2_UART_BASE := 0x40004000
include boards/common/mps2.mk
BOARD_CLANG_TARGET := thumbv7em-none-eabihf
BOARD_CFLAGS := -mthumb -mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard -Os $(MPS2_WALKER_CFLAGS)
