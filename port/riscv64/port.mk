# The RISC-V 64 port's sources, relative to port/: the one list port/msamp.mk (firmware projects,
# boards), port/msamp.cmake (through msamp.mk) and the tests build.
msamp_port_riscv64 := riscv64/msamp_port_riscv64.c common/msamp_frame_walk.c common/msamp_irq_contexts.c \
	common/msamp_build_id.c
# Semihosting (the board console, the semihosting transport): ARM's operations, `ebreak` trap.
msamp_semihosting_riscv64 := semihosting/semihost.c semihosting/semihost_trap.c
