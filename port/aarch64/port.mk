# The AArch64 port's sources, relative to port/: the one list port/msamp.mk (firmware projects,
# boards), port/msamp.cmake (through msamp.mk) and the tests build.
msamp_port_aarch64 := aarch64/msamp_port_aarch64.c common/msamp_frame_walk.c common/msamp_irq_contexts.c \
	common/msamp_build_id.c
# Semihosting (the board console, the semihosting transport): ARM's operations, `hlt` trap.
msamp_semihosting_aarch64 := semihosting/semihost.c semihosting/semihost_trap.c
