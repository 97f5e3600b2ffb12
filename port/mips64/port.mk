# The MIPS64 port's sources, relative to port/: the one list port/msamp.mk (firmware projects,
# boards), port/msamp.cmake (through msamp.mk) and the tests build.
msamp_port_mips64 := mips64/msamp_port_mips64.c mips64/msamp_mips64_walk.c mips64/msamp_mips64_capture.c \
	common/msamp_build_id.c
# Semihosting (the board console, the semihosting transport): MIPS UHI.
msamp_semihosting_mips64 := semihosting/uhi.c
