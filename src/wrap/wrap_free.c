/* Wrapper of free: link with -Wl,--wrap=free. One wrapper per file, so that a static link
 * pulls only the wrappers a program uses and never needs a __real_ function it lacks. */
#include "msamp_wrap.h"

void __real_free(void *p);
void __wrap_free(void *p);

void __wrap_free(void *p)
{
    msamp_note_free(p);
    __real_free(p);
}
