/* Wrapper of calloc: link with -Wl,--wrap=calloc. One wrapper per file, so that a static link
 * pulls only the wrappers a program uses and never needs a __real_ function it lacks. */
#include "msamp_wrap.h"

void *__real_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size);

/* Tail-called by the wrapper: its frame's caller is the application. An overflowing product is
 * reported as SIZE_MAX bytes. */
MSAMP_WRAP_SLOW static void *slow(size_t n, size_t size)
{
    struct msamp_context *c = MSAMP_PORT_CONTEXT();
    size_t total = msamp_calloc_total(n, size);
    uint32_t drawn = msamp_slow_decide(c, total, MSAMP_FRAME());
    if (MSAMP_REFUSED(drawn))
        return NULL;
    void *p;
    MSAMP_NESTED(1, p = __real_calloc(n, size));
    msamp_slow_alloc(c, p, total, MSAMP_FRAME(), drawn);
    return p;
}

void *__wrap_calloc(size_t n, size_t size)
{
    /* The fast path charges the product as it wraps: one that overflows is one the allocator
     * fails, and costs the countdown no more than a small request. */
    if (MSAMP_LIKELY(msamp_charge(MSAMP_PORT_CONTEXT(), n * size))) {
#if MSAMP_WRAP_TAIL_1
        return __real_calloc(n, size);
#else
        MSAMP_PASS_CHECKED(1, __real_calloc(n, size), msamp_calloc_total(n, size));
#endif
    }
    return slow(n, size);
}
