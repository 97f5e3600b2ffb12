# What the QEMU boards' board.mk files share: QEMU without display, monitor or network, with
# semihosting on (the console and exit of boards/common/), a minute per run. A board.mk sets
# QEMU_MACHINE (the QEMU binary and its machine's options) and includes this file.
BOARD_QEMU := $(QEMU_MACHINE) -display none -monitor none -nic none -semihosting-config enable=on,target=native
BOARD_QEMU_TIMEOUT := 60
