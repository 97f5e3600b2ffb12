/* Wrapper of _free_r: link with -Wl,--wrap=_free_r. One wrapper per file, so that a static link
 * pulls only the wrappers a program uses and never needs a __real_ function it lacks. */
#include "msamp_wrap.h"

void __real__free_r(void *reent, void *p);
void __wrap__free_r(void *reent, void *p);

/* See wrap_free.c. */
MSAMP_NOINLINE static void slow(void *reent, void *p)
{
    msamp_free_slow(MSAMP_PORT_CONTEXT(), p);
    __real__free_r(reent, p);
}

void __wrap__free_r(void *reent, void *p)
{
    if (MSAMP_UNLIKELY(msamp_live_maybe((uintptr_t)p))) {
        slow(reent, p);
        return;
    }
    __real__free_r(reent, p);
}
