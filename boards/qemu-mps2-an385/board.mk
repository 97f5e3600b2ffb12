# qemu-mps2-an385: QEMU's Arm MPS2 with a Cortex-M3 (AN385), bare metal, built with gcc (exidx
# walker, -funwind-tables) or BOARD_COMPILER=clang (r7 frame chain). The tiny profile of the core
# by default (docs/TINY.md); MSAMP_PROFILE=full builds the full one. What the MPS2 boards share
# (this board's start-up, board code and linker script, the CMSDK UART): boards/common/mps2.mk.
MPS2_MACHINE := mps2-an385
MPS2_UART_BASE := 0x40004000
include boards/common/mps2.mk
BOARD_CLANG_TARGET := thumbv7m-none-eabi
BOARD_PROFILE := tiny
BOARD_CFLAGS := -mthumb -mcpu=cortex-m3 -mfloat-abi=soft -Os $(MPS2_WALKER_CFLAGS)
BOARD_TRANSPORTS += rtt
# SEGGER RTT: the up-buffer's size here, the rest is boards.mk's.
BOARD_TRANSPORT_DEFS_rtt := -DMSAMP_RTT_UP_SIZE=4096 -DMSAMP_RTT_BLOCK=1
