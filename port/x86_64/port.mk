# The x86-64 bare-metal port's sources, relative to port/: the one list port/msamp.mk (firmware
# projects, boards), port/msamp.cmake (through msamp.mk) and the tests build.
msamp_port_x86_64 := x86_64/msamp_port_x86_64.c common/msamp_frame_walk.c common/msamp_irq_contexts.c \
	common/msamp_build_id.c
# x86 has no semihosting.
msamp_semihosting_x86_64 :=
