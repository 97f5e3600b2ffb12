/* Shared state of the hosted Linux port's files. Not part of the public API. */
#ifndef MSAMP_HOSTED_H
#define MSAMP_HOSTED_H

#include <stdint.h>

#include "msamp_port.h"

/* Everything the port keeps per thread, in one initial-exec TLS block (no allocation, no lazy
 * TLS setup on the allocation path). */
struct msamp_hosted_thread {
    uintptr_t stack_lo, stack_hi; /* the thread's stack, for the walker's bounds */
    uint8_t exit_armed;           /* the pthread key destructor will detach ctx */
    uint8_t bounds;               /* enum msamp_hosted_bounds */
};

enum msamp_hosted_bounds { MSAMP_HOSTED_BOUNDS_UNKNOWN, MSAMP_HOSTED_BOUNDS_OK, MSAMP_HOSTED_BOUNDS_NONE };

extern _Thread_local struct msamp_hosted_thread msamp_hosted_self
    __attribute__((tls_model("initial-exec")));

/* Finds the calling thread's stack (pthread_getattr_np, which allocates: call it where a nested
 * allocation is harmless, i.e. inside the core's reentrancy guard or before msamp_init). */
void msamp_hosted_stack_bounds(struct msamp_hosted_thread *t);

/* The executable's code, [lo, hi): set by the first msamp_hosted_maps_refresh() and never moved
 * (0 when unknown). The MIPS64 prologue scanner reads instructions only there. */
extern uintptr_t msamp_hosted_text_lo, msamp_hosted_text_hi;

/* Re-reads the loaded images (dl_iterate_phdr) into the table msamp_port_mappings() returns.
 * Called before msamp_init() and by the single poller between polls, never under the core's lock
 * (dl_iterate_phdr takes the loader's lock, which a thread in dlopen holds while it allocates). */
void msamp_hosted_maps_refresh(void);

#endif
