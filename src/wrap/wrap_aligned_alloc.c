/* Wrapper of aligned_alloc: link with -Wl,--wrap=aligned_alloc. One wrapper per file, so that a static link
 * pulls only the wrappers a program uses and never needs a __real_ function it lacks. */
#include "msamp_wrap.h"

void *__real_aligned_alloc(size_t align, size_t size);
void *__wrap_aligned_alloc(size_t align, size_t size);

void *__wrap_aligned_alloc(size_t align, size_t size)
{
    MSAMP_REFUSE_GIANT(size, NULL);
    void *p;
    MSAMP_NESTED(1, p = __real_aligned_alloc(align, size));
    msamp_note_alloc(p, size, MSAMP_FRAME());
    return p;
}
