/*
 * msamp: sampling heap profiler for firmware and constrained C programs. Public API.
 *
 * The library samples allocations made through the wrapped allocator (link with
 * -Wl,--wrap=malloc,--wrap=free,... see README) as a Poisson process over bytes, records each
 * sampled allocation's call stack, tracks sampled blocks until they are freed, and sends compact
 * records (docs/WIRE_FORMAT.md) through the port's transport. It never allocates memory itself.
 *
 * Calling rules: msamp_init() once, before or after the first allocation (allocations before init
 * are not sampled). All other functions may be called from any context after init, including
 * interrupt handlers, except where noted. Errors are negative MSAMP_ERR_* codes; 0 is success.
 */
#ifndef MSAMP_H
#define MSAMP_H

#include <stddef.h>
#include <stdint.h>

#include "msamp_config.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MSAMP_VERSION_MAJOR 0
#define MSAMP_VERSION_MINOR 1

enum msamp_error {
    MSAMP_OK = 0,
    MSAMP_ERR_INVAL = -1,  /* bad argument */
    MSAMP_ERR_STATE = -2,  /* not initialised, initialised twice, or ended (msamp_end) */
    MSAMP_ERR_BUSY = -3,   /* no room in the ring right now: call msamp_poll() and retry */
    MSAMP_ERR_IO = -4,     /* the transport failed */
    MSAMP_ERR_UNSUPPORTED = -5, /* not in this build (snapshots without MSAMP_CFG_SNAPSHOTS) */
    MSAMP_ERR_FULL = -6         /* a fixed table has no room (msamp_task_budget) */
};

/* Run-time configuration, owned by the caller and read only during msamp_init(). All-zero means
 * the defaults named on each field. */
struct msamp_config {
    /* Mean sampling interval in bytes at start (MSAMP_CFG_DEFAULT_INTERVAL). 1 records every
     * allocation. */
    uint32_t interval;
    /* Bounds of the adaptive interval (docs/ADAPTIVE.md): it doubles, up to interval_max
     * (MSAMP_CFG_INTERVAL_MAX), when the live or stack table fills, thinning the live table so the
     * estimates stay unbiased, and halves again, not below interval_min (the start interval),
     * once the tables are below a quarter full. */
    uint32_t interval_min, interval_max;
    /* Period of the identity and live-stack re-send in ms (MSAMP_CFG_RESEND_MS). */
    uint32_t resend_ms;
    /* Seed of the sampling random number generator; 0 derives one from the port's clock. A fixed
     * seed makes a run's sampling decisions repeatable, also in a context that allocated before
     * msamp_init (its generator is reseeded from this one there). */
    uint64_t seed;
    /* Start disabled: no sampling until msamp_enable(). */
    uint8_t start_disabled;
    /* Pin the interval: no adaptation (interval_min = interval_max = interval); a sample whose
     * live-table bucket is full is then counted in stats.live_full, not tracked. */
    uint8_t pin_interval;
    /* This device's id (serial number, MAC, name): a NUL-terminated string, sent in the SESSION
     * record (its first MSAMP_WIRE_MAX_DEVICE_ID bytes), so drain labels the device's samples and
     * a merged fleet profile splits again. Kept by pointer: it must stay valid. NULL: the port's
     * msamp_port_device_id(). Ignored by the tiny profile (MSAMP_CFG_TINY), which asks the port,
     * and where MSAMP_CFG_DEVICE_ID is 0 (no id is sent).
     * Two devices without entropy that boot alike may share a session id: drain tells their
     * streams apart by this id and each boot by its boot header. */
    const char *device_id;
};

/* Counters since init. Every sample that lost information is counted in exactly one field. */
struct msamp_stats {
    uint32_t samples;        /* allocations sampled */
    uint32_t frees;          /* frees of sampled allocations */
    uint32_t ring_records;   /* records dropped because the ring was full */
    uint32_t ring_bytes;     /* bytes of those records */
    uint32_t live_full;      /* samples not tracked as live: their bucket was full */
    uint32_t stack_full;     /* samples whose stack did not fit the stack table (sent as id 0) */
    uint32_t reentrant;      /* allocations skipped because msamp was already running there */
    uint32_t truncated;      /* stacks cut at MSAMP_CFG_MAX_DEPTH */
    uint32_t no_frame;       /* walks that found no frame (sent as stack id 0): the code lacks the
                                frame pointers or unwind tables the port's walker needs */
    uint32_t failed;         /* allocations the allocator failed (NULL for a size > 0) */
    uint32_t refused;        /* allocations the giant-allocation guard refused */
    uint32_t live_used;      /* live-table entries in use now */
    uint32_t live_capacity;
    uint32_t stacks_used;    /* stack-table entries in use now */
    uint32_t stack_capacity;
    uint32_t frames_used;    /* frame-pool entries in use now */
    uint32_t frame_capacity;
    uint32_t ring_used;      /* bytes waiting in the ring now */
    uint32_t ring_size;
    uint32_t interval;       /* the sampling interval in force */
    uint32_t interval_min, interval_max; /* the adaptive interval's bounds (equal: pinned) */
    uint32_t raises, lowers; /* adaptive interval changes since init */
    uint32_t thinned;        /* live entries (and in-flight samples) thinning took out */
    uint32_t stacks_evicted; /* unused stacks evicted for new ones */
    uint8_t enabled;
    /* The down-channel (MSAMP_CFG_CONTROL, docs/CONTROL.md): command frames carried out, resent
     * frames acknowledged again without being carried out, frames ignored as malformed (bad
     * COBS or CRC, too long, cut short, another format version), and frames refused (a seq ahead
     * of the one expected, a version-1 frame: acknowledged, not carried out). */
    uint32_t commands, commands_repeated, commands_bad, commands_refused;
    /* Of the no_frame walks, those that began on a stack outside the bounds the walker may read
     * (bare metal: __msamp_stack_lo/hi; hosted: the thread's stack): an RTOS task's or an
     * interrupt's stack elsewhere, or a linker script's bounds that leave the stack out. Always 0
     * in the tiny profile, which does not count them (docs/TINY.md). */
    uint32_t out_of_bounds;
};

/* Initialise the library: bring up the transport the firmware links (msamp_transport_init(),
 * msamp_port.h) and queue the session header. cfg may be NULL (all defaults). MSAMP_ERR_STATE if
 * already initialised, MSAMP_ERR_INVAL for an invalid field, MSAMP_ERR_IO when the transport
 * failed to come up. Not reentrant: call from one context. A firmware calls this once at start-up
 * and msamp_poll() from its main loop or idle hook; nothing else is required. */
int msamp_init(const struct msamp_config *cfg);

/* Start or stop sampling. Takes effect in each context at its next allocation. */
int msamp_enable(void);
int msamp_disable(void);

/* Change the mean sampling interval (bytes, >= 1). An INTERVAL record tells the host, so samples
 * before and after the change are each weighted with their own interval. The adaptive interval
 * goes on from there, within its bounds. MSAMP_ERR_BUSY when the ring has no room for that
 * record: poll and retry. */
int msamp_set_interval(uint32_t interval);

/* Bounds of the adaptive interval (min <= max; min == max pins it). The interval in force moves
 * inside them at its next change; MSAMP_ERR_INVAL for min 0 or min > max; MSAMP_ERR_UNSUPPORTED
 * for min != max in a build without the adaptive interval (MSAMP_CFG_ADAPTIVE 0). */
int msamp_set_interval_bounds(uint32_t min, uint32_t max);

/* Ask for a snapshot pass: every live sampled allocation (and its stack) is re-sent over the next
 * msamp_poll() calls, bracketed by SNAP_BEGIN/SNAP_END, as the periodic re-send does.
 * MSAMP_ERR_UNSUPPORTED in a build without them (MSAMP_CFG_SNAPSHOTS 0, the tiny profile's
 * default). */
int msamp_snapshot(void);

/* Write an application marker (up to MSAMP_WIRE_MAX_MARK = 64 bytes of text) into the stream, e.g. "phase 2 start".
 * MSAMP_ERR_BUSY when the ring is full. */
int msamp_mark(const char *text, size_t len);

/* Why the device is about to reset (msamp_note_reset; the RESET record's cause on the wire,
 * docs/WIRE_FORMAT.md): enum msamp_wire_reset_cause's values. */
enum msamp_reset_cause {
    MSAMP_RESET_UNKNOWN = 0,  /* not noted: a watchdog without a hook, a reset pin, a lockup */
    MSAMP_RESET_SOFTWARE = 1, /* the firmware asked for it (NVIC_SystemReset, PSCI SYSTEM_RESET) */
    MSAMP_RESET_FAULT = 2,    /* a fault handler (HardFault, a synchronous exception) */
    MSAMP_RESET_WATCHDOG = 3, /* a watchdog's early-warning interrupt */
    MSAMP_RESET_ASSERT = 4    /* a failed assertion, a panic */
};
/* Notes in the kept block (MSAMP_CFG_RESET_PROFILE, docs/POSTMORTEM.md#a-profile-that-survives-a-reset)
 * why and when the device resets, and the session's counters at that instant: the next boot's
 * msamp_init() sends them with the previous session's in-use set, and drain says "ended by a
 * reset at T s (cause)". Call it from a fault handler or a watchdog's pre-reset hook, just before
 * the reset: it takes no lock and never blocks. Without the call the next boot still sends the
 * previous session, with the cause unknown and the time of its last msamp_poll(). A no-op before
 * msamp_init() and in builds without the kept block. */
void msamp_note_reset(unsigned cause);

/* The drain step: send due re-sends and move whole frames from the ring to the port's transport.
 * Returns the number of bytes handed to the transport (>= 0) or MSAMP_ERR_IO. Never blocks longer
 * than the transport's write does. Call it from the main loop, an idle hook or a writer thread;
 * calls must not overlap one another (one drainer at a time). */
int msamp_poll(void);

/* Drain everything queued so far (loops msamp_poll() until the ring is empty or the transport
 * refuses bytes), then flush the transport's own buffer (msamp_transport_flush()). For exit paths
 * and fatal-error handlers. Returns as msamp_poll(); MSAMP_ERR_IO when the transport's flush
 * failed. */
int msamp_flush(void);

/* The end of the session: turns sampling off, flushes (as msamp_flush()), writes the END record
 * with the session's totals (samples, frees, records the ring dropped: the reader compares them with
 * what it received, docs/DRAIN.md "Completeness") and flushes again. Call it last, at shutdown
 * (the hosted port calls it at exit); a stream without END is one that was cut short. Returns as
 * msamp_flush(); MSAMP_ERR_BUSY when the ring had no room for END even after the flush (the
 * transport refuses bytes): call it again once it takes them. MSAMP_ERR_STATE before msamp_init.
 * END is written once and is the session's last record. Once it is written, msamp_poll(),
 * msamp_flush() and msamp_end() only hand the ring's bytes to the transport (a second or third
 * msamp_end() writes no END: it returns as msamp_flush()): on a link that takes them slowly
 * (MSAMP_UART_BAUD, MSAMP_CFG_LINK_BYTES_PER_S) call msamp_flush() until msamp_stats.ring_used
 * is 0. After END nothing is recorded: frees and reallocs of sampled blocks pass through
 * unrecorded (not counted as lost either), and msamp_enable(), msamp_disable(),
 * msamp_set_interval(), msamp_set_interval_bounds(), msamp_snapshot() and msamp_mark() return
 * MSAMP_ERR_STATE. */
int msamp_end(void);

#if MSAMP_CFG_TASK_BUDGETS
/* Per-task budgets (MSAMP_CFG_TASK_BUDGETS entries; docs/HEALTH.md#task-budgets): declared and
 * defined only in a build with budgets (0, the default, leaves out every byte). task is the id
 * the RTOS layer gives the task (1..65535, the id of its SAMPLE_TASK records: under FreeRTOS,
 * msamp_freertos_task_id() called in the task). From this call on the device adds the estimated
 * bytes (the sampling weight) of each of the task's sampled allocations and takes them off at
 * their free, keeps the peak, and when the estimate passes `bytes` sends a TASK_BUDGET record and
 * calls msamp_port_task_over_budget (msamp_port.h); again only after the estimate fell back to 7/8
 * of the budget. Blocks the task allocated before the call are not counted. A second call for the
 * task changes its budget (the estimate and peak go on); bytes 0 removes it (the entry is free
 * again). MSAMP_ERR_INVAL for task 0 or above 65535, MSAMP_ERR_FULL when every entry has a task.
 * May be called before msamp_init (init zeroes the estimates, not the budgets). */
int msamp_task_budget(uint32_t task, size_t bytes);
/* A budgeted task's estimated in-use bytes now and its peak since its budget was set or init
 * (either pointer may be NULL). MSAMP_ERR_INVAL when the task has no budget. */
int msamp_task_usage(uint32_t task, size_t *in_use, size_t *peak);
#endif

/* Copy the counters. MSAMP_ERR_INVAL for NULL. */
int msamp_get_stats(struct msamp_stats *out);

/*
 * Profiling another allocator pair (FreeRTOS pvPortMalloc/vPortFree, a pool allocator):
 * call these around it, or let MSAMP_WRAP_ALLOCATOR generate the wrappers.
 * msamp_on_alloc(p, size): p was just returned for a request of size bytes (NULL for size > 0
 *   is reported as an allocation failure: a FAIL record with the stack).
 *   The recorded stack starts at msamp_on_alloc's caller.
 * msamp_on_alloc_from(p, size, frame): the same, with the stack starting at the caller of the
 *   function whose __builtin_frame_address(0) is frame (for wrappers of your own).
 * msamp_on_free(p): p is about to be freed (NULL is ignored).
 * msamp_on_realloc(old, p, size): old was just resized into p (p NULL with size 0: freed; p NULL
 *   with size > 0: the resize failed, reported as a failure). Called after the fact, it cannot
 *   tell old's allocation from another context's sampled between the resize and this call at the
 *   same address (the realloc wrappers, which take old's slot off its address before the real
 *   call, can); call it with interrupts (or the scheduler) held off around the resize where
 *   another context allocates from the same allocator. Built with MSAMP_CFG_REALLOC_CHAINS 0
 *   (include/msamp_config.h), a realloc of a sampled block is its FREE and a new allocation.
 */
void msamp_on_alloc(void *p, size_t size);
void msamp_on_alloc_from(void *p, size_t size, const void *frame);
void msamp_on_free(void *p);
void msamp_on_realloc(void *old, void *p, size_t size);

/*
 * MSAMP_WRAP_ALLOCATOR(alloc_fn, free_fn) defines __wrap_<alloc_fn> and __wrap_<free_fn> around an
 * allocator whose functions are  void *alloc_fn(size_t)  and  void free_fn(void *).  Link with
 * -Wl,--wrap=alloc_fn,--wrap=free_fn. Example, in one .c file of the firmware:
 *     #include "msamp.h"
 *     MSAMP_WRAP_ALLOCATOR(pvPortMalloc, vPortFree)
 */
#define MSAMP_WRAP_ALLOCATOR(alloc_fn, free_fn)                                                   \
    void *__real_##alloc_fn(size_t size);                                                          \
    void __real_##free_fn(void *p);                                                                \
    void *__wrap_##alloc_fn(size_t size);                                                          \
    void __wrap_##free_fn(void *p);                                                                \
    void *__wrap_##alloc_fn(size_t size)                                                           \
    {                                                                                              \
        void *p = __real_##alloc_fn(size);                                                         \
        msamp_on_alloc_from(p, size, __builtin_frame_address(0));                                  \
        return p;                                                                                  \
    }                                                                                              \
    void __wrap_##free_fn(void *p)                                                                 \
    {                                                                                              \
        msamp_on_free(p);                                                                          \
        __real_##free_fn(p);                                                                       \
    }

#ifdef __cplusplus
}
#endif

#endif
