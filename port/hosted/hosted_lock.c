/* The core's lock: a spinlock that yields the CPU when the holder is slow (preempted). */
#include <sched.h>
#include <stdatomic.h>

#include "hosted.h"

static atomic_flag core_lock = ATOMIC_FLAG_INIT;

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* A signal handler that allocates on a thread already inside the core never gets here: the core's
 * per-thread reentrancy guard turns it away first. */
msamp_port_lock_t msamp_port_lock(void)
{
    unsigned spins = 0;

    while (atomic_flag_test_and_set_explicit(&core_lock, memory_order_acquire)) {
        if (++spins < 100) {
            cpu_relax();
        } else {
            spins = 0;
            sched_yield();
        }
    }
    return 0;
}

void msamp_port_unlock(msamp_port_lock_t token)
{
    (void)token;
    atomic_flag_clear_explicit(&core_lock, memory_order_release);
}
