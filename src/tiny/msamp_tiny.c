/* The tiny profile of the msamp core (-DMSAMP_CFG_TINY=1; MSAMP_PROFILE=tiny in port/msamp.mk):
 * the API of msamp.h, wire format v1 and the shared wrappers, in one file sized for Cortex-M
 * parts. What it keeps from the full core: Poisson sampling per context, a stack per sample,
 * sampled blocks tracked until freed (realloc as one block), exact loss counters, interval changes,
 * marks, a ring that never blocks. What it gives up, to keep a live slot one address and a stack
 * one 32-bit hash: snapshot passes and periodic re-sends (a reader must follow from boot), the
 * RAM-dump table, MAPPING records. Each event goes out as its own frame, COBS-encoded into the
 * ring when it happens, so the drain side is a byte copy; a sampled allocation costs about 7 bytes
 * more on the wire than with the full core. Two distinct stacks with the same 32-bit hash would
 * share an id (about 1 in 2^32 per pair). docs/TINY.md has the numbers. */
#include "msamp_internal.h"

#if !MSAMP_CFG_TINY
#error "src/tiny/ is the tiny profile: build it with -DMSAMP_CFG_TINY=1 (MSAMP_PROFILE=tiny)"
#endif

#define ARCH MSAMP_ARCH_SELF
#define ENDIAN MSAMP_SESSION_ENDIAN

#define LIVE_N MSAMP_CFG_LIVE_CAPACITY
#define WAYS MSAMP_CFG_LIVE_WAYS
#define STACK_N MSAMP_CFG_STACK_CAPACITY
#define RING_MASK (MSAMP_CFG_RING_SIZE - 1u)
#define PTR_BITS (sizeof(uintptr_t) * 8u)
/* As in the full core: finite while disabled, so a context that missed a broadcast re-checks. */
#define DISABLED_COUNTDOWN ((uintptr_t)1 << (PTR_BITS - 2u))
/* A dt that needs more than two varint bytes is preceded by an absolute TIME record. */
#define DT_LIMIT (1u << 14)
#define MAX_MARK 64u
#define V MSAMP_PTR_VARINT_MAX
/* Frame bodies: seq, records, CRC. The largest event: a TIME (absolute, 64-bit), a FREE of a stale
 * slot, a STACK, a REALLOC with an address. The boot header: SESSION (build-id up to 64 bytes) and
 * TIME. MARK and DROPS frames are smaller than the boot header. */
#define EVENT_MAX                                                                                  \
    (1u + (1u + 10u) + (1u + 2u * V) + (3u + 5u + 2u + MSAMP_CFG_MAX_DEPTH * V) + (1u + 6u * V) + 4u)
#define BOOT_MAX (1u + (3u + 9u + 5u * V + 1u + 64u) + (1u + 10u) + 4u)
#define FRAME_MAX (EVENT_MAX > BOOT_MAX ? EVENT_MAX : BOOT_MAX)
/* Its COBS encoding: a code byte per 254 bytes, one more, and the 0x00 delimiter. */
#define COBS_MAX(n) ((n) + (n) / 254u + 2u)
_Static_assert(COBS_MAX(FRAME_MAX) <= MSAMP_CFG_RING_SIZE, "MSAMP_CFG_RING_SIZE below one frame");
_Static_assert(FRAME_MAX <= MSAMP_WIRE_MAX_BODY, "frame body exceeds the wire maximum");

/* Helpers called from several places stay out of line: at -Os compilers still copy small
 * functions into each caller, and code size is what this profile is for. */
#define SMALL __attribute__((noinline))

/* Loss counters, in the order of the DROPS record. */
enum { RING_RECORDS, RING_BYTES, LIVE_FULL, STACK_FULL, REENTRANT, TRUNCATED, NCOUNT };

_Atomic uint32_t msamp_tiny_mask[MSAMP_LIVE_BUCKETS];

static struct {
    _Atomic uintptr_t live[LIVE_N]; /* sampled blocks by slot; 0: free */
    uint32_t stack[STACK_N];        /* hash of stack id i's frames (ids 1..stacks_used) */
    struct msamp_context *ctx[MSAMP_CFG_MAX_CONTEXTS];
    _Atomic uint32_t head, tail; /* free-running ring indexes: producers (locked), msamp_poll */
    _Atomic uint32_t gen;        /* bumped by every configuration change */
    _Atomic uint32_t interval;
    _Atomic uint8_t enabled;
    uint8_t initialised, seq, shift;
    uint32_t seed, registrations, session_id;
    uint32_t count[NCOUNT], sent; /* loss counters; the sum last sent in a DROPS record */
    uint32_t samples, frees, live_used, stacks_used;
    uint64_t last_ts; /* time of the last timed record put in the ring */
    uint8_t ring[MSAMP_CFG_RING_SIZE];
} t;

SMALL static uint64_t now(void)
{
    return msamp_port_time() >> t.shift;
}

/* ---- a frame under construction: seq, records, room for the CRC ---- */

struct frame {
    uint8_t *b;
    uint32_t n;       /* bytes so far, seq included */
    uint32_t records; /* records in it */
    uint64_t ts;      /* the time its timed records are relative to */
};

SMALL static void put(struct frame *f, uint64_t v)
{
    while (v >= 0x80u) {
        f->b[f->n++] = (uint8_t)(v | 0x80u);
        v >>= 7;
    }
    f->b[f->n++] = (uint8_t)v;
}

/* Finishes the record whose header byte is at `at` (payload after it). */
SMALL static void end(struct frame *f, uint32_t at, unsigned type)
{
    uint32_t len = f->n - at - 1u;
    f->records++;
    if (len <= MSAMP_WIRE_LEN_INLINE_MAX) {
        f->b[at] = (uint8_t)(type | len << 4);
        return;
    }
    /* Longer payloads (STACK, SESSION) are below 2^14 bytes: a 1- or 2-byte length after the
     * header. Move the payload up to make room. */
    uint32_t ln = len < 0x80u ? 1u : 2u;
    for (uint32_t i = f->n; i-- > at + 1u;)
        f->b[i + ln] = f->b[i];
    f->b[at] = (uint8_t)(type | MSAMP_WIRE_LEN_EXTENDED << 4);
    f->n = at + 1u;
    put(f, len);
    f->n = at + 1u + ln + len;
}

SMALL static void puts_(struct frame *f, const uintptr_t *v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        put(f, v[i]);
}

/* A record of varints only. */
SMALL static void rec(struct frame *f, unsigned type, const uintptr_t *v, unsigned n)
{
    uint32_t at = f->n++;
    puts_(f, v, n);
    end(f, at, type);
}

/* dt of an event at ts, after a TIME record when it would not fit two bytes. */
SMALL static uintptr_t dt(struct frame *f, uint64_t ts)
{
    uint64_t d = ts - f->ts;
    if (ts < f->ts || d >= DT_LIMIT) {
        uint32_t at = f->n++;
        put(f, ts);
        end(f, at, MSAMP_REC_TIME);
        d = 0;
    }
    f->ts = ts;
    return (uintptr_t)d;
}

SMALL static uint32_t crc32(const uint8_t *p, uint32_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    while (n--) {
        c ^= *p++;
        for (unsigned k = 0; k < 8u; k++)
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

/* Seals the frame and puts it, COBS-encoded and delimited, into the ring, and moves the stream's
 * clock on; 0 when put. When it does not fit, nothing is put, and the records are counted as
 * dropped if `lossy` (an event), not if the caller reports the refusal (MSAMP_ERR_BUSY) or sends
 * them again later (DROPS). Caller holds the lock. */
SMALL static int send(struct frame *f, int lossy)
{
    uint32_t head = atomic_load_explicit(&t.head, memory_order_relaxed);
    uint32_t tail = atomic_load_explicit(&t.tail, memory_order_acquire);
    uint32_t n = f->n;
    if (COBS_MAX(n + 4u) > MSAMP_CFG_RING_SIZE - (head - tail)) {
        if (lossy) {
            t.count[RING_RECORDS] += f->records;
            t.count[RING_BYTES] += n - 1u;
        }
        return -1;
    }
    f->b[0] = t.seq++;
    uint32_t crc = crc32(f->b, n);
    for (unsigned i = 0; i < 4u; i++)
        f->b[n++] = (uint8_t)(crc >> (8u * i));
    /* COBS: each block of up to 254 non-zero bytes is led by its length + 1; a block shorter than
     * 254 stands for the zero that ends it. */
    uint32_t code_at = head++;
    uint8_t code = 1;
    for (uint32_t i = 0; i < n; i++) {
        if (code == 0xFFu) {
            t.ring[code_at & RING_MASK] = code;
            code_at = head++;
            code = 1;
        }
        if (f->b[i] == 0) {
            t.ring[code_at & RING_MASK] = code;
            code_at = head++;
            code = 1;
        } else {
            t.ring[head++ & RING_MASK] = f->b[i];
            code++;
        }
    }
    t.ring[code_at & RING_MASK] = code;
    t.ring[head++ & RING_MASK] = 0;
    atomic_store_explicit(&t.head, head, memory_order_release);
    t.last_ts = f->ts;
    return 0;
}

#define FRAME(name, buf)                                                                           \
    uint8_t buf[FRAME_MAX];                                                                        \
    struct frame name = {buf, 1u, 0u, t.last_ts}

/* ---- the live table: address-only slots in buckets of WAYS ---- */

/* The slot of p's bucket holding `want` (p itself, or 0 for a free one), or -1. */
SMALL static int32_t slot_of(uintptr_t p, uintptr_t want)
{
    uint32_t base = msamp_tiny_bucket(msamp_tiny_hash(p)) * WAYS;
    for (uint32_t w = 0; w < WAYS; w++)
        if (atomic_load_explicit(&t.live[base + w], memory_order_relaxed) == want)
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
    atomic_store_explicit(&t.live[slot], p, memory_order_release);
    uint32_t base = slot / WAYS * WAYS, mask = 0;
    for (uint32_t w = 0; w < WAYS; w++) {
        uintptr_t a = atomic_load_explicit(&t.live[base + w], memory_order_relaxed);
        if (a != 0)
            mask |= msamp_tiny_bit(msamp_tiny_hash(a));
    }
    atomic_store_explicit(&msamp_tiny_mask[slot / WAYS], mask, memory_order_relaxed);
}

SMALL static void live_clear(uint32_t slot)
{
    live_set(slot, 0);
    t.live_used--;
    t.frees++;
}

/* Adds a FREE of a slot to the frame and empties the slot. */
SMALL static void add_free(struct frame *f, uint32_t slot, uint64_t ts)
{
    uintptr_t v[2] = {slot, 0};
    v[1] = dt(f, ts);
    rec(f, MSAMP_REC_FREE, v, 2);
    live_clear(slot);
}

/* ---- contexts and the sampling decision ---- */

SMALL static void broadcast(void)
{
    atomic_fetch_add_explicit(&t.gen, 1, memory_order_relaxed);
    for (uint32_t i = 0; i < MSAMP_CFG_MAX_CONTEXTS; i++)
        if (t.ctx[i] != NULL)
            atomic_store_explicit(&t.ctx[i]->countdown, 0, memory_order_relaxed);
}

void msamp_context_detach(struct msamp_context *c)
{
    msamp_port_lock_t key = msamp_port_lock();
    for (uint32_t i = 0; i < MSAMP_CFG_MAX_CONTEXTS; i++)
        if (t.ctx[i] == c)
            t.ctx[i] = NULL;
    c->index = 0;
    msamp_port_unlock(key);
}

SMALL static uintptr_t fresh_gap(struct msamp_context *c)
{
    if (!atomic_load_explicit(&t.enabled, memory_order_relaxed))
        return DISABLED_COUNTDOWN;
    return msamp_draw_gap(&c->rng, atomic_load_explicit(&t.interval, memory_order_relaxed));
}

/* 1 when an allocation of size bytes is sampled; updates the context's countdown either way. */
static int decide(struct msamp_context *c, size_t size)
{
    uint32_t gen = atomic_load_explicit(&t.gen, memory_order_relaxed);
    if (c->index == 0) {
        /* First allocation here: join the registry (for broadcasts), seed the generator. */
        msamp_port_lock_t key = msamp_port_lock();
        c->rng = msamp_rng_seed(t.seed + ++t.registrations);
        c->index = 1;
        for (uint32_t i = 0; i < MSAMP_CFG_MAX_CONTEXTS; i++) {
            if (t.ctx[i] == NULL) {
                t.ctx[i] = c;
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
    return atomic_load_explicit(&t.enabled, memory_order_relaxed) && t.initialised;
}

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
    uintptr_t pcs[MSAMP_CFG_MAX_DEPTH];
    struct walk w = {pcs, 0};
    msamp_port_walk(frame, collect, &w);
    msamp_port_lock_t key = msamp_port_lock();
    FRAME(f, buf);
    uint64_t ts = now();
    uint32_t n = w.n;
    if (n > MSAMP_CFG_MAX_DEPTH) {
        n = MSAMP_CFG_MAX_DEPTH;
        t.count[TRUNCATED]++;
    }

    /* The stack's id: stacks are never removed, so ids 1..stacks_used are taken in order and a
     * new stack gets the next one. A linear search of the hashes (FNV-1a of the frames). */
    uint32_t h = 2166136261u, id = 0, fresh = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t v = pcs[i];
        h = (h ^ (uint32_t)v) * 16777619u;
        if (PTR_BITS > 32u)
            h = (h ^ (uint32_t)(v >> 32)) * 16777619u;
    }
    for (uint32_t i = 1; n != 0 && id == 0 && i <= t.stacks_used; i++)
        if (t.stack[i] == h)
            id = i;
    if (n != 0 && id == 0 && t.stacks_used + 1u < STACK_N) {
        id = t.stacks_used + 1u;
        fresh = 1;
    }
    if (id == 0 && n != 0)
        t.count[STACK_FULL]++;

    int32_t old_slot = old != 0 ? msamp_tiny_find(old) : -1;
    int32_t stale = msamp_tiny_find(p);
    if (stale >= 0 && stale != old_slot)
        add_free(&f, (uint32_t)stale, ts); /* its free was never seen: the address is reused */
    if (old_slot >= 0)
        live_clear((uint32_t)old_slot);
    int32_t slot = slot_of(p, 0);
    if (slot < 0)
        t.count[LIVE_FULL]++;

    if (fresh) {
        uint32_t at = f.n++;
        put(&f, id);
        put(&f, n);
        put(&f, pcs[0]);
        for (uint32_t i = 1; i < n; i++) {
            uintptr_t d = pcs[i] - pcs[i - 1u];
            put(&f, (d << 1) ^ (0u - (d >> (PTR_BITS - 1u)))); /* zigzag */
        }
        end(&f, at, MSAMP_REC_STACK);
    }
    uintptr_t v[6] = {(uintptr_t)old_slot, (uintptr_t)(slot + 1), size, id, 0, p};
    v[4] = dt(&f, ts);
    unsigned first = old_slot < 0;
    rec(&f, old_slot >= 0 ? MSAMP_REC_REALLOC : MSAMP_REC_ALLOC, &v[first],
        5u - first + (unsigned)MSAMP_CFG_SEND_ADDRESSES);
    if (send(&f, 1) == 0 && fresh) {
        t.stack[id] = h; /* id is stacks_used + 1 */
        t.stacks_used = id;
    }
    /* Tracked even when the record was dropped: its FREE is then an unknown slot to the reader,
     * which it counts; not tracking it would lose nothing more. */
    if (slot >= 0) {
        live_set((uint32_t)slot, p);
        t.live_used++;
    }
    t.samples++;
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
        FRAME(f, buf);
        add_free(&f, (uint32_t)slot, now());
        (void)send(&f, 1);
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

/* ---- public API ---- */

int msamp_init(const struct msamp_config *cfg)
{
    uint64_t hz = msamp_port_time_hz();
    if (t.initialised)
        return MSAMP_ERR_STATE;
    if (hz == 0)
        return MSAMP_ERR_INVAL;
    uint32_t interval = cfg != NULL && cfg->interval != 0 ? cfg->interval : MSAMP_CFG_DEFAULT_INTERVAL;
    msamp_port_lock_t key = msamp_port_lock();
    while (hz > MSAMP_CFG_TIME_HZ) {
        hz >>= 1;
        t.shift++;
    }
    uint64_t entropy = msamp_port_entropy();
    uint64_t seed = cfg != NULL && cfg->seed != 0 ? cfg->seed : entropy;
    t.seed = (uint32_t)(seed ^ seed >> 32);
    /* Each byte of the id below 0x80 (28 random bits): then every SESSION field before the
     * build-id is a byte that reads the same as a one-byte varint, and one loop writes them. */
    uint32_t sid = (uint32_t)msamp_rng_seed(entropy ^ seed ^ (uintptr_t)&t) & 0x7F7F7F7Fu;
    atomic_store_explicit(&t.interval, interval, memory_order_relaxed);
    t.sent = UINT32_MAX; /* the first msamp_poll() sends the counters, zeros included */

    /* The boot header: SESSION (resend_seq 0) and the clock, in one frame. */
    FRAME(f, buf);
    const uint8_t *id;
    size_t id_len = msamp_port_build_id(&id);
    if (id_len > 64u)
        id_len = 0;
    const uintptr_t v[] = {MSAMP_WIRE_VERSION,
                           ENDIAN | (MSAMP_CFG_SEND_ADDRESSES ? MSAMP_SESSION_FLAG_ADDRESSES : 0u),
                           sid & 0xFFu, sid >> 8 & 0xFFu, sid >> 16 & 0xFFu, sid >> 24,
                           0 /* resend_seq */, ARCH, sizeof(uintptr_t), (uintptr_t)hz, interval,
                           LIVE_N, STACK_N, MSAMP_CFG_MAX_DEPTH, id_len};
    uint32_t at = f.n++;
    puts_(&f, v, sizeof v / sizeof v[0]);
    for (size_t i = 0; i < id_len; i++)
        f.b[f.n++] = id[i];
    end(&f, at, MSAMP_REC_SESSION);
    f.ts = UINT64_MAX; /* force an absolute TIME */
    (void)dt(&f, now());
    (void)send(&f, 1);

    atomic_store_explicit(&t.enabled, cfg != NULL && cfg->start_disabled ? 0 : 1,
                          memory_order_relaxed);
    t.initialised = 1;
    broadcast();
    msamp_port_unlock(key);
    return MSAMP_OK;
}

static int set_enabled(uint8_t on)
{
    if (!t.initialised)
        return MSAMP_ERR_STATE;
    msamp_port_lock_t key = msamp_port_lock();
    atomic_store_explicit(&t.enabled, on, memory_order_relaxed);
    broadcast();
    msamp_port_unlock(key);
    return MSAMP_OK;
}

int msamp_enable(void)
{
    return set_enabled(1);
}

int msamp_disable(void)
{
    return set_enabled(0);
}

int msamp_set_interval(uint32_t interval)
{
    if (interval == 0)
        return MSAMP_ERR_INVAL;
    if (!t.initialised)
        return MSAMP_ERR_STATE;
    msamp_port_lock_t key = msamp_port_lock();
    FRAME(f, buf);
    uintptr_t v[2] = {interval, 0};
    v[1] = dt(&f, now());
    rec(&f, MSAMP_REC_INTERVAL, v, 2);
    int rc = MSAMP_ERR_BUSY;
    if (send(&f, 0) == 0) {
        atomic_store_explicit(&t.interval, interval, memory_order_relaxed);
        broadcast();
        rc = MSAMP_OK;
    }
    msamp_port_unlock(key);
    return rc;
}

int msamp_snapshot(void)
{
    return t.initialised ? MSAMP_ERR_UNSUPPORTED : MSAMP_ERR_STATE;
}

int msamp_mark(const char *text, size_t len)
{
    if (text == NULL || len > MAX_MARK)
        return MSAMP_ERR_INVAL;
    if (!t.initialised)
        return MSAMP_ERR_STATE;
    msamp_port_lock_t key = msamp_port_lock();
    FRAME(f, buf);
    uint32_t at = f.n++;
    for (size_t i = 0; i < len; i++)
        f.b[f.n++] = (uint8_t)text[i];
    end(&f, at, MSAMP_REC_MARK);
    int rc = send(&f, 0) == 0 ? MSAMP_OK : MSAMP_ERR_BUSY;
    msamp_port_unlock(key);
    return rc;
}

static uint32_t reentrant(void)
{
    uint32_t r = 0;
    for (uint32_t i = 0; i < MSAMP_CFG_MAX_CONTEXTS; i++)
        if (t.ctx[i] != NULL)
            r += t.ctx[i]->reentrant;
    return r;
}

int msamp_poll(void)
{
    if (!t.initialised)
        return MSAMP_ERR_STATE;
    /* A DROPS record whenever a loss counter moved (counters only grow: the sum tells). */
    msamp_port_lock_t key = msamp_port_lock();
    t.count[REENTRANT] = reentrant();
    uintptr_t v[NCOUNT];
    uint32_t sum = 0;
    for (unsigned i = 0; i < NCOUNT; i++)
        sum += (uint32_t)(v[i] = t.count[i]);
    if (sum != t.sent) {
        FRAME(f, buf);
        rec(&f, MSAMP_REC_DROPS, v, NCOUNT);
        if (send(&f, 0) == 0)
            t.sent = sum;
    }
    msamp_port_unlock(key);

    /* The ring holds finished frames: hand its bytes to the transport as they are. */
    int total = 0;
    while (total < (int)MSAMP_CFG_RING_SIZE) {
        uint32_t tail = atomic_load_explicit(&t.tail, memory_order_relaxed);
        uint32_t avail = atomic_load_explicit(&t.head, memory_order_acquire) - tail;
        uint32_t run = MSAMP_CFG_RING_SIZE - (tail & RING_MASK);
        if (avail == 0)
            break;
        int w = msamp_transport_write(&t.ring[tail & RING_MASK], avail < run ? avail : run);
        if (w < 0)
            return MSAMP_ERR_IO;
        if (w == 0)
            break;
        atomic_store_explicit(&t.tail, tail + (uint32_t)w, memory_order_release);
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

int msamp_get_stats(struct msamp_stats *out)
{
    if (out == NULL)
        return MSAMP_ERR_INVAL;
    msamp_port_lock_t key = msamp_port_lock();
    *out = (struct msamp_stats){
        .samples = t.samples,
        .frees = t.frees,
        .ring_records = t.count[RING_RECORDS],
        .ring_bytes = t.count[RING_BYTES],
        .live_full = t.count[LIVE_FULL],
        .stack_full = t.count[STACK_FULL],
        .reentrant = reentrant(),
        .truncated = t.count[TRUNCATED],
        .live_used = t.live_used,
        .live_capacity = LIVE_N,
        .stacks_used = t.stacks_used,
        .stack_capacity = STACK_N - 1u,
        .ring_used = atomic_load_explicit(&t.head, memory_order_relaxed) -
                     atomic_load_explicit(&t.tail, memory_order_relaxed),
        .ring_size = MSAMP_CFG_RING_SIZE,
        .interval = atomic_load_explicit(&t.interval, memory_order_relaxed),
        .enabled = atomic_load_explicit(&t.enabled, memory_order_relaxed),
    };
    msamp_port_unlock(key);
    return MSAMP_OK;
}
