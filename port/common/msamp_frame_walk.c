/* The bounded frame-chain walker (msamp_frame_walk.h), and msamp_port_walk() over the link's
 * bounds for the bare-metal ports that ask for it. */
#include <stdint.h>

#include "msamp_frame_walk.h"

#if defined(MSAMP_FRAME_RA)
unsigned msamp_frame_walk(uintptr_t fp, const struct msamp_bounds *b, msamp_frame_fn fn, void *arg)
{
    /* fp is acceptable in [lo, lo + span]: its whole record is then inside the stack. Return
     * addresses are acceptable in [text_lo, text_lo + text_span). */
    const uintptr_t rec_size = MSAMP_FRAME_BELOW + MSAMP_FRAME_ABOVE;
    uintptr_t text_lo = b->text_hi != 0 ? b->text_lo : 1;
    uintptr_t text_hi = MSAMP_FRAME_TEXT_END;
    if (b->text_hi != 0 && b->text_hi < text_hi)
        text_hi = b->text_hi;
    unsigned n = 0;

    if (b->stack_hi < b->stack_lo || b->stack_hi - b->stack_lo < rec_size || text_hi <= text_lo)
        return 0;
    uintptr_t lo = b->stack_lo + MSAMP_FRAME_BELOW;
    uintptr_t span = b->stack_hi - b->stack_lo - rec_size;
    uintptr_t text_span = text_hi - text_lo;
    /* The first frame outside the stack: the allocation ran on a stack the bounds leave out. */
    if (fp < b->stack_lo || fp >= b->stack_hi) {
        fn(arg, MSAMP_WALK_OUT_OF_BOUNDS);
        return 0;
    }
    while (n < MSAMP_FRAME_WALK_MAX) {
        if ((fp & (sizeof(uintptr_t) - 1u)) != 0 || fp - lo > span)
            break;
        const uintptr_t *rec = (const uintptr_t *)fp;
        uintptr_t prev = rec[MSAMP_FRAME_PREV];
        uintptr_t ra = rec[MSAMP_FRAME_RA];
        if (ra - text_lo >= text_span)
            break;
        n++;
        /* Frames only get older towards the stack's base: anything else is not a frame chain. */
        if (fn(arg, MSAMP_FRAME_PC(ra)) == 0 || prev <= fp)
            break;
        fp = prev;
    }
    return n;
}

#if MSAMP_FRAME_PORT_WALK
void msamp_port_walk(const void *frame, msamp_frame_fn fn, void *arg)
{
    static const struct msamp_bounds link = MSAMP_LINK_BOUNDS;

    /* The stack below this function's own frame is dead: a frame there is no live caller's (the
     * chain only goes up from the first). */
    if ((uintptr_t)frame < (uintptr_t)__builtin_frame_address(0))
        return;
    msamp_frame_walk((uintptr_t)frame, &link, fn, arg);
}
#endif
#else
typedef int msamp_frame_walk_no_chain; /* the port's code keeps no frame chain */
#endif
