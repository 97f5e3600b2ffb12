/* ARM frame-chain walker: clang's {previous fp, lr} records (r11 in ARM, r7 in Thumb) and gcc's
 * ARM-state records (fp at the saved lr), picked by MSAMP_ARM_FRAME_LAYOUT. */
#include <stdint.h>

#include "msamp_arm.h"

#if MSAMP_ARM_FRAME_LAYOUT == MSAMP_ARM_FRAME_AAPCS
#define LR_AT 4
#define PREV_AT 0
#elif MSAMP_ARM_FRAME_LAYOUT == MSAMP_ARM_FRAME_GCC
#define LR_AT 0
#define PREV_AT (-4)
#elif MSAMP_ARM_FRAME_LAYOUT == MSAMP_ARM_FRAME_APCS
#define LR_AT (-4)
#define PREV_AT (-12)
#else
#error "MSAMP_ARM_FRAME_LAYOUT: unknown layout"
#endif

/* The record spans [fp + LOW, fp + HIGH). */
#define LOW (LR_AT < PREV_AT ? LR_AT : PREV_AT)
#define HIGH ((LR_AT > PREV_AT ? LR_AT : PREV_AT) + 4)

/* The whole record [fp + LOW, fp + HIGH) aligned and inside the stack. */
static int record_ok(uintptr_t fp, const struct msamp_arm_bounds *b)
{
    if ((fp & 3u) != 0 || fp < b->stack_lo || fp > b->stack_hi)
        return 0;
#if LOW < 0
    if (fp - b->stack_lo < (uintptr_t)(0 - LOW))
        return 0;
#endif
#if HIGH > 0
    if (b->stack_hi - fp < (uintptr_t)HIGH)
        return 0;
#endif
    return 1;
}

/* A return address no caller can have: zero, outside the code, or a Cortex-M EXC_RETURN. */
static int bad_pc(uint32_t pc, const struct msamp_arm_bounds *b)
{
    if (pc == 0 || pc >= 0xf0000000u)
        return 1;
    return b->text_hi != 0 && (pc < b->text_lo || pc >= b->text_hi);
}

unsigned msamp_arm_walk_frames(uintptr_t fp, const struct msamp_arm_bounds *b, msamp_frame_fn fn,
                               void *arg)
{
    unsigned n = 0;

    while (n < MSAMP_ARM_WALK_MAX) {
        if (!record_ok(fp, b))
            break;
        uint32_t lr = *(const uint32_t *)(fp + LR_AT);
        uint32_t prev = *(const uint32_t *)(fp + PREV_AT);
        if (bad_pc(lr, b))
            break;
        n++;
        if (fn(arg, lr & ~1u) == 0 || prev <= fp)
            break;
        fp = prev;
    }
    return n;
}
