/* x86-64 frame records for port/common/msamp_frame_walk.c: rbp -> {previous rbp, return address}. */
#define MSAMP_FRAME_PREV 0
#define MSAMP_FRAME_RA 1
