/* realloc's bookkeeping for msamp_on_realloc() (msamp_internal.h), after the real realloc; the
 * realloc wrappers have their own two halves (msamp_realloc_detach, msamp_slow_realloc). */
#include "msamp_internal.h"
#include "wrap/msamp_fast.h"

void msamp_note_realloc(void *old, int old_sampled, void *p, size_t size, const void *frame)
{
    if (old == NULL || !old_sampled) {
        msamp_note_alloc(p, size, frame);
        return;
    }
    msamp_realloc_slow(MSAMP_PORT_CONTEXT(), old, p, size, frame);
}
