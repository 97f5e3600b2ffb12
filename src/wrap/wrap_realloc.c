/* Wrapper of realloc: link with -Wl,--wrap=realloc. One wrapper per file, so that a static link
 * pulls only the wrappers a program uses and never needs a __real_ function it lacks. */
#include "msamp_wrap.h"

void *__real_realloc(void *p, size_t size);
void *__wrap_realloc(void *p, size_t size);

/* Tail-called by the wrapper: its frame's caller is the application. */
MSAMP_WRAP_SLOW static void *slow(void *old, size_t size)
{
    struct msamp_context *c = MSAMP_PORT_CONTEXT();
    uint32_t drawn = msamp_slow_decide(c, size, MSAMP_FRAME());
    if (MSAMP_REFUSED(drawn))
        return NULL;
    int32_t old_slot = msamp_realloc_detach(c, old);
    void *p;
    MSAMP_NESTED(1, p = __real_realloc(old, size)); /* newlib's calls _realloc_r */
    msamp_slow_realloc(c, old, old_slot, p, size, MSAMP_FRAME(), drawn);
    return p;
}

void *__wrap_realloc(void *old, size_t size)
{
    /* The common case inline: an unsampled block (the free probe) and no sample due. */
    if (MSAMP_LIKELY(!msamp_live_maybe((uintptr_t)old) &&
                     msamp_charge(MSAMP_PORT_CONTEXT(), size))) {
#if MSAMP_WRAP_TAIL_1
        return __real_realloc(old, size);
#else
        MSAMP_PASS_CHECKED(1, __real_realloc(old, size), size); /* a NULL leaves old as it was */
#endif
    }
    return slow(old, size);
}
