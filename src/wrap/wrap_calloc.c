/* Wrapper of calloc: link with -Wl,--wrap=calloc. One wrapper per file, so that a static link
 * pulls only the wrappers a program uses and never needs a __real_ function it lacks. */
#include "msamp_wrap.h"

void *__real_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size);

void *__wrap_calloc(size_t n, size_t size)
{
    size_t total;
    if (__builtin_mul_overflow(n, size, &total))
        return __real_calloc(n, size); /* the allocator reports the overflow its own way */
    MSAMP_REFUSE_GIANT(total, NULL);
    void *p = __real_calloc(n, size);
    msamp_note_alloc(p, total, MSAMP_FRAME());
    return p;
}
