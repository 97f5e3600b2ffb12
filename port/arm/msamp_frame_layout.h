/* ARM frame records for port/common/msamp_frame_walk.c, by MSAMP_ARM_FRAME_LAYOUT (msamp_arm.h),
 * and the two facts of the architecture the walk needs. */
#include "msamp_arm.h"

#if MSAMP_ARM_FRAME_LAYOUT == MSAMP_ARM_FRAME_AAPCS
#define MSAMP_FRAME_PREV 0
#define MSAMP_FRAME_RA 1
#elif MSAMP_ARM_FRAME_LAYOUT == MSAMP_ARM_FRAME_GCC
#define MSAMP_FRAME_PREV (-1)
#define MSAMP_FRAME_RA 0
#elif MSAMP_ARM_FRAME_LAYOUT == MSAMP_ARM_FRAME_APCS
#define MSAMP_FRAME_PREV (-3)
#define MSAMP_FRAME_RA (-1)
#else
#error "MSAMP_ARM_FRAME_LAYOUT: unknown layout"
#endif

/* Thumb code's return addresses carry the Thumb bit: the pc is the address without it. */
#define MSAMP_FRAME_PC(ra) ((ra) & ~(uintptr_t)1)
/* Cortex-M's EXC_RETURN values (0xFxxxxxxx, in lr in a handler) are no code address. */
#define MSAMP_FRAME_TEXT_END 0xf0000000u
/* msamp_port_walk() is the frame walk only when the frame unwinder is chosen (else exidx). */
#define MSAMP_FRAME_PORT_WALK (MSAMP_ARM_UNWINDER == MSAMP_ARM_UNWIND_FRAME)
/* One cap for both unwinders. */
#ifndef MSAMP_FRAME_WALK_MAX
#define MSAMP_FRAME_WALK_MAX MSAMP_ARM_WALK_MAX
#endif
