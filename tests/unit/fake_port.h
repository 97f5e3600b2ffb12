/* A port for host unit tests: every input of the core under the test's control. */
#ifndef MSAMP_FAKE_PORT_H
#define MSAMP_FAKE_PORT_H

#include <stddef.h>
#include <stdint.h>

#include "msamp_port.h"

extern uint64_t fake_time;           /* msamp_port_time() */
extern uint64_t fake_hz;             /* msamp_port_time_hz() */
extern uintptr_t fake_stack[300];    /* what msamp_port_walk() reports */
extern unsigned fake_depth;
extern unsigned fake_ctx;            /* which of 4 contexts is "running" (0 thread, 1 IRQ...) */
extern struct msamp_context fake_contexts[4];
extern int fake_lock_depth;          /* must be 0 or 1; fake_lock_errors counts violations */
extern int fake_lock_errors;
extern int fake_transport_stalled;   /* 1: the transport takes nothing */
extern size_t fake_transport_max;    /* most bytes taken per write (0: no limit) */
extern long fake_transport_credit;   /* bytes the link takes before the test adds more (-1: any) */
extern uint8_t fake_out[1 << 22];    /* bytes taken by the transport */
extern size_t fake_out_len;
extern const uint8_t *fake_build_id;
extern size_t fake_build_id_len;
extern const char *fake_device_id; /* msamp_port_device_id()'s (NULL: none) */
extern int fake_fail;                /* 1: the "real" allocator fails every request */
extern int fake_nested;              /* 1: its calloc and realloc call the wrapped malloc, free */
/* Set: realloc moves every block, and calls this once the old block is freed, before it returns
 * (what an interrupt or another task may do there). */
extern void (*fake_realloc_between)(void *freed);

#endif
