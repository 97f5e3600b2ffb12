/* Wrapper of _memalign_r (newlib): link with -Wl,--wrap=_memalign_r. One wrapper per file, so that a
 * static link pulls only the wrappers a program uses and never needs a __real_ function it lacks.
 * newlib's _memalign_r asks _malloc_r for more than the caller did and gives back the slack with
 * _free_r: guarded, so the block counts once, at the size asked. */
#include "msamp_wrap.h"

void *__real__memalign_r(void *reent, size_t align, size_t size);
void *__wrap__memalign_r(void *reent, size_t align, size_t size);

void *__wrap__memalign_r(void *reent, size_t align, size_t size)
{
    MSAMP_REFUSE_GIANT(size, NULL);
    void *p;
    MSAMP_NESTED(1, p = __real__memalign_r(reent, align, size));
    msamp_note_alloc(p, size, MSAMP_FRAME());
    return p;
}
