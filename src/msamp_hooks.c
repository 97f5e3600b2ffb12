/* Hooks for allocators other than malloc (msamp.h): the same fast paths as the wrappers; and
 * msamp_unseen (msamp_port.h), a port's own call that allocates, guarded as a wrapper's is. An
 * archive member linked only by programs that call them. */
#include "msamp_internal.h"
#include "wrap/msamp_fast.h"

void msamp_on_alloc(void *p, size_t size)
{
    msamp_note_alloc(p, size, __builtin_frame_address(0));
}

void msamp_on_alloc_from(void *p, size_t size, const void *frame)
{
    msamp_note_alloc(p, size, frame);
}

void msamp_on_free(void *p)
{
    msamp_note_free(p);
}

void msamp_on_realloc(void *old, void *p, size_t size)
{
    if (p == NULL && size != 0) {
        msamp_note_fail(size, __builtin_frame_address(0), MSAMP_FAIL_NULL); /* old is untouched */
        return;
    }
    /* Called after the fact: old's slot, if any, still names it unless another context was
     * handed the same address in between (then that context's block is taken for it). */
    msamp_note_realloc(old, msamp_is_sampled(old), p, size, __builtin_frame_address(0));
}

/* msamp_port.h. The nesting guard starts only from an idle context: the context's own mark (the
 * core's, or an outer guard's) is lifted for it and put back after. */
void msamp_unseen(void (*fn)(void *arg), void *arg)
{
    struct msamp_context *c = MSAMP_PORT_CONTEXT();
    uint8_t busy = c->busy;
    struct msamp_nest nest;
    c->busy = 0;
    msamp_nest_begin(&nest);
    fn(arg);
    msamp_nest_end(&nest);
    c->busy = busy;
}
