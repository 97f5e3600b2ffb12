/* The AArch64 bare-metal port: contexts, frame walker, DAIF lock, generic timer. The build-id
 * comes from port/common/msamp_build_id.c. */
#include <stdint.h>

#include "msamp_aarch64.h"
#include "msamp_irq_contexts.h"
#include "msamp_port.h"

extern const char __msamp_stack_lo[], __msamp_stack_hi[];

/* Contexts by IRQ nesting: port/common/msamp_irq_contexts.c. */
struct msamp_context *msamp_port_context(void)
{
    return msamp_irq_context();
}

void msamp_port_walk(const void *frame, msamp_frame_fn fn, void *arg)
{
    const uintptr_t hi = (uintptr_t)__msamp_stack_hi;
    uintptr_t lo = (uintptr_t)__msamp_stack_lo;
    uintptr_t fp = (uintptr_t)frame;
    /* Below this function's own frame record the stack is dead (a caller that tail-called the
     * walker passes a frame that no longer exists): only live frames above it are read. */
    uintptr_t own = (uintptr_t)__builtin_frame_address(0);
    if (own >= lo && own < hi)
        lo = own + 16;

    for (unsigned n = 0; n < MSAMP_AARCH64_WALK_MAX; n++) {
        /* The record {fp[0] = caller's x29, fp[1] = return address} must lie inside the stack. */
        if ((fp & 7u) != 0 || fp < lo || hi < 16 || fp > hi - 16)
            return;
        const uintptr_t *rec = (const uintptr_t *)fp;
        uintptr_t next = rec[0];
        uintptr_t pc = rec[1];
        if (pc == 0 || fn(arg, pc) == 0)
            return;
        if (next <= fp)
            return;
        fp = next;
    }
}

msamp_port_lock_t msamp_port_lock(void)
{
    uintptr_t daif;
    __asm__ volatile("mrs %0, daif\n\tmsr daifset, #3" : "=r"(daif) : : "memory");
    return daif;
}

void msamp_port_unlock(msamp_port_lock_t token)
{
    __asm__ volatile("msr daif, %0" : : "r"(token) : "memory");
}

uint64_t msamp_port_time(void)
{
    uint64_t t;
    __asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(t) : : "memory");
    return t;
}

uint64_t msamp_port_time_hz(void)
{
    uint64_t hz;
    __asm__ volatile("mrs %0, cntfrq_el0" : "=r"(hz));
    return hz != 0 ? hz : 1;
}
