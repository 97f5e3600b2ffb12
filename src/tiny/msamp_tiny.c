/* The tiny profile of the msamp core (-DMSAMP_CFG_TINY=1; MSAMP_PROFILE=tiny in port/msamp.mk):
 * the API of msamp.h, wire format v1 and the shared wrappers, sized for Cortex-M parts. What it
 * keeps from the full core: Poisson sampling per context, a stack per sample, sampled blocks
 * tracked until freed (realloc as one block), exact loss counters, interval changes, marks, a
 * ring that never blocks. What it gives up, to keep a live slot one address and a stack one 32-bit
 * hash: snapshot passes and periodic re-sends (a reader must follow from boot), the RAM-dump
 * table, MAPPING records. Each event is its own frame, written COBS-encoded into the ring as it
 * happens, so the drain side is a byte copy; a sampled allocation costs about 7 bytes more on the
 * wire than with the full core. Two distinct stacks with the same 32-bit hash would share an id
 * (about 1 in 2^32 per pair). This file: init, the sampled paths and poll; the control API is in
 * msamp_tiny_ctl.c. docs/TINY.md has the numbers. */
#include "msamp_tiny.h"

#define T msamp_tiny
#define SMALL MSAMP_TINY_SMALL
#define LIVE_N MSAMP_CFG_LIVE_CAPACITY
#define WAYS MSAMP_CFG_LIVE_WAYS
#define STACK_N MSAMP_CFG_STACK_CAPACITY
#define RING_MASK (MSAMP_CFG_RING_SIZE - 1u)
#define PTR_BITS (sizeof(uintptr_t) * 8u)
/* As in the full core: finite while disabled, so a context that missed a broadcast re-checks. */
#define DISABLED_COUNTDOWN ((uintptr_t)1 << (PTR_BITS - 2u))
/* A dt that needs more than two varint bytes is preceded by an absolute TIME record. */
#define DT_LIMIT (1u << 14)
#define V MSAMP_PTR_VARINT_MAX
/* The largest frame: seq, a TIME (absolute, 64-bit), a FREE of a stale slot, a STACK (header,
 * 2-byte length, id, depth, frames), a REALLOC with an address, CRC; or the boot header: SESSION
 * (build-id up to 64 bytes) and TIME. Encoded: a COBS code byte per 254 bytes, one more, the
 * delimiter. Any frame must fit an empty ring. */
#define EVENT_MAX                                                                                  \
    (1u + (1u + 10u) + (1u + 2u * V) + (3u + 5u + 2u + MSAMP_CFG_MAX_DEPTH * V) + (1u + 6u * V) + 4u)
#define BOOT_MAX (1u + (3u + 9u + 5u * V + 1u + 64u) + (1u + 10u) + 4u)
#define FRAME_MAX (EVENT_MAX > BOOT_MAX ? EVENT_MAX : BOOT_MAX)
#define COBS_MAX(n) ((n) + (n) / 254u + 2u)
_Static_assert(COBS_MAX(FRAME_MAX) <= MSAMP_CFG_RING_SIZE, "MSAMP_CFG_RING_SIZE below one frame");
_Static_assert(FRAME_MAX <= MSAMP_WIRE_MAX_BODY, "frame body exceeds the wire maximum");

struct msamp_tiny msamp_tiny;
_Atomic uint32_t msamp_tiny_mask[MSAMP_LIVE_BUCKETS];

/* ---- the frame writer ---- */

/* Stores a byte at ring index i unless it would land on bytes not yet consumed: a frame that
 * does not fit is written in part, never published, and dropped whole. */
static void ring_at(uint32_t i, uint32_t b)
{
    if (i - T.wt < MSAMP_CFG_RING_SIZE)
        T.ring[i & RING_MASK] = (uint8_t)b;
}

/* Ends the open COBS block (its code is its length + 1) and opens the next. */
SMALL static void block(void)
{
    ring_at(T.code_at, T.code);
    T.code_at = T.wh++;
    T.code = 1;
}

/* One byte of the frame body: into the CRC, then COBS-encoded into the ring. A block holds at
 * most 254 non-zero bytes; one shorter than that stands for the zero that ends it. */
SMALL static void emit(uint32_t b)
{
    b &= 0xFFu;
    uint32_t c = T.crc ^ b;
    for (unsigned k = 0; k < 8u; k++)
        c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    T.crc = c;
    T.n++;
    if (T.code == 0xFFu)
        block();
    if (b == 0) {
        block();
    } else {
        ring_at(T.wh++, b);
        T.code++;
    }
}

/* Writes v as a varint, or with `dry` only counts its bytes. */
SMALL static uint32_t put(uint64_t v, int dry)
{
    uint32_t n = 1;
    for (; v >= 0x80u; v >>= 7, n++)
        if (!dry)
            emit((uint32_t)v | 0x80u);
    if (!dry)
        emit((uint32_t)v);
    return n;
}

SMALL void msamp_tiny_open(void)
{
    T.wt = atomic_load_explicit(&T.tail, memory_order_acquire);
    T.wh = atomic_load_explicit(&T.head, memory_order_relaxed);
    T.code_at = T.wh++;
    T.code = 1;
    T.crc = 0xFFFFFFFFu;
    T.n = 0;
    T.records = 0;
    T.ts = T.last_ts;
    emit(T.seq);
}

SMALL void msamp_tiny_rec(unsigned type, const uintptr_t *v, unsigned n, const uint8_t *raw,
                    uint32_t n_raw)
{
    uint32_t len = n_raw;
    for (unsigned i = 0; i < n; i++)
        len += put(v[i], 1);
    if (len <= MSAMP_WIRE_LEN_INLINE_MAX) {
        emit(type | len << 4);
    } else {
        emit(type | MSAMP_WIRE_LEN_EXTENDED << 4);
        put(len, 0);
    }
    for (unsigned i = 0; i < n; i++)
        put(v[i], 0);
    for (uint32_t i = 0; i < n_raw; i++)
        emit(raw[i]);
    T.records++;
}

SMALL uintptr_t msamp_tiny_stamp(void)
{
    uint64_t ts = msamp_port_time() >> T.shift;
    uint64_t d = ts - T.ts;
    if (ts < T.ts || d >= DT_LIMIT) {
        /* A TIME record written here, not by msamp_tiny_rec(): its value is 64-bit, wider than
         * uintptr_t on 32-bit targets. */
        emit(MSAMP_REC_TIME | put(ts, 1) << 4);
        put(ts, 0);
        T.records++;
        d = 0;
    }
    T.ts = ts;
    return (uintptr_t)d;
}

SMALL int msamp_tiny_close(int lossy)
{
    uint32_t crc = ~T.crc, body = T.n - 1u;
    for (unsigned i = 0; i < 4u; i++)
        emit(crc >> (8u * i));
    ring_at(T.code_at, T.code);
    ring_at(T.wh++, 0); /* the delimiter */
    if (T.wh - T.wt > MSAMP_CFG_RING_SIZE) {
        if (lossy) {
            T.count[MSAMP_TINY_RING_RECORDS] += T.records;
            T.count[MSAMP_TINY_RING_BYTES] += body;
        }
        return -1;
    }
    T.seq++;
    atomic_store_explicit(&T.head, T.wh, memory_order_release);
    T.last_ts = T.ts;
    return 0;
}

/* ---- the live table: address-only slots in buckets of WAYS ---- */

/* The slot of p's bucket holding `want` (p itself, or 0 for a free one), or -1. */
SMALL static int32_t slot_of(uintptr_t p, uintptr_t want)
{
    uint32_t base = msamp_tiny_bucket(msamp_tiny_hash(p)) * WAYS;
    for (uint32_t w = 0; w < WAYS; w++)
        if (atomic_load_explicit(&T.live[base + w], memory_order_relaxed) == want)
            return (int32_t)(base + w);
    return -1;
}

int32_t msamp_tiny_find(uintptr_t p)
{
    return p != 0 ? slot_of(p, p) : -1; /* 0 marks a free slot */
}

/* Fills (p != 0) or empties (p == 0) a slot and rebuilds its bucket's fingerprint mask. */
SMALL static void live_set(uint32_t slot, uintptr_t p)
{
    atomic_store_explicit(&T.live[slot], p, memory_order_release);
    uint32_t base = slot / WAYS * WAYS, mask = 0;
    for (uint32_t w = 0; w < WAYS; w++) {
        uintptr_t a = atomic_load_explicit(&T.live[base + w], memory_order_relaxed);
        if (a != 0)
            mask |= msamp_tiny_bit(msamp_tiny_hash(a));
    }
    atomic_store_explicit(&msamp_tiny_mask[slot / WAYS], mask, memory_order_relaxed);
}

SMALL static void live_clear(uint32_t slot)
{
    live_set(slot, 0);
    T.live_used--;
    T.frees++;
}

/* Writes a FREE of a slot and empties the slot. */
SMALL static void add_free(uint32_t slot)
{
    uintptr_t v[2] = {slot, 0};
    v[1] = msamp_tiny_stamp();
    msamp_tiny_rec(MSAMP_REC_FREE, v, 2, NULL, 0);
    live_clear(slot);
}

/* ---- contexts and the sampling decision ---- */

SMALL void msamp_tiny_broadcast(void)
{
    /* Under the lock, the only writer: no read-modify-write needed. */
    atomic_store_explicit(&T.gen, atomic_load_explicit(&T.gen, memory_order_relaxed) + 1u,
                          memory_order_relaxed);
    for (uint32_t i = 0; i < MSAMP_CFG_MAX_CONTEXTS; i++)
        if (T.ctx[i] != NULL)
            atomic_store_explicit(&T.ctx[i]->countdown, 0, memory_order_relaxed);
}

SMALL uint32_t msamp_tiny_reentrant(void)
{
    uint32_t r = 0;
    for (uint32_t i = 0; i < MSAMP_CFG_MAX_CONTEXTS; i++)
        if (T.ctx[i] != NULL)
            r += T.ctx[i]->reentrant;
    return r;
}

SMALL static uintptr_t fresh_gap(struct msamp_context *c)
{
    if (!atomic_load_explicit(&T.enabled, memory_order_relaxed))
        return DISABLED_COUNTDOWN;
    return msamp_draw_gap(&c->rng, atomic_load_explicit(&T.interval, memory_order_relaxed));
}

/* 1 when an allocation of size bytes is sampled; updates the context's countdown either way. */
static int decide(struct msamp_context *c, size_t size)
{
    uint32_t gen = atomic_load_explicit(&T.gen, memory_order_relaxed);
    if (c->index == 0) {
        /* First allocation here: join the registry (for broadcasts), seed the generator. */
        msamp_port_lock_t key = msamp_port_lock();
        c->rng = msamp_rng_seed(T.seed + ++T.registrations);
        c->index = 1;
        for (uint32_t i = 0; i < MSAMP_CFG_MAX_CONTEXTS; i++) {
            if (T.ctx[i] == NULL) {
                T.ctx[i] = c;
                break;
            }
        }
        msamp_port_unlock(key);
    }
    uintptr_t cd = atomic_load_explicit(&c->countdown, memory_order_relaxed);
    if (c->gen != gen) {
        c->gen = gen;
        cd = fresh_gap(c);
    }
    if (size < cd) {
        atomic_store_explicit(&c->countdown, cd - size, memory_order_relaxed);
        return 0;
    }
    atomic_store_explicit(&c->countdown, fresh_gap(c), memory_order_relaxed);
    return atomic_load_explicit(&T.enabled, memory_order_relaxed) && T.initialised;
}

/* The walk's frames, stored from pcs on (sample() leaves room before them for the STACK record's
 * id and depth). */
struct walk {
    uintptr_t *pcs;
    uint32_t n;
};

static int collect(void *arg, uintptr_t pc)
{
    struct walk *w = arg;
    if (w->n == MSAMP_CFG_MAX_DEPTH) {
        w->n++; /* one more than fits: the stack was cut */
        return 0;
    }
    w->pcs[w->n++] = pc;
    return 1;
}

/* Records a sampled allocation p of size bytes; a REALLOC that frees old when old is tracked. */
static void sample(uintptr_t p, uintptr_t size, const void *frame, uintptr_t old)
{
    uintptr_t s[2u + MSAMP_CFG_MAX_DEPTH]; /* id, depth, frames */
    struct walk w = {s + 2, 0};
    msamp_port_walk(frame, collect, &w);
    msamp_port_lock_t key = msamp_port_lock();
    msamp_tiny_open();
    uint32_t n = w.n;
    if (n > MSAMP_CFG_MAX_DEPTH) {
        n = MSAMP_CFG_MAX_DEPTH;
        T.count[MSAMP_TINY_TRUNCATED]++;
    }

    /* The stack's id: stacks are never removed, so ids 1..stacks_used are taken in order and a
     * new stack gets the next one. A linear search of the hashes (FNV-1a of the frames). */
    uint32_t h = 2166136261u, id = 0, fresh = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t v = s[2u + i];
        h = (h ^ (uint32_t)v) * 16777619u;
        if (PTR_BITS > 32u)
            h = (h ^ (uint32_t)(v >> 32)) * 16777619u;
    }
    for (uint32_t i = 1; n != 0 && id == 0 && i <= T.stacks_used; i++)
        if (T.stack[i] == h)
            id = i;
    if (n != 0 && id == 0 && T.stacks_used + 1u < STACK_N) {
        id = T.stacks_used + 1u;
        fresh = 1;
    }
    if (id == 0 && n != 0)
        T.count[MSAMP_TINY_STACK_FULL]++;

    int32_t old_slot = old != 0 ? msamp_tiny_find(old) : -1;
    int32_t stale = msamp_tiny_find(p);
    if (stale >= 0 && stale != old_slot)
        add_free((uint32_t)stale); /* its free was never seen: the address is reused */
    if (old_slot >= 0)
        live_clear((uint32_t)old_slot);
    int32_t slot = slot_of(p, 0);
    if (slot < 0)
        T.count[MSAMP_TINY_LIVE_FULL]++;

    if (fresh) {
        /* id, depth, the first frame, then each frame as the zigzag of its difference to the
         * one before (the last first, so that each still has its predecessor). */
        for (uint32_t i = n + 1u; i > 2u; i--) {
            uintptr_t d = s[i] - s[i - 1u];
            s[i] = (d << 1) ^ (0u - (d >> (PTR_BITS - 1u)));
        }
        s[0] = id;
        s[1] = n;
        msamp_tiny_rec(MSAMP_REC_STACK, s, n + 2u, NULL, 0);
    }
    uintptr_t v[6] = {(uintptr_t)old_slot, (uintptr_t)(slot + 1), size, id, 0, p};
    v[4] = msamp_tiny_stamp();
    unsigned first = old_slot < 0;
    msamp_tiny_rec(old_slot >= 0 ? MSAMP_REC_REALLOC : MSAMP_REC_ALLOC, &v[first],
                   5u - first + (unsigned)MSAMP_CFG_SEND_ADDRESSES, NULL, 0);
    if (msamp_tiny_close(1) == 0 && fresh) {
        T.stack[id] = h; /* id is stacks_used + 1 */
        T.stacks_used = id;
    }
    /* Tracked even when the record was dropped: its FREE is then an unknown slot to the reader,
     * which it counts; not tracking it would lose nothing more. */
    if (slot >= 0) {
        live_set((uint32_t)slot, p);
        T.live_used++;
    }
    T.samples++;
    msamp_port_unlock(key);
}

/* ---- slow paths of the wrappers ---- */

void msamp_alloc_slow(struct msamp_context *c, void *p, size_t size, const void *frame)
{
    if (c->busy) {
        c->reentrant++;
        return;
    }
    c->busy = 1;
    if (decide(c, size) && p != NULL)
        sample((uintptr_t)p, size, frame, 0);
    c->busy = 0;
}

/* Frees old's slot, if it still has one. */
static void release(void *old)
{
    msamp_port_lock_t key = msamp_port_lock();
    int32_t slot = msamp_tiny_find((uintptr_t)old);
    if (slot >= 0) {
        msamp_tiny_open();
        add_free((uint32_t)slot);
        (void)msamp_tiny_close(1);
    }
    msamp_port_unlock(key);
}

void msamp_free_slow(struct msamp_context *c, void *p)
{
    if (msamp_tiny_find((uintptr_t)p) < 0)
        return; /* a fingerprint collision (or NULL): not a sampled block */
    if (c->busy) {
        c->reentrant++;
        return;
    }
    c->busy = 1;
    release(p);
    c->busy = 0;
}

void msamp_realloc_slow(struct msamp_context *c, void *old, void *p, size_t size,
                        const void *frame)
{
    if (c->busy) {
        c->reentrant++;
        return;
    }
    c->busy = 1;
    if (p != NULL && decide(c, size))
        sample((uintptr_t)p, size, frame, (uintptr_t)old);
    else
        release(old);
    c->busy = 0;
}

/* ---- init and the drain ---- */

int msamp_init(const struct msamp_config *cfg)
{
    uint64_t hz = msamp_port_time_hz();
    if (T.initialised)
        return MSAMP_ERR_STATE;
    if (hz == 0)
        return MSAMP_ERR_INVAL;
    uint32_t interval = cfg != NULL && cfg->interval != 0 ? cfg->interval : MSAMP_CFG_DEFAULT_INTERVAL;
    msamp_port_lock_t key = msamp_port_lock();
    while (hz > MSAMP_CFG_TIME_HZ) {
        hz >>= 1;
        T.shift++;
    }
    uint64_t entropy = msamp_port_entropy();
    uint64_t seed = cfg != NULL && cfg->seed != 0 ? cfg->seed : entropy;
    T.seed = (uint32_t)(seed ^ seed >> 32);
    /* Each byte of the id below 0x80 (28 random bits): then every SESSION field before the
     * build-id is a byte that reads the same as a one-byte varint. */
    uint32_t sid = (uint32_t)msamp_rng_seed(entropy ^ seed ^ (uintptr_t)&T) & 0x7F7F7F7Fu;
    atomic_store_explicit(&T.interval, interval, memory_order_relaxed);
    T.sent = UINT32_MAX; /* the first msamp_poll() sends the counters, zeros included */

    /* The boot header: SESSION (resend_seq 0) and the clock, in one frame. */
    msamp_tiny_open();
    const uint8_t *id;
    size_t id_len = msamp_port_build_id(&id);
    if (id_len > 64u)
        id_len = 0;
    const uintptr_t v[] = {MSAMP_WIRE_VERSION,
                           MSAMP_SESSION_ENDIAN |
                               (MSAMP_CFG_SEND_ADDRESSES ? MSAMP_SESSION_FLAG_ADDRESSES : 0u),
                           sid & 0xFFu, sid >> 8 & 0xFFu, sid >> 16 & 0xFFu, sid >> 24,
                           0 /* resend_seq */, MSAMP_ARCH_SELF, sizeof(uintptr_t), (uintptr_t)hz,
                           interval, LIVE_N, STACK_N, MSAMP_CFG_MAX_DEPTH, id_len};
    msamp_tiny_rec(MSAMP_REC_SESSION, v, sizeof v / sizeof v[0], id, (uint32_t)id_len);
    T.ts = UINT64_MAX; /* force an absolute TIME */
    (void)msamp_tiny_stamp();
    (void)msamp_tiny_close(1);

    atomic_store_explicit(&T.enabled, cfg != NULL && cfg->start_disabled ? 0 : 1,
                          memory_order_relaxed);
    T.initialised = 1;
    msamp_tiny_broadcast();
    msamp_port_unlock(key);
    return MSAMP_OK;
}

int msamp_poll(void)
{
    if (!T.initialised)
        return MSAMP_ERR_STATE;
    /* A DROPS record whenever a loss counter moved (counters only grow: the sum tells). */
    msamp_port_lock_t key = msamp_port_lock();
    T.count[MSAMP_TINY_REENTRANT] = msamp_tiny_reentrant();
    uintptr_t v[MSAMP_TINY_NCOUNT];
    uint32_t sum = 0;
    for (unsigned i = 0; i < MSAMP_TINY_NCOUNT; i++)
        sum += (uint32_t)(v[i] = T.count[i]);
    if (sum != T.sent) {
        msamp_tiny_open();
        msamp_tiny_rec(MSAMP_REC_DROPS, v, MSAMP_TINY_NCOUNT, NULL, 0);
        if (msamp_tiny_close(0) == 0)
            T.sent = sum;
    }
    msamp_port_unlock(key);

    /* The ring holds finished frames: hand its bytes to the transport as they are. */
    int total = 0;
    while (total < (int)MSAMP_CFG_RING_SIZE) {
        uint32_t tail = atomic_load_explicit(&T.tail, memory_order_relaxed);
        uint32_t avail = atomic_load_explicit(&T.head, memory_order_acquire) - tail;
        uint32_t run = MSAMP_CFG_RING_SIZE - (tail & RING_MASK);
        if (avail == 0)
            break;
        int w = msamp_transport_write(&T.ring[tail & RING_MASK], avail < run ? avail : run);
        if (w < 0)
            return MSAMP_ERR_IO;
        if (w == 0)
            break;
        atomic_store_explicit(&T.tail, tail + (uint32_t)w, memory_order_release);
        total += w;
    }
    return total;
}

int msamp_flush(void)
{
    int total = 0, n;
    do {
        n = msamp_poll();
        if (n < 0)
            return n;
        total += n;
    } while (n != 0);
    return total;
}
