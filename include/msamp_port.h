/*
 * The port contract: what an architecture port, a transport and a board supply to the msamp core.
 * Required functions are plain prototypes (a missing one fails at link time); optional ones have
 * weak defaults in the core. port/template/ holds a stub of each, to copy and fill in.
 *
 * Who calls what, from where:
 *   msamp_port_context, msamp_port_walk, msamp_port_lock/unlock: from the allocation path, in any
 *     context that allocates (thread, interrupt). They must not allocate and must not block for
 *     long: lock/unlock bracket a few hundred instructions.
 *   msamp_port_time: from the allocation path and from msamp_poll().
 *   msamp_transport_write: only from msamp_poll()/msamp_flush(), never from the allocation path.
 */
#ifndef MSAMP_PORT_H
#define MSAMP_PORT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "msamp_config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when an RTOS layer (port/rtos/, docs/FREERTOS.md) supplies msamp_port_context(),
 * msamp_port_lock/unlock() and msamp_port_time/time_hz(): the architecture's port then supplies
 * only the walk and the build-id (port/arm does this for Cortex-M). */
#ifndef MSAMP_PORT_RTOS
#define MSAMP_PORT_RTOS 0
#endif

/* Sampler state of one context (a thread, or an interrupt level on bare metal). The port owns the
 * storage (a per-thread variable, or one per interrupt level) and zero-initialises it; the core
 * owns the fields. A zero context is valid: its first allocation takes the slow path, which
 * registers it and draws its first gap. */
struct msamp_context {
    _Atomic uintptr_t countdown; /* bytes until the next sample (or until the next check while
                                    disabled); other contexts may store 0 to force a re-check */
    uint32_t interval;           /* the interval both gaps (countdown's, next) were drawn at */
    uint64_t rng;                /* random state */
    uint32_t index;              /* 1 + position in the core's context registry, 0 if none */
    uint32_t gen;                /* the core's configuration generation this context follows */
    uint32_t reentrant;          /* allocations skipped because busy was set */
    uint8_t busy;                /* set while the core runs in this context (reentrancy guard) */
    uint16_t task;               /* the RTOS task (or interrupt context) it samples for, 1..65535,
                                    set by an RTOS layer before its first allocation; 0: none (no
                                    SAMPLE_TASK records, bare metal); read only in builds
                                    with MSAMP_PORT_RTOS or MSAMP_CFG_TASK_BUDGETS */
#if MSAMP_FAST_CLAMPED
    uintptr_t reserve; /* the gap's bytes beyond countdown, which stays at most MSAMP_FAST_MAX */
#endif
#if !MSAMP_CFG_TINY
    uintptr_t next; /* the gap after the countdown's, drawn ahead (msamp_decide); last, so that
                       the wrappers' offsets of the fields above stay small. Not in the tiny
                       profile (its 1 KiB of RAM): there the gap is drawn at the sample */
#endif
};

/* The context of the caller. Must be cheap: it runs on every allocation. Never NULL. A port
 * whose lookup is a variable (a thread-local one when hosted) may also define
 * MSAMP_PORT_CONTEXT() in its configuration file (MSAMP_CONFIG_FILE) to make it inline. */
struct msamp_context *msamp_port_context(void);
#ifndef MSAMP_PORT_CONTEXT
#define MSAMP_PORT_CONTEXT() msamp_port_context()
#endif

/* Called with each return address found, innermost first; return nonzero to go on, 0 to stop. */
typedef int (*msamp_frame_fn)(void *arg, uintptr_t pc);

/* Walk the call stack above `frame`, the value __builtin_frame_address(0) had in a msamp wrapper:
 * the first pc reported is the return address into the wrapper's caller, then its caller's, and so
 * on. Every load is checked before it is made (aligned, inside the current stack, strictly
 * increasing towards the stack base, depth capped by the caller's fn); the walk stops quietly at
 * anything it cannot prove, and never faults. One exception, chosen for complete stacks: the
 * hosted port's default DWARF walk (docs/HOSTED.md, "What it trusts: the CFI") trusts the unwind
 * tables as C++ exceptions do, before any check; MSAMP_UNWIND=fp keeps the checked walk. */
void msamp_port_walk(const void *frame, msamp_frame_fn fn, void *arg);
/* What a walk reports to fn, as its only pc, when `frame` itself lies outside the stack bounds it
 * may read (bare metal: __msamp_stack_lo/hi): the allocation was made on a stack the bounds leave
 * out. Not an address: the core records no frame and counts the walk (msamp_stats out_of_bounds,
 * DROPS), so the host can name the cause. A port may also never report it. */
#define MSAMP_WALK_OUT_OF_BOUNDS UINTPTR_MAX

/* A short critical section that excludes every other context that may enter the core: an IRQ mask
 * on single-core bare metal, a lock when hosted. Must be safe to take from an interrupt handler
 * while thread mode is outside the core. Not recursive: the core never nests it. */
typedef uintptr_t msamp_port_lock_t;
msamp_port_lock_t msamp_port_lock(void);
void msamp_port_unlock(msamp_port_lock_t token);

/* A monotonic tick counter and its rate in Hz (rate fixed after init, > 0). */
uint64_t msamp_port_time(void);
uint64_t msamp_port_time_hz(void);

/* Hand bytes to the transport. Returns how many were taken (0..len; fewer means "busy, retry
 * later", and the core keeps the rest) or a negative value on a failure the transport cannot
 * recover from. May block as long as the transport needs (a UART waiting for FIFO room), or
 * return 0 while the consumer stalls: the core keeps the bytes, and once its ring is full it drops
 * whole events and counts them (the hosted transport never blocks). */
int msamp_transport_write(const uint8_t *data, size_t len);

/* Bring the transport up (open the file, enable the UART): msamp_init() calls it first, so a
 * firmware calls neither by hand; it may also be called before msamp_init() (it must be safe to
 * call twice). 0 on success, negative on failure (msamp_init() then returns MSAMP_ERR_IO).
 * msamp_transport_flush() pushes out bytes the transport holds in its own buffer: msamp_flush()
 * calls it once the ring is empty. Every transport in port/transport/ defines both next to its
 * msamp_transport_write(); weak defaults (nothing to do, 0) serve a firmware's own transport. */
int msamp_transport_init(void);
int msamp_transport_flush(void);

/* The down-channel (commands from the host): copies up to max bytes the transport has received
 * into buf and returns how many (0 when none; negative when it cannot read at all). Never waits.
 * Called only from msamp_poll(), never from the allocation path. A transport that cannot read
 * keeps the weak default (0). */
int msamp_transport_read(uint8_t *buf, size_t max);

/* The firmware's GNU build-id: sets *id and returns its length, or returns 0 when unknown. Required
 * (no weak default: a weak one would keep a static link from pulling the port's reader out of
 * libmsamp.a). Bare-metal ports use port/common/msamp_build_id.c. */
size_t msamp_port_build_id(const uint8_t **id);

/* Optional (weak defaults in the core, src/msamp_port_defaults.c). */

/* This device's id (a serial number, a MAC address, a name): sets *id and returns its length in
 * bytes (at most MSAMP_WIRE_MAX_DEVICE_ID are sent), or returns 0 when there is none (the default).
 * Asked at every SESSION record when msamp_config.device_id is NULL (never where MSAMP_CFG_DEVICE_ID
 * is 0); the bytes must stay valid. */
size_t msamp_port_device_id(const uint8_t **id);

/* Some bits of entropy for the session id and the default seed (default: the time). The core mixes
 * in the device id too (msamp_config.device_id or msamp_port_device_id()). A port whose clock
 * starts alike at every boot adds what differs between boots: the boards' boot counter in a
 * .noinit section (boards/common/board_port.c), a hardware RNG, a unique id. */
uint64_t msamp_port_entropy(void);
/* Loaded images whose addresses differ from their ELF's (hosted PIE programs): fills up to max
 * entries and returns how many. Sent as MAPPING records with each SESSION. Default: none. */
struct msamp_mapping {
    uintptr_t start, limit, offset;
    const uint8_t *build_id;
    size_t build_id_len;
    const char *path;
};
size_t msamp_port_mappings(struct msamp_mapping *out, size_t max);
/* Called once a context has been registered with the core (its first allocation, or the first
 * after msamp_context_detach), outside the lock: hosted ports arm their thread-exit hook here. */
void msamp_port_context_registered(struct msamp_context *ctx);
/* MSAMP_CFG_RUNTIME_TABLES: the table capacities, asked once by msamp_init(). The port may change
 * the build's values it is given (live slots and stacks: powers of two; frame-pool words), then
 * provides zeroed memory of `bytes` for all of them, used for the whole run (NULL: init fails with
 * MSAMP_ERR_IO). Never from the profiled allocator. Weak defaults: the build's values, no memory. */
void msamp_port_table_caps(uint32_t *live, uint32_t *stacks, uint32_t *frames);
void *msamp_port_table_memory(size_t bytes);
/* Called when the giant-allocation guard refuses a request (hosted: sets errno to ENOMEM). */
void msamp_port_refused(size_t size);
/* Called at the end of each sampled allocation (and sampled free) path, outside the core's lock
 * but inside the caller's reentrancy guard, with the ring's fill: a port without a drainer thread
 * may call msamp_poll() from here when the ring fills up (hosted MSAMP_FLUSH=inline); an
 * allocation made meanwhile in that context (a signal handler's) is turned away by the guard.
 * Default: nothing. */
void msamp_port_ring_notify(uint32_t used, uint32_t size);

/* The allocator's own state (MSAMP_CFG_HEAP_STATS, docs/HEALTH.md): fills what the allocator
 * knows and sets a MSAMP_HEAP_* bit in `valid` for each field filled (a field whose bit is clear is
 * unknown and sent as 0). Called outside the core's lock, from msamp_init(), msamp_poll() and
 * after an allocation failed (in the failing context, after the real allocator returned): it may
 * take the allocator's own lock, never allocate. Default (weak): nothing known. Implementations:
 * port/rtos/freertos/msamp_freertos_heap.c (heap_4/heap_5), port/common/msamp_heap_newlib.c
 * (newlib's mallinfo), port/hosted (glibc's mallinfo2), the demo's heap; a firmware's own
 * allocator fills it in a few lines (docs/API.md). */
#define MSAMP_HEAP_TOTAL 0x01u        /* total: the heap's size (bytes the allocator manages) */
#define MSAMP_HEAP_FREE 0x02u         /* free: bytes free now */
#define MSAMP_HEAP_MIN_FREE 0x04u     /* min_free: the fewest bytes free ever (the allocator's) */
#define MSAMP_HEAP_LARGEST_FREE 0x08u /* largest_free: the largest free block */
#define MSAMP_HEAP_FREE_BLOCKS 0x10u  /* free_blocks: free blocks (holes) */
/* Set by the core, not the port: min_free is the fewest bytes free the device saw at its polls
 * (the allocator keeps no low watermark of its own, MSAMP_HEAP_MIN_FREE clear). */
#define MSAMP_HEAP_MIN_SEEN 0x20u
struct msamp_heap_stats {
    uintptr_t total, free, min_free, largest_free, free_blocks;
    uint32_t valid; /* MSAMP_HEAP_* bits */
};
void msamp_port_heap_stats(struct msamp_heap_stats *out);

/* RTOS layers (port/rtos/, docs/FREERTOS.md): the names of the task ids contexts carry in their
 * `task` field. In a build with MSAMP_PORT_RTOS (others keep no state for them), msamp_poll() sends a TASK record for each id in 1..msamp_port_tasks() once per
 * identity (the first poll after init, every re-sent SESSION) and as new ids appear, asking
 * msamp_port_task_name(id) (NULL: no name to send, for an id not in use). Called under the core's
 * lock, from msamp_poll() only. Weak defaults: no tasks. */
uint32_t msamp_port_tasks(void);
const char *msamp_port_task_name(uint32_t id);

/* A task passed its budget (msamp_task_budget, MSAMP_CFG_TASK_BUDGETS): its id, the budget and
 * its estimated in-use bytes. Called once per crossing, right after the sampled allocation that
 * passed it, in the context that made it (a task, or an interrupt handler for an interrupt's
 * budget), outside the core's lock, as msamp's last step of that allocation: its own allocations
 * and frees are profiled as any others. It may log, free (shed load), signal a task or reset; it
 * must return quickly where the allocation was in an interrupt. Default (weak): nothing. */
void msamp_port_task_over_budget(uint32_t task, size_t budget, size_t in_use);

/* For ports: the core's context registry. msamp_context_detach() releases a context's slot (call
 * it when a thread exits); the core attaches contexts itself on their first allocation. */
void msamp_context_detach(struct msamp_context *ctx);

/* For ports: runs fn(arg) with the calling context's allocations passing through unseen, for a
 * port's own call that allocates through the wrappers (hosted: pthread_create of the writer
 * thread, whose DTV a -static link allocates through them). Meanwhile the context is marked as
 * inside a wrapper's guarded call of the real allocator (MSAMP_CFG_WRAP_NESTED): its allocations
 * are neither sampled nor counted as reentrant, its countdown is parked and put back after (unless
 * a configuration change zeroed it meanwhile), and frees of sampled blocks are left unseen too. It
 * may be called from any state of the context, inside the core too (msamp_port_ring_notify), and
 * nests. fn must not return by longjmp; an interrupt or signal handler that allocates in this
 * context meanwhile passes through unseen as well (block them around it to avoid that). */
void msamp_unseen(void (*fn)(void *arg), void *arg);

#ifdef __cplusplus
}
#endif

#endif
