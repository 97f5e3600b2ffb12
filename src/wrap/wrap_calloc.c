/* Wrapper of calloc: link with -Wl,--wrap=calloc. One wrapper per file, so that a static link
 * pulls only the wrappers a program uses and never needs a __real_ function it lacks. */
#include "msamp_wrap.h"

void *__real_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size);

void *__wrap_calloc(size_t n, size_t size)
{
    size_t total;
    if (__builtin_mul_overflow(n, size, &total))
        total = SIZE_MAX; /* the allocator fails it its own way; reported as SIZE_MAX bytes */
    MSAMP_REFUSE_GIANT(total, NULL);
    void *p;
    MSAMP_NESTED(1, p = __real_calloc(n, size));
    msamp_note_alloc(p, total, MSAMP_FRAME());
    return p;
}
