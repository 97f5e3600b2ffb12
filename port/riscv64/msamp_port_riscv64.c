/* The RISC-V 64 bare-metal port: contexts, frame walk, mstatus.MIE lock, rdtime. */
#include <stdint.h>

#include "msamp_irq_contexts.h"
#include "msamp_port.h"
#include "msamp_riscv64.h"

extern const char __msamp_stack_lo[], __msamp_stack_hi[];
extern const char __msamp_text_lo[] __attribute__((weak));
extern const char __msamp_text_hi[] __attribute__((weak));

void msamp_port_walk(const void *frame, msamp_frame_fn fn, void *arg)
{
    struct msamp_riscv64_bounds b;

    b.stack_lo = (uintptr_t)__msamp_stack_lo;
    b.stack_hi = (uintptr_t)__msamp_stack_hi;
    b.text_lo = (uintptr_t)__msamp_text_lo;
    b.text_hi = (uintptr_t)__msamp_text_hi;
    /* The wrapper's frame lies above this function's: one below is dead stack. */
    if ((uintptr_t)frame < (uintptr_t)__builtin_frame_address(0))
        return;
    msamp_riscv64_walk_frames((uintptr_t)frame, &b, fn, arg);
}

/* Contexts by trap nesting: port/common/msamp_irq_contexts.c. */
struct msamp_context *msamp_port_context(void)
{
    return msamp_irq_context();
}

#define MSTATUS_MIE 0x8u

msamp_port_lock_t msamp_port_lock(void)
{
    uintptr_t old;
    __asm__ volatile("csrrci %0, mstatus, 8" : "=r"(old) : : "memory");
    return old & MSTATUS_MIE;
}

void msamp_port_unlock(msamp_port_lock_t token)
{
    if ((token & MSTATUS_MIE) != 0)
        __asm__ volatile("csrsi mstatus, 8" : : : "memory");
}

uint64_t msamp_port_time(void)
{
    uint64_t t;
    __asm__ volatile("rdtime %0" : "=r"(t) : : "memory");
    return t;
}

uint64_t msamp_port_time_hz(void)
{
    return MSAMP_RISCV64_TIME_HZ;
}
