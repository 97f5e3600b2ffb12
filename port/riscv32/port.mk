# The RISC-V 32 port's sources, relative to port/: the one list port/msamp.mk (firmware projects,
# boards), port/msamp.cmake (through msamp.mk) and the tests build.
msamp_port_riscv32 := riscv32/msamp_port_riscv32.c common/msamp_frame_walk.c common/msamp_irq_contexts.c \
	common/msamp_build_id.c
# Semihosting (the board console, the semihosting transport): ARM's operations, `ebreak` trap.
msamp_semihosting_riscv32 := semihosting/semihost.c semihosting/semihost_trap.c
