/* Frame records of hosted Linux code for port/common/msamp_frame_walk.c, by architecture
 * (docs/HOSTED.md). The hosted port walks with the thread's own stack bounds (hosted_walk.c). */
#if defined(__x86_64__) || defined(__aarch64__) || (defined(__arm__) && defined(__clang__))
/* rbp / x29 / clang's r11 (ARM) or r7 (Thumb): {previous fp, return address} at fp. */
#define MSAMP_FRAME_PREV 0
#define MSAMP_FRAME_RA 1
#elif defined(__riscv)
/* fp is the CFA: ra at fp - 8, previous fp at fp - 16. */
#define MSAMP_FRAME_PREV (-2)
#define MSAMP_FRAME_RA (-1)
#elif defined(__arm__) && !defined(__thumb__)
/* gcc ARM state: fp points at the saved lr, the previous fp is the word below. */
#define MSAMP_FRAME_PREV (-1)
#define MSAMP_FRAME_RA 0
#endif
/* Otherwise no frame chain (mips64 gcc keeps none: hosted_walk.c uses port/mips64's prologue
 * scanner; gcc Thumb-2 neither). */

#if defined(__arm__)
#define MSAMP_FRAME_PC(ra) ((ra) & ~(uintptr_t)1) /* the Thumb bit */
#endif
#define MSAMP_FRAME_PORT_WALK 0
/* A hard cap besides the caller's: a walk ends even if fn never says stop. */
#define MSAMP_FRAME_WALK_MAX 1024
