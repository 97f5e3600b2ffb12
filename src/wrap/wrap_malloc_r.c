/* Wrapper of _malloc_r: link with -Wl,--wrap=_malloc_r. One wrapper per file, so that a static link
 * pulls only the wrappers a program uses and never needs a __real_ function it lacks. */
#include "msamp_wrap.h"

void *__real__malloc_r(void *reent, size_t size);
void *__wrap__malloc_r(void *reent, size_t size);

/* Tail-called by the wrapper: its frame's caller is the application. */
MSAMP_WRAP_SLOW static void *slow(void *reent, size_t size)
{
    struct msamp_context *c = MSAMP_PORT_CONTEXT();
    uint32_t drawn = msamp_slow_decide(c, size, MSAMP_FRAME());
    if (MSAMP_REFUSED(drawn))
        return NULL;
    void *p = __real__malloc_r(reent, size);
    msamp_slow_alloc(c, p, size, MSAMP_FRAME(), drawn);
    return p;
}

void *__wrap__malloc_r(void *reent, size_t size)
{
    if (MSAMP_LIKELY(msamp_charge(MSAMP_PORT_CONTEXT(), size))) {
#if MSAMP_FAST_TAIL
        return __real__malloc_r(reent, size);
#else
        /* level 3: never guarded (the innermost allocator function) */
        MSAMP_PASS_CHECKED(3, __real__malloc_r(reent, size), size);
#endif
    }
    return slow(reent, size);
}
