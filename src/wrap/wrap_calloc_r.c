/* Wrapper of _calloc_r: link with -Wl,--wrap=_calloc_r. One wrapper per file, so that a static link
 * pulls only the wrappers a program uses and never needs a __real_ function it lacks. */
#include "msamp_wrap.h"

void *__real__calloc_r(void *reent, size_t n, size_t size);
void *__wrap__calloc_r(void *reent, size_t n, size_t size);

/* Tail-called by the wrapper: its frame's caller is the application. */
MSAMP_WRAP_SLOW static void *slow(void *reent, size_t n, size_t size)
{
    struct msamp_context *c = MSAMP_PORT_CONTEXT();
    size_t total = msamp_calloc_total(n, size);
    uint32_t drawn = msamp_slow_decide(c, total, MSAMP_FRAME());
    if (MSAMP_REFUSED(drawn))
        return NULL;
    void *p;
    MSAMP_NESTED(1, p = __real__calloc_r(reent, n, size)); /* newlib's calls _malloc_r */
    msamp_slow_alloc(c, p, total, MSAMP_FRAME(), drawn);
    return p;
}

void *__wrap__calloc_r(void *reent, size_t n, size_t size)
{
    /* The product as it wraps: see wrap_calloc.c. */
    if (MSAMP_LIKELY(msamp_charge(MSAMP_PORT_CONTEXT(), n * size))) {
#if MSAMP_WRAP_TAIL_1
        return __real__calloc_r(reent, n, size);
#else
        MSAMP_PASS_CHECKED(1, __real__calloc_r(reent, n, size), msamp_calloc_total(n, size));
#endif
    }
    return slow(reent, n, size);
}
