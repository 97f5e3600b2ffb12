/* realloc's bookkeeping for the realloc wrappers and msamp_on_realloc() (msamp_internal.h); a file
 * of its own, so that a static link pulls it with a realloc wrapper without the msamp_on_* hooks. */
#include "msamp_internal.h"

void msamp_note_realloc(void *old, int old_sampled, void *p, size_t size, const void *frame)
{
    if (old == NULL || !old_sampled) {
        msamp_note_alloc(p, size, frame);
        return;
    }
    msamp_realloc_slow(MSAMP_PORT_CONTEXT(), old, p, size, frame);
}
