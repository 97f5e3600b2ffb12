/* The x86-64 bare-metal port: contexts, rbp walk, RFLAGS.IF lock, TSC. */
#include <stdint.h>

#include "msamp_irq_contexts.h"
#include "msamp_port.h"
#include "msamp_x86_64.h"

extern const char __msamp_stack_lo[], __msamp_stack_hi[];
extern const char __msamp_text_lo[] __attribute__((weak));
extern const char __msamp_text_hi[] __attribute__((weak));

void msamp_port_walk(const void *frame, msamp_frame_fn fn, void *arg)
{
    struct msamp_x86_64_bounds b;

    b.stack_lo = (uintptr_t)__msamp_stack_lo;
    b.stack_hi = (uintptr_t)__msamp_stack_hi;
    b.text_lo = (uintptr_t)__msamp_text_lo;
    b.text_hi = (uintptr_t)__msamp_text_hi;
    /* The wrapper's frame lies above this function's: one below is dead stack. */
    if ((uintptr_t)frame < (uintptr_t)__builtin_frame_address(0))
        return;
    msamp_x86_64_walk_frames((uintptr_t)frame, &b, fn, arg);
}

/* Contexts by interrupt nesting: port/common/msamp_irq_contexts.c. */
struct msamp_context *msamp_port_context(void)
{
    return msamp_irq_context();
}

#define RFLAGS_IF 0x200u

msamp_port_lock_t msamp_port_lock(void)
{
    uintptr_t flags;
    __asm__ volatile("pushfq\n\tpopq %0\n\tcli" : "=r"(flags) : : "memory");
    return flags & RFLAGS_IF;
}

void msamp_port_unlock(msamp_port_lock_t token)
{
    if ((token & RFLAGS_IF) != 0)
        __asm__ volatile("sti" : : : "memory");
}

uint64_t msamp_port_time(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
    return (uint64_t)hi << 32 | lo;
}

static uint64_t tsc_hz = MSAMP_X86_64_TSC_HZ;

void msamp_x86_64_set_tsc_hz(uint64_t hz)
{
    if (hz != 0)
        tsc_hz = hz;
}

uint64_t msamp_port_time_hz(void)
{
    return tsc_hz;
}
