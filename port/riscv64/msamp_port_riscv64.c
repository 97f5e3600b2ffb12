/* The RISC-V 64 bare-metal port: contexts, frame walk, mstatus.MIE lock, rdtime, semihosting
 * trap. */
#include <stdint.h>

#include "msamp_irq_contexts.h"
#include "msamp_port.h"
#include "msamp_riscv64.h"
#include "msamp_semihost.h"

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

/* RISC-V semihosting: the ARM operations behind an ebreak framed by two marker instructions,
 * uncompressed and in one 16-byte aligned block so a debugger (or QEMU) recognises it. */
uintptr_t msamp_semihost_call(uintptr_t op, uintptr_t arg)
{
    register uintptr_t a0 __asm__("a0") = op;
    register uintptr_t a1 __asm__("a1") = arg;
    __asm__ volatile(".option push\n\t.option norvc\n\t.balign 16\n\t"
                     "slli x0, x0, 0x1f\n\tebreak\n\tsrai x0, x0, 7\n\t.option pop"
                     : "+r"(a0)
                     : "r"(a1)
                     : "memory");
    return a0;
}
