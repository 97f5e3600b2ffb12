# qemu-malta-mips64: the Malta board of qemu-malta-mips64el, big endian (the same compiler with
# -EB): proves the wire format and the drain endian-clean.
MALTA_ENDIAN := -EB
include boards/qemu-malta-mips64el/board.mk
