/* Wrapper of posix_memalign: link with -Wl,--wrap=posix_memalign. One wrapper per file, so that a
 * static link pulls only the wrappers a program uses and never needs a __real_ function it lacks. */
#include "msamp_wrap.h"

int __real_posix_memalign(void **out, size_t align, size_t size);
int __wrap_posix_memalign(void **out, size_t align, size_t size);

/* Tail-called by the wrapper: its frame's caller is the application. */
MSAMP_WRAP_SLOW static int slow(void **out, size_t align, size_t size)
{
    struct msamp_context *c = MSAMP_PORT_CONTEXT();
    uint32_t drawn = msamp_slow_decide(c, size, MSAMP_FRAME());
    if (MSAMP_REFUSED(drawn))
        return MSAMP_ENOMEM;
    int rc;
    MSAMP_NESTED(1, rc = __real_posix_memalign(out, align, size));
    msamp_slow_alloc(c, rc == 0 ? *out : NULL, size, MSAMP_FRAME(), drawn); /* rc: a failure */
    return rc;
}

int __wrap_posix_memalign(void **out, size_t align, size_t size)
{
    if (MSAMP_LIKELY(msamp_charge(MSAMP_PORT_CONTEXT(), size))) {
#if MSAMP_WRAP_TAIL_1
        return __real_posix_memalign(out, align, size);
#else
        int rc;
        MSAMP_NESTED(1, rc = __real_posix_memalign(out, align, size));
        if (MSAMP_UNLIKELY(rc != 0) && size != 0)
            msamp_note_fail(size, MSAMP_FRAME(), MSAMP_FAIL_NULL);
        return rc;
#endif
    }
    return slow(out, align, size);
}
