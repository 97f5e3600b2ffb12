# The 32-bit ARM port's sources, relative to port/: the one list port/msamp.mk (firmware projects,
# boards), port/msamp.cmake (through msamp.mk) and the tests build. Both unwinders are built;
# msamp_port_walk() uses the one the compiler's frames need (port/arm/README.md).
msamp_port_arm := arm/msamp_port_arm.c arm/msamp_arm_exidx.c arm/msamp_arm_capture.c arm/msamp_arm_pr_stubs.c \
	arm/msamp_arm_atomic_v6m.c \
	common/msamp_frame_walk.c common/msamp_build_id.c
# Semihosting (the board console, the semihosting transport): ARM's operations, `svc`/`bkpt` trap.
msamp_semihosting_arm := semihosting/semihost.c semihosting/semihost_trap.c
# What gcc must put in EVERY file of the firmware (msamp's and the firmware's own, since each walk
# goes up through both) for the exidx walker: its Thumb code keeps no frame chain, and a function
# without an unwind entry ends the walk (no entry at all for the wrapper's caller: no frame).
# port/msamp.mk adds it to MSAMP_CFLAGS when MSAMP_COMPILER is gcc; clang's frame chain needs none.
msamp_unwind_gcc_arm := -funwind-tables
