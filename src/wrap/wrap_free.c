/* Wrapper of free: link with -Wl,--wrap=free. One wrapper per file, so that a static link
 * pulls only the wrappers a program uses and never needs a __real_ function it lacks. */
#include "msamp_wrap.h"

void __real_free(void *p);
void __wrap_free(void *p);

/* A block the probe says may be sampled: its bookkeeping before the real free, since once freed
 * the address can come back from another thread's malloc. */
MSAMP_NOINLINE static void slow(void *p)
{
    msamp_free_slow(MSAMP_PORT_CONTEXT(), p);
    __real_free(p);
}

void __wrap_free(void *p)
{
    if (MSAMP_UNLIKELY(msamp_live_maybe((uintptr_t)p))) {
        slow(p);
        return;
    }
    __real_free(p);
}
