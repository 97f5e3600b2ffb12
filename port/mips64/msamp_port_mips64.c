/* The MIPS64 bare-metal port: contexts, prologue-scanning walk, Status.IE lock, CP0 Count. */
#include <stdint.h>

#include "msamp_mips64.h"
#include "msamp_port.h"
#include "msamp_port_shapes.h"

extern const char __msamp_stack_lo[], __msamp_stack_hi[];
extern const char __msamp_text_lo[], __msamp_text_hi[];

/* The walk starts from this function's own state: MIPS frames do not record where their caller's
 * frame is, so the wrapper's frame address only marks where reporting starts. */
void msamp_port_walk(const void *frame, msamp_frame_fn fn, void *arg)
{
    /* A static constant, read in place: no copy on the stack. */
    static const struct msamp_mips64_bounds link = {(uintptr_t)__msamp_stack_lo,
                                                    (uintptr_t)__msamp_stack_hi,
                                                    (uintptr_t)__msamp_text_lo,
                                                    (uintptr_t)__msamp_text_hi};
    struct msamp_mips64_regs regs;

    msamp_mips64_capture(&regs);
    msamp_mips64_walk(&regs, (uintptr_t)frame, &link, fn, arg);
}

#define ST_IE 0x1u
#define ST_EXL 0x2u
#define ST_ERL 0x4u

static uint32_t status(void)
{
    uint32_t s;
    __asm__ volatile("mfc0 %0, $12" : "=r"(s));
    return s;
}

static struct msamp_context contexts[2];

struct msamp_context *msamp_port_context(void)
{
    return &contexts[(status() & (ST_EXL | ST_ERL)) != 0];
}

msamp_port_lock_t msamp_port_lock(void)
{
    uint32_t s;
#if defined(__mips_isa_rev) && __mips_isa_rev >= 2
    __asm__ volatile("di %0\n\tehb" : "=r"(s) : : "memory");
#else
    uint32_t t;
    __asm__ volatile(".set push\n\t.set noreorder\n\t"
                     "mfc0 %0, $12\n\tori %1, %0, 1\n\txori %1, %1, 1\n\tmtc0 %1, $12\n\t"
                     "ssnop\n\tssnop\n\tssnop\n\t.set pop"
                     : "=&r"(s), "=&r"(t)
                     :
                     : "memory");
#endif
    return s & ST_IE;
}

void msamp_port_unlock(msamp_port_lock_t token)
{
    if ((token & ST_IE) == 0)
        return;
#if defined(__mips_isa_rev) && __mips_isa_rev >= 2
    __asm__ volatile("ei\n\tehb" : : : "memory");
#else
    uint32_t t;
    __asm__ volatile("mfc0 %0, $12\n\tori %0, %0, 1\n\tmtc0 %0, $12" : "=&r"(t) : : "memory");
#endif
}

/* Count is 32 bits (43 s at 100 MHz): extended here, so a wrap between two calls is seen as long
 * as msamp_poll() or an allocation reads the time at least once per wrap period. */
static struct msamp_counter32 count;

uint64_t msamp_port_time(void)
{
    msamp_port_lock_t key = msamp_port_lock();
    uint32_t c;
    __asm__ volatile("mfc0 %0, $9" : "=r"(c));
    uint64_t t = msamp_counter32_extend(&count, c);
    msamp_port_unlock(key);
    return t;
}

uint64_t msamp_port_time_hz(void)
{
    return MSAMP_MIPS64_COUNT_HZ;
}
