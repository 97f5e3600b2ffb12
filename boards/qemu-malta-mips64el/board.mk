# qemu-malta-mips64el: QEMU's MIPS Malta with a MIPS64R2 core, little endian, bare metal in kseg0.
MALTA_ENDIAN ?= -EL
BOARD_ARCH := mips64
BOARD_CROSS := mips64el-linux-gnuabi64-
BOARD_CLANG_TARGET := $(if $(filter -EB,$(MALTA_ENDIAN)),mips64,mips64el)-unknown-linux-gnuabi64
BOARD_CFLAGS := $(MALTA_ENDIAN) -march=mips64r2 -mabi=64 -mno-abicalls -fno-pic -G0 -msym32 \
	-mno-branch-likely
BOARD_LDFLAGS := $(MALTA_ENDIAN)
BOARD_LDSCRIPT := boards/qemu-malta-mips64el/link.ld
BOARD_SRCS := boards/qemu-malta-mips64el/start.S boards/qemu-malta-mips64el/board.c boards/common/board_port.c
BOARD_TRANSPORTS := uart semihosting
BOARD_TRANSPORT_SRCS_uart := port/transport/uart16550.c
BOARD_TRANSPORT_DEFS_uart := -DMSAMP_16550_BASE=0xffffffffb80003f8
# -vga none: Malta's default Cirrus VGA needs vgabios-cirrus.bin, which comes with seabios, only a
# Recommends of qemu-system-mips (as -nic none leaves out the PCnet NIC's boot ROM from ipxe-qemu).
BOARD_QEMU := qemu-system-mips64$(if $(filter -EB,$(MALTA_ENDIAN)),,el) -M malta -cpu MIPS64R2-generic \
	-m 128M -display none -monitor none -nic none -vga none -semihosting-config enable=on,target=native
BOARD_QEMU_TIMEOUT := 60
BOARD_PACKAGES := gcc-mips64el-linux-gnuabi64 qemu-system-mips
