/* AArch64 frame records for port/common/msamp_frame_walk.c: x29 -> {previous x29, x30}. */
#define MSAMP_FRAME_PREV 0
#define MSAMP_FRAME_RA 1
