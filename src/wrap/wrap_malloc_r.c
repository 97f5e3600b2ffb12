/* Wrapper of _malloc_r: link with -Wl,--wrap=_malloc_r. One wrapper per file, so that a static link
 * pulls only the wrappers a program uses and never needs a __real_ function it lacks. */
#include "msamp_wrap.h"

void *__real__malloc_r(void *reent, size_t size);
void *__wrap__malloc_r(void *reent, size_t size);

void *__wrap__malloc_r(void *reent, size_t size)
{
    MSAMP_REFUSE_GIANT(size, NULL);
    void *p = __real__malloc_r(reent, size);
    msamp_note_alloc(p, size, MSAMP_FRAME());
    return p;
}
