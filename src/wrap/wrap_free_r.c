/* Wrapper of _free_r: link with -Wl,--wrap=_free_r. One wrapper per file, so that a static link
 * pulls only the wrappers a program uses and never needs a __real_ function it lacks. */
#include "msamp_wrap.h"

void __real__free_r(void *reent, void *p);
void __wrap__free_r(void *reent, void *p);

void __wrap__free_r(void *reent, void *p)
{
    msamp_note_free(p);
    __real__free_r(reent, p);
}
