# What the QEMU boards' board.mk files share: QEMU without display, monitor or network, with
# semihosting on (the console and exit of boards/common/), a minute per run; the transports the
# UART and semihosting (a board.mk that has others sets BOARD_TRANSPORTS after). A board.mk sets
# QEMU_MACHINE (the QEMU binary and its machine's options) and includes this file.
BOARD_TRANSPORTS := uart semihosting
BOARD_QEMU := $(QEMU_MACHINE) -display none -monitor none -nic none -semihosting-config enable=on,target=native
BOARD_QEMU_TIMEOUT := 60
