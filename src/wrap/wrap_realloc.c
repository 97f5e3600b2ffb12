/* Wrapper of realloc: link with -Wl,--wrap=realloc. One wrapper per file, so that a static link
 * pulls only the wrappers a program uses and never needs a __real_ function it lacks. */
#include "msamp_wrap.h"

void *__real_realloc(void *p, size_t size);
void *__wrap_realloc(void *p, size_t size);

void *__wrap_realloc(void *old, size_t size)
{
    MSAMP_REFUSE_GIANT(size, NULL);
    int old_sampled = msamp_is_sampled(old);
    void *p;
    MSAMP_NESTED(1, p = __real_realloc(old, size)); /* newlib's calls _realloc_r */
    if (p == NULL && size != 0) {
        msamp_note_fail(size, MSAMP_FRAME(), MSAMP_FAIL_NULL); /* the old block is untouched */
        return p;
    }
    msamp_note_realloc(old, old_sampled, p, size, MSAMP_FRAME());
    return p;
}
