/* Wrapper of memalign: link with -Wl,--wrap=memalign. One wrapper per file, so that a static link
 * pulls only the wrappers a program uses and never needs a __real_ function it lacks. */
#include "msamp_wrap.h"

void *__real_memalign(size_t align, size_t size);
void *__wrap_memalign(size_t align, size_t size);

/* Tail-called by the wrapper: its frame's caller is the application. */
MSAMP_WRAP_SLOW static void *slow(size_t align, size_t size)
{
    struct msamp_context *c = MSAMP_PORT_CONTEXT();
    uint32_t drawn = msamp_slow_decide(c, size, MSAMP_FRAME());
    if (MSAMP_REFUSED(drawn))
        return NULL;
    void *p;
    MSAMP_NESTED(1, p = __real_memalign(align, size));
    msamp_slow_alloc(c, p, size, MSAMP_FRAME(), drawn);
    return p;
}

void *__wrap_memalign(size_t align, size_t size)
{
    if (MSAMP_LIKELY(msamp_charge(MSAMP_PORT_CONTEXT(), size))) {
#if MSAMP_WRAP_TAIL_1
        return __real_memalign(align, size);
#else
        MSAMP_PASS_CHECKED(1, __real_memalign(align, size), size);
#endif
    }
    return slow(align, size);
}
