/* RISC-V 32 frame records (gcc and clang) for port/common/msamp_frame_walk.c: fp (s0) is the
 * frame's CFA, the return address at fp - 4, the caller's fp at fp - 8 (RV64's layout in 4-byte
 * words). */
#define MSAMP_FRAME_PREV (-2)
#define MSAMP_FRAME_RA (-1)
