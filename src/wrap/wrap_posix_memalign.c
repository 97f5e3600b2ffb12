/* Wrapper of posix_memalign: link with -Wl,--wrap=posix_memalign. One wrapper per file, so that a static link
 * pulls only the wrappers a program uses and never needs a __real_ function it lacks. */
#include "msamp_wrap.h"

int __real_posix_memalign(void **out, size_t align, size_t size);
int __wrap_posix_memalign(void **out, size_t align, size_t size);

int __wrap_posix_memalign(void **out, size_t align, size_t size)
{
    MSAMP_REFUSE_GIANT(size, MSAMP_ENOMEM);
    int rc;
    MSAMP_NESTED(1, rc = __real_posix_memalign(out, align, size));
    if (rc == 0)
        msamp_note_alloc(*out, size, MSAMP_FRAME());
    else if (size != 0)
        msamp_note_fail(size, MSAMP_FRAME(), MSAMP_FAIL_NULL);
    return rc;
}
