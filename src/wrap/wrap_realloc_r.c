/* Wrapper of _realloc_r: link with -Wl,--wrap=_realloc_r. One wrapper per file, so that a static link
 * pulls only the wrappers a program uses and never needs a __real_ function it lacks. */
#include "msamp_wrap.h"

void *__real__realloc_r(void *reent, void *p, size_t size);
void *__wrap__realloc_r(void *reent, void *p, size_t size);

void *__wrap__realloc_r(void *reent, void *old, size_t size)
{
    MSAMP_REFUSE_GIANT(size, NULL);
    int old_sampled = msamp_is_sampled(old);
    void *p;
    MSAMP_NESTED(1, p = __real__realloc_r(reent, old, size)); /* calls _malloc_r, _free_r */
    if (p == NULL && size != 0) {
        msamp_note_fail(size, MSAMP_FRAME(), MSAMP_FAIL_NULL); /* the old block is untouched */
        return p;
    }
    msamp_note_realloc(old, old_sampled, p, size, MSAMP_FRAME());
    return p;
}
