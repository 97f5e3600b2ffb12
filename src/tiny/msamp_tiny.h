/* The tiny profile's state and frame writer, shared by its two objects: msamp_tiny.c (init, the
 * sampled paths, poll) and msamp_tiny_ctl.c (the control and statistics API). Two archive members,
 * so that a firmware that never calls the control functions does not link them. */
#ifndef MSAMP_TINY_H
#define MSAMP_TINY_H

#include "msamp_internal.h"

#if !MSAMP_CFG_TINY
#error "src/tiny/ is the tiny profile: build it with -DMSAMP_CFG_TINY=1 (MSAMP_PROFILE=tiny)"
#endif

/* Helpers called from several places stay out of line: at -Os compilers still copy small
 * functions into each caller, and code size is what this profile is for. */
#define MSAMP_TINY_SMALL __attribute__((noinline))

/* Loss counters, in the order of the DROPS record. */
enum {
    MSAMP_TINY_RING_RECORDS,
    MSAMP_TINY_RING_BYTES,
    MSAMP_TINY_LIVE_FULL,
    MSAMP_TINY_STACK_FULL,
    MSAMP_TINY_REENTRANT,
    MSAMP_TINY_TRUNCATED,
    MSAMP_TINY_NCOUNT
};

struct msamp_tiny {
    /* The frame being written, under the lock: ring index of the next byte (wh) and of the open
     * COBS block's code byte, the tail when the frame began, the block's code, the CRC so far,
     * the bytes (seq included) and records so far, the time its timed records are relative to.
     * First in the struct: the writer touches them for every byte, and small offsets keep its
     * loads and stores 16-bit Thumb instructions. */
    uint32_t wh, code_at, wt, code, crc, n, records;
    _Atomic uint32_t head, tail; /* free-running ring indexes: producers (locked), msamp_poll */
    uint8_t seq, shift, initialised;
    _Atomic uint8_t enabled;
    _Atomic uint32_t gen; /* bumped by every configuration change */
    _Atomic uint32_t interval;
    uint32_t count[MSAMP_TINY_NCOUNT], sent; /* loss counters; the sum last sent in a DROPS */
    uint32_t samples, frees, live_used, stacks_used;
    uint32_t seed, registrations;
    uint64_t ts, last_ts; /* the frame's time base; the time of the last timed record published */
    struct msamp_context *ctx[MSAMP_CFG_MAX_CONTEXTS];
    _Atomic uintptr_t live[MSAMP_CFG_LIVE_CAPACITY]; /* sampled blocks by slot; 0: free */
    uint32_t stack[MSAMP_CFG_STACK_CAPACITY]; /* hash of stack id i's frames (ids 1..stacks_used) */
    uint8_t ring[MSAMP_CFG_RING_SIZE];
};
extern struct msamp_tiny msamp_tiny;

/* The frame writer (caller holds the lock). A frame goes straight into the ring past the
 * published head, COBS-encoded and CRC'd byte by byte; msamp_tiny_close() publishes it when all
 * of it fitted, else drops it whole. */
void msamp_tiny_open(void);
/* A record of varints v[0..n) then n_raw raw bytes. */
void msamp_tiny_rec(unsigned type, const uintptr_t *v, unsigned n, const uint8_t *raw,
                    uint32_t n_raw);
/* The time of an event, now, relative to the frame's previous timed record; writes an absolute
 * TIME record first when the difference would not fit two varint bytes. */
uintptr_t msamp_tiny_stamp(void);
/* 0 when published; -1 when it did not fit, and then its records are counted as dropped if
 * `lossy` (an event), not if the caller reports the refusal or sends them again later. */
int msamp_tiny_close(int lossy);

/* Make every registered context re-read the configuration on its next allocation. */
void msamp_tiny_broadcast(void);
/* The reentrant-call counters of the registered contexts, summed. */
uint32_t msamp_tiny_reentrant(void);

#endif
