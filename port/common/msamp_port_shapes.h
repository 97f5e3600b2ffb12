/* What the bare-metal ports share in shape, each filled with its architecture's instructions: the
 * interrupt-mask lock (two kinds), the time from a 64-bit counter register and its rate from a
 * frequency register, and a 32-bit counter
 * extended to 64 bits. Macros where the difference is an asm string (which must be a literal),
 * a static inline function otherwise; each expands to what the port wrote out before. */
#ifndef MSAMP_PORT_SHAPES_H
#define MSAMP_PORT_SHAPES_H

#include <stdint.h>

#include "msamp_port.h"

/* msamp_port_lock/unlock over a status register saved whole: SAVE_MASK reads it into %0 and masks
 * interrupts, RESTORE writes the saved value (%0, of type TYPE) back. */
#define MSAMP_PORT_LOCK_SAVED(TYPE, SAVE_MASK, RESTORE)                                            \
    msamp_port_lock_t msamp_port_lock(void)                                                        \
    {                                                                                              \
        TYPE saved_;                                                                               \
        __asm__ volatile(SAVE_MASK : "=r"(saved_) : : "memory");                                   \
        return saved_;                                                                             \
    }                                                                                              \
    void msamp_port_unlock(msamp_port_lock_t token)                                                \
    {                                                                                              \
        __asm__ volatile(RESTORE : : "r"((TYPE)token) : "memory");                                 \
    }

/* msamp_port_lock/unlock over an interrupt-enable bit: SAVE_MASK reads the flags into %0 and masks
 * interrupts, the token keeps BIT alone, and ENABLE unmasks them again when BIT was set. */
#define MSAMP_PORT_LOCK_BIT(SAVE_MASK, ENABLE, BIT)                                                \
    msamp_port_lock_t msamp_port_lock(void)                                                        \
    {                                                                                              \
        uintptr_t flags_;                                                                          \
        __asm__ volatile(SAVE_MASK : "=r"(flags_) : : "memory");                                   \
        return flags_ & (BIT);                                                                     \
    }                                                                                              \
    void msamp_port_unlock(msamp_port_lock_t token)                                                \
    {                                                                                              \
        if ((token & (BIT)) != 0)                                                                  \
            __asm__ volatile(ENABLE : : : "memory");                                               \
    }

/* msamp_port_time from a free-running 64-bit counter READ puts in %0. */
#define MSAMP_PORT_TIME_COUNTER(READ)                                                              \
    uint64_t msamp_port_time(void)                                                                 \
    {                                                                                              \
        uint64_t t_;                                                                               \
        __asm__ volatile(READ : "=r"(t_) : : "memory");                                            \
        return t_;                                                                                 \
    }

/* msamp_port_time_hz from the counter's frequency register (of type TYPE), which READ puts in %0;
 * 1 when it reads 0 (nobody set it). */
#define MSAMP_PORT_TIME_HZ_REGISTER(TYPE, READ)                                                    \
    uint64_t msamp_port_time_hz(void)                                                              \
    {                                                                                              \
        TYPE hz_;                                                                                  \
        __asm__ volatile(READ : "=r"(hz_));                                                        \
        return hz_ != 0 ? hz_ : 1;                                                                 \
    }

/* A 32-bit counter extended to 64 bits: each read (under the port's lock) counts a wrap since the
 * previous one, so the time stays monotonic as long as something (msamp_poll(), an allocation)
 * reads it at least once per wrap period. */
struct msamp_counter32 {
    uint32_t last, wraps;
};
static inline uint64_t msamp_counter32_extend(struct msamp_counter32 *c, uint32_t now)
{
    if (now < c->last)
        c->wraps++;
    c->last = now;
    return (uint64_t)c->wraps << 32 | now;
}

#endif
