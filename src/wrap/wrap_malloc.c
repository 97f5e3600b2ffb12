/* Wrapper of malloc: link with -Wl,--wrap=malloc. One wrapper per file, so that a static link
 * pulls only the wrappers a program uses and never needs a __real_ function it lacks. */
#include "msamp_wrap.h"

void *__real_malloc(size_t size);
void *__wrap_malloc(size_t size);

void *__wrap_malloc(size_t size)
{
    MSAMP_REFUSE_GIANT(size, NULL);
    void *p;
    MSAMP_NESTED(2, p = __real_malloc(size)); /* newlib's calls _malloc_r */
    msamp_note_alloc(p, size, MSAMP_FRAME());
    return p;
}
