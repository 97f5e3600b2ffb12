# The hosted Linux port's sources, relative to port/: the one list port/hosted/hosted.mk and
# port/msamp.mk build. MIPS64 code keeps no frame chain: there the hosted port also takes
# port/mips64's prologue scanner (msamp_port_hosted_mips64).
msamp_port_hosted := hosted/hosted_start.c hosted/hosted_env.c hosted/hosted_transport.c hosted/hosted_control.c hosted/hosted_context.c \
	hosted/hosted_lock.c hosted/hosted_clock.c hosted/hosted_walk.c hosted/hosted_maps.c common/msamp_frame_walk.c
msamp_port_hosted_mips64 := mips64/msamp_mips64_walk.c mips64/msamp_mips64_capture.c
msamp_semihosting_hosted :=
