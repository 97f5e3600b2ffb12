/* Interfaces between the core's modules. Not part of the public API. */
#ifndef MSAMP_INTERNAL_H
#define MSAMP_INTERNAL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "msamp.h"
#include "msamp_heapdump.h"
#include "msamp_port.h"
#include "msamp_wire.h"

#define MSAMP_IS_POW2(x) ((x) != 0 && ((x) & ((x)-1)) == 0)
_Static_assert(MSAMP_IS_POW2(MSAMP_CFG_LIVE_CAPACITY), "MSAMP_CFG_LIVE_CAPACITY: power of two");
_Static_assert(MSAMP_IS_POW2(MSAMP_CFG_LIVE_WAYS), "MSAMP_CFG_LIVE_WAYS: power of two");
_Static_assert(MSAMP_CFG_LIVE_CAPACITY >= MSAMP_CFG_LIVE_WAYS, "live table smaller than a bucket");
_Static_assert(MSAMP_IS_POW2(MSAMP_CFG_STACK_CAPACITY), "MSAMP_CFG_STACK_CAPACITY: power of two");
_Static_assert(MSAMP_CFG_STACK_CAPACITY >= 2, "MSAMP_CFG_STACK_CAPACITY: at least 2");
#if !MSAMP_CFG_TINY
_Static_assert(MSAMP_CFG_FRAME_POOL >= MSAMP_CFG_MAX_DEPTH, "frame pool below one stack");
#endif
_Static_assert(MSAMP_CFG_MAX_DEPTH >= 1 && MSAMP_CFG_MAX_DEPTH <= 256, "MSAMP_CFG_MAX_DEPTH: 1..256");
_Static_assert(MSAMP_IS_POW2(MSAMP_CFG_RING_SIZE), "MSAMP_CFG_RING_SIZE: power of two");
_Static_assert(MSAMP_CFG_MAX_CONTEXTS >= 1, "MSAMP_CFG_MAX_CONTEXTS: at least 1");
_Static_assert(MSAMP_CFG_LIVE_WAYS <= 32, "MSAMP_CFG_LIVE_WAYS: at most 32");

#if defined(__GNUC__)
#define MSAMP_LIKELY(x) __builtin_expect(!!(x), 1)
#define MSAMP_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define MSAMP_WEAK __attribute__((weak))
#else
#error "msamp needs GCC or Clang (weak symbols, builtins)"
#endif

/* The SESSION record's arch code and endian flag for the target being compiled. */
#if defined(__x86_64__)
#define MSAMP_ARCH_SELF MSAMP_ARCH_X86_64
#elif defined(__aarch64__)
#define MSAMP_ARCH_SELF MSAMP_ARCH_AARCH64
#elif defined(__arm__) && defined(__thumb__)
#define MSAMP_ARCH_SELF MSAMP_ARCH_ARM_THUMB
#elif defined(__arm__)
#define MSAMP_ARCH_SELF MSAMP_ARCH_ARM
#elif defined(__mips__) && defined(__mips64)
#define MSAMP_ARCH_SELF MSAMP_ARCH_MIPS64
#elif defined(__riscv) && __riscv_xlen == 64
#define MSAMP_ARCH_SELF MSAMP_ARCH_RISCV64
#elif defined(__riscv) && __riscv_xlen == 32
#define MSAMP_ARCH_SELF MSAMP_ARCH_RISCV32
#elif defined(__i386__)
#define MSAMP_ARCH_SELF MSAMP_ARCH_X86
#else
#define MSAMP_ARCH_SELF MSAMP_ARCH_UNKNOWN
#endif
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define MSAMP_SESSION_ENDIAN MSAMP_SESSION_FLAG_BIG_ENDIAN
#else
#define MSAMP_SESSION_ENDIAN 0u
#endif

/* ---- sampler (msamp_sampler.c) ---- */
/* One step of the generator; state must be nonzero. */
uint64_t msamp_rng_next(uint64_t *state);
/* A seed mixed from any 64-bit value (never 0). */
uint64_t msamp_rng_seed(uint64_t x);
/* -ln(u) in 20-bit fixed point for u = (r | 1) / 2^64, without libm (with MSAMP_CFG_SAMPLER32:
 * u = (low 32 bits of r | 1) / 2^32). */
uint32_t msamp_neg_log_q20(uint64_t r);
/* The next gap in bytes for mean interval R: floor(R * E) + 1 with E ~ Exp(1); always 1 for R = 1.
 * An allocation of s bytes reaches a gap g when s >= g, with probability 1 - exp(-s/R). */
uintptr_t msamp_draw_gap(uint64_t *state, uint32_t interval);

/* ---- encoding primitives (msamp_encode.c) ---- */
#define MSAMP_PTR_VARINT_MAX ((sizeof(uintptr_t) * 8 + 6) / 7)
/* Largest record the core builds: a full STACK. */
#define MSAMP_MAX_RECORD (3u + 5u + 2u + MSAMP_CFG_MAX_DEPTH * (MSAMP_PTR_VARINT_MAX + 1u))
/* Frame body: seq + records + crc. Large enough for the largest record, at least 128 bytes. */
#define MSAMP_FRAME_BODY (MSAMP_MAX_RECORD + 5u > 128u ? MSAMP_MAX_RECORD + 5u : 128u)
#if !MSAMP_CFG_TINY
_Static_assert(MSAMP_FRAME_BODY <= MSAMP_WIRE_MAX_BODY, "frame body exceeds the wire maximum");
_Static_assert(MSAMP_MAX_RECORD < MSAMP_CFG_RING_SIZE / 2, "ring too small for the largest record");
#endif

size_t msamp_put_varint(uint8_t *out, uint64_t v);
size_t msamp_put_svarint(uint8_t *out, int64_t v);
uint32_t msamp_crc32_update(uint32_t crc, const uint8_t *p, size_t n); /* crc starts at 0 */

/* A record under construction in a caller's buffer of 3 + payload capacity bytes: the payload is
 * written at b + 3 and the header placed just before it. Small records (all but STACK, SESSION
 * and MAPPING) fit MSAMP_REC_SMALL payload bytes. */
#define MSAMP_REC_SMALL 64u
struct msamp_rec {
    uint8_t *b;
    size_t len;  /* payload bytes so far */
    size_t size; /* total record size, set by msamp_rec_end */
};
void msamp_rec_begin(struct msamp_rec *r, uint8_t *buf);
void msamp_rec_varint(struct msamp_rec *r, uint64_t v);
void msamp_rec_svarint(struct msamp_rec *r, int64_t v);
void msamp_rec_bytes(struct msamp_rec *r, const void *p, size_t n);
/* Places the header for `type`; returns the start of the record and sets r->size. */
const uint8_t *msamp_rec_end(struct msamp_rec *r, unsigned type);

/* ---- record encoders (msamp_records.c): one per type ---- */
struct msamp_session_fields {
    uint8_t flags, arch, ptr_size, build_id_len;
    uint32_t session_id, resend_seq, tick_hz, interval, live_capacity, stack_capacity, max_depth;
    const uint8_t *build_id;
};
const uint8_t *msamp_enc_session(struct msamp_rec *r, uint8_t *buf,
                                 const struct msamp_session_fields *f);
const uint8_t *msamp_enc_stack(struct msamp_rec *r, uint8_t *buf, uint32_t id,
                               const uintptr_t *pcs, uint32_t depth);
/* ALLOC, or REALLOC when old_slot >= 0; addr NULL when addresses are not sent. */
const uint8_t *msamp_enc_alloc(struct msamp_rec *r, uint8_t *buf, int64_t old_slot,
                               uint64_t slot1, uint64_t size, uint32_t stack, uint64_t dt,
                               const uintptr_t *addr);
const uint8_t *msamp_enc_free(struct msamp_rec *r, uint8_t *buf, uint32_t slot, uint64_t dt);
const uint8_t *msamp_enc_live(struct msamp_rec *r, uint8_t *buf, uint32_t slot, uint64_t size,
                              uint32_t stack, uint32_t birth, const uintptr_t *addr);
/* SNAP_BEGIN, SNAP_END, DROPS, INTERVAL, TIME: their fields are n varints. */
const uint8_t *msamp_enc_varints(struct msamp_rec *r, uint8_t *buf, unsigned type,
                                 const uint64_t *v, unsigned n);
const uint8_t *msamp_enc_mark(struct msamp_rec *r, uint8_t *buf, const void *text, size_t len);
/* The path is cut to its last path_room bytes. */
const uint8_t *msamp_enc_mapping(struct msamp_rec *r, uint8_t *buf, const struct msamp_mapping *m,
                                 size_t path_room);
/* Completes a frame body whose records are at body + 1: writes seq and the CRC, returns the
 * body's length. */
size_t msamp_frame_seal(uint8_t *body, uint8_t seq, size_t records_len);

/* Streaming COBS over one frame body, resumable when the transport takes fewer bytes. */
struct msamp_cobs {
    const uint8_t *src;
    size_t len;   /* body length */
    size_t pos;   /* next body byte of the current block */
    size_t end;   /* end of the current block */
    uint8_t full;  /* the current block is 254 bytes: it implies no zero */
    uint8_t state; /* 0: code byte next, 1: in a block, 2: delimiter next, 3: done */
};
void msamp_cobs_start(struct msamp_cobs *c, const uint8_t *body, size_t len);
/* Writes up to cap encoded bytes, the final 0x00 included, to out; returns the count (0: done). */
size_t msamp_cobs_emit(struct msamp_cobs *c, uint8_t *out, size_t cap);

/* ---- ring (msamp_ring.c): many producers under the port lock, one consumer ---- */
struct msamp_ring {
    _Atomic uint32_t head; /* written by producers (under the lock) */
    _Atomic uint32_t tail; /* written by the consumer */
    uint8_t buf[MSAMP_CFG_RING_SIZE];
};
void msamp_ring_reset(struct msamp_ring *r);
uint32_t msamp_ring_free(const struct msamp_ring *r);
uint32_t msamp_ring_used(const struct msamp_ring *r);
/* Appends n bytes if they fit whole; returns 0 on success, -1 (nothing written) otherwise. */
int msamp_ring_put(struct msamp_ring *r, const uint8_t *p, size_t n);
/* Consumer: copies up to n bytes starting at offset off from the tail, without consuming. */
void msamp_ring_peek(const struct msamp_ring *r, uint32_t off, uint8_t *out, size_t n);
void msamp_ring_consume(struct msamp_ring *r, uint32_t n);
/* Consumer: size of the whole record at offset off from the tail, or 0 if the ring holds less. */
uint32_t msamp_ring_record_size(const struct msamp_ring *r, uint32_t off);

/* ---- stack table (msamp_stacks.c), under the port lock ---- */
void msamp_stacks_reset(struct msamp_heapdump_v1 *d);
/* Interns pcs[0..n) and returns its id (1..), or 0 when the table or the frame pool is full. */
uint32_t msamp_stacks_intern(struct msamp_heapdump_v1 *d, const uintptr_t *pcs, uint32_t n);
/* Frames of stack id (1..); returns the depth. */
uint32_t msamp_stacks_get(const struct msamp_heapdump_v1 *d, uint32_t id, const uintptr_t **pcs);

/* ---- live table (msamp_live.c) ---- */
#define MSAMP_LIVE_BUCKETS (MSAMP_CFG_LIVE_CAPACITY / MSAMP_CFG_LIVE_WAYS)

/* Fibonacci hashing: the top bits of the product depend on every address bit, so blocks at page
 * or power-of-two strides spread as well as packed ones. The top 32 bits pick the bucket, five
 * lower ones the block's fingerprint bit in its bucket's mask. */
static inline uint64_t msamp_live_hash(uintptr_t p)
{
    return (uint64_t)p * 0x9E3779B97F4A7C15ull;
}

static inline uint32_t msamp_live_bucket(uint64_t h)
{
    return (uint32_t)(((h >> 32) * MSAMP_LIVE_BUCKETS) >> 32);
}

static inline uint32_t msamp_live_bit(uint64_t h)
{
    return 1u << ((uint32_t)(h >> 24) & 31u);
}

/* Lock-free: 0 when p is certainly not in the table (the common case of every free: one load
 * and a bit test); nonzero when it may be (then msamp_live_find decides). */
static inline uint32_t msamp_live_maybe(const struct msamp_heapdump_v1 *d, uintptr_t p)
{
    uint64_t h = msamp_live_hash(p);
    return atomic_load_explicit(&d->live_mask[msamp_live_bucket(h)], memory_order_relaxed) &
           msamp_live_bit(h);
}

void msamp_live_reset(struct msamp_heapdump_v1 *d);
/* Lock-free probe of p's bucket: its slot, or -1. */
int32_t msamp_live_find(const struct msamp_heapdump_v1 *d, uintptr_t p);
/* Under the lock: a free slot of p's bucket, or -1 when the bucket is full. p must not be in the
 * table (remove a stale entry first). */
int32_t msamp_live_free_slot(const struct msamp_heapdump_v1 *d, uintptr_t p);
/* Under the lock: fill a slot and publish it (the address is stored last). */
void msamp_live_set(struct msamp_heapdump_v1 *d, uint32_t slot, uintptr_t p, uintptr_t size,
                    uint32_t stack, uint32_t birth);
/* Under the lock: empty a slot with one store. */
void msamp_live_clear(struct msamp_heapdump_v1 *d, uint32_t slot);

/* ---- core (msamp_core.c): the slow paths the wrappers call ---- */
void msamp_alloc_slow(struct msamp_context *c, void *p, size_t size, const void *frame);
void msamp_free_slow(struct msamp_context *c, void *p);
/* old was a sampled block when the wrapper probed it; p (maybe NULL) is realloc's result. */
void msamp_realloc_slow(struct msamp_context *c, void *old, void *p, size_t size,
                        const void *frame);
/* The dump block; its layout is msamp_heapdump.h. */
extern struct msamp_heapdump_v1 msamp_heapdump;

/* A port may make its context lookup inline (a thread-local variable) by defining
 * MSAMP_PORT_CONTEXT() in its configuration file; otherwise the wrappers call the port. */
#ifndef MSAMP_PORT_CONTEXT
#define MSAMP_PORT_CONTEXT() msamp_port_context()
#endif

/* Fast path of every allocation: charge size to the context's countdown. Inline in the wrappers. */
static inline void msamp_note_alloc(void *p, size_t size, const void *frame)
{
    struct msamp_context *c = MSAMP_PORT_CONTEXT();
    uintptr_t cd = atomic_load_explicit(&c->countdown, memory_order_relaxed);
    if (MSAMP_LIKELY(size < cd)) {
        atomic_store_explicit(&c->countdown, cd - size, memory_order_relaxed);
        return;
    }
    msamp_alloc_slow(c, p, size, frame);
}

/* Whether p may be a sampled block (0: certainly not), and its live slot (-1: not sampled). */
#if MSAMP_CFG_TINY
/* The tiny profile (src/tiny/): the same fingerprint masks, one per bucket of
 * MSAMP_CFG_LIVE_WAYS address-only slots, from a 32-bit Fibonacci hash. */
extern _Atomic uint32_t msamp_tiny_mask[MSAMP_LIVE_BUCKETS];
static inline uint32_t msamp_tiny_hash(uintptr_t p)
{
    return (uint32_t)((uint64_t)p ^ ((uint64_t)p >> 32)) * 0x9E3779B9u;
}
static inline uint32_t msamp_tiny_bucket(uint32_t h)
{
    return (uint32_t)(((uint64_t)h * MSAMP_LIVE_BUCKETS) >> 32);
}
static inline uint32_t msamp_tiny_bit(uint32_t h)
{
    return 1u << ((h >> 16) & 31u);
}
static inline uint32_t msamp_maybe_sampled(uintptr_t p)
{
    uint32_t h = msamp_tiny_hash(p);
    return atomic_load_explicit(&msamp_tiny_mask[msamp_tiny_bucket(h)], memory_order_relaxed) &
           msamp_tiny_bit(h);
}
int32_t msamp_tiny_find(uintptr_t p);
#define msamp_find_sampled(p) msamp_tiny_find(p)
#else
#define msamp_maybe_sampled(p) msamp_live_maybe(&msamp_heapdump, (p))
#define msamp_find_sampled(p) msamp_live_find(&msamp_heapdump, (p))
#endif

/* Fast path of every free: a fingerprint test; the slow path only for (probably) sampled blocks.
 * free(NULL) needs no test of its own: the slow path finds nothing. */
static inline void msamp_note_free(void *p)
{
    if (MSAMP_UNLIKELY(msamp_maybe_sampled((uintptr_t)p)))
        msamp_free_slow(MSAMP_PORT_CONTEXT(), p);
}

static inline int msamp_is_sampled(void *p)
{
    return p != NULL && msamp_maybe_sampled((uintptr_t)p) && msamp_find_sampled((uintptr_t)p) >= 0;
}

/* realloc's bookkeeping: old was probed (old_sampled) before the real realloc returned p. Out of
 * line (msamp_hooks.c): realloc is rare next to malloc and free, and a wrapper with one call and
 * one return is one that every port's unwinder reads (MIPS's scans its code). */
void msamp_note_realloc(void *old, int old_sampled, void *p, size_t size, const void *frame);

#endif
