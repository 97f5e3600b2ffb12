/* The tables in the RAM-dump block (!MSAMP_CFG_COMPACT_TABLES; layout in include/msamp_heapdump.h).
 * Live slots (msamp_live.c) with each block's size, stack, birth and interval beside its address.
 * Stacks: entries by id, found through an open-addressing index by hash (derived data, outside the
 * block), frames in one shared pool, each stack's frames after a header word holding its id. A
 * stack no live slot refers to may be evicted for a new one: its entry is freed, its frames become
 * a hole, and the pool is compacted (in order, by the header words) when the holes are needed. */
#include "msamp_internal.h"

#if !MSAMP_CFG_COMPACT_TABLES

#define D msamp_heapdump
/* A pool word that starts a hole of (word & ~HOLE) words, where an evicted stack was. */
#define HOLE ((uintptr_t)1 << (sizeof(uintptr_t) * 8u - 1u))

/* Kept across a reset (.noinit.msamp): its session id seeds the next boot's; with MSAMP_KEEP the
 * arrays too. */
MSAMP_NOINIT_BEGIN
struct msamp_heapdump_v3 msamp_heapdump MSAMP_NOINIT;
MSAMP_NOINIT_END

static struct {
    uint16_t *index;      /* STACK_CAP positions: a stack id, 0 empty */
    uint32_t next_fresh;  /* the lowest id never used */
    uint32_t free_head;   /* evicted ids, chained through their entry's `first` (0: none) */
    uint32_t hole_words;  /* pool words in holes */
    uint32_t referenced;  /* stacks with refs > 0 */
    uint32_t evicted;
    uint32_t evict_cursor;
} t;

#if MSAMP_CFG_RUNTIME_TABLES
/* Until init maps the tables, one bucket: a free before msamp_init() (a constructor's, or with
 * profiling off) finds nothing sampled in the masks (msamp_live.c), all zero. */
uint32_t msamp_live_buckets = 1;

/* Carves n elements of `size` bytes, aligned to `align`, off *at. */
static void *carve(uintptr_t *at, size_t n, size_t size, size_t align)
{
    uintptr_t p = (*at + align - 1u) & ~(uintptr_t)(align - 1u);
    *at = p + n * size;
    return (void *)p;
}

static int setup(void)
{
    uint32_t live = MSAMP_CFG_LIVE_CAPACITY, stacks = MSAMP_CFG_STACK_CAPACITY,
             frames = MSAMP_CFG_FRAME_POOL;
    msamp_port_table_caps(&live, &stacks, &frames);
    if (!MSAMP_IS_POW2(live) || live < MSAMP_CFG_LIVE_WAYS || live > (1u << 24) ||
        !MSAMP_IS_POW2(stacks) || stacks < 2u || stacks > 65536u ||
        frames < MSAMP_CFG_MAX_DEPTH + 1u || frames > (1u << 28))
        return MSAMP_ERR_INVAL;
    uintptr_t at = 0; /* a dry run from 0 sizes the block */
    for (int pass = 0; pass < 2; pass++) {
        D.live_addr = carve(&at, live, sizeof(uintptr_t), sizeof(uintptr_t));
        D.live_size = carve(&at, live, sizeof(uintptr_t), sizeof(uintptr_t));
        D.frames = carve(&at, frames, sizeof(uintptr_t), sizeof(uintptr_t));
        D.stacks = carve(&at, stacks, sizeof(struct msamp_stack_entry_v3), 4);
        D.live_stack = carve(&at, live, sizeof(uint32_t), 4);
        D.live_birth = carve(&at, live, sizeof(uint32_t), 4);
        D.live_interval = carve(&at, live, sizeof(uint32_t), 4);
        t.index = carve(&at, stacks, sizeof(uint16_t), 2);
        if (pass == 0) {
            void *mem = msamp_port_table_memory((size_t)at);
            if (mem == NULL)
                return MSAMP_ERR_IO;
            at = (uintptr_t)mem;
        }
    }
    D.live_capacity = live;
    D.stack_capacity = stacks;
    D.frame_capacity = frames;
    msamp_live_buckets = live / MSAMP_CFG_LIVE_WAYS; /* the masks' layout does not depend on it */
    return MSAMP_OK;
}
#else
_Static_assert(MSAMP_CFG_FRAME_POOL >= MSAMP_CFG_MAX_DEPTH + 1, "frame pool below one stack");
_Static_assert(MSAMP_CFG_STACK_CAPACITY <= 65536, "MSAMP_CFG_STACK_CAPACITY: at most 65536");
MSAMP_KEPT_BEGIN
static _Atomic uintptr_t live_addr[MSAMP_CFG_LIVE_CAPACITY] MSAMP_KEPT;
static uintptr_t live_size[MSAMP_CFG_LIVE_CAPACITY] MSAMP_KEPT;
static uint32_t live_stack[MSAMP_CFG_LIVE_CAPACITY] MSAMP_KEPT,
    live_birth[MSAMP_CFG_LIVE_CAPACITY] MSAMP_KEPT, live_interval[MSAMP_CFG_LIVE_CAPACITY] MSAMP_KEPT;
static struct msamp_stack_entry_v3 stacks[MSAMP_CFG_STACK_CAPACITY] MSAMP_KEPT;
static uintptr_t frames[MSAMP_CFG_FRAME_POOL] MSAMP_KEPT;
MSAMP_KEPT_END
static uint16_t stack_index[MSAMP_CFG_STACK_CAPACITY];

static int setup(void)
{
    D.live_addr = live_addr;
    D.live_size = live_size;
    D.live_stack = live_stack;
    D.live_birth = live_birth;
    D.live_interval = live_interval;
    D.stacks = stacks;
    D.frames = frames;
    t.index = stack_index;
    D.live_capacity = MSAMP_CFG_LIVE_CAPACITY;
    D.stack_capacity = MSAMP_CFG_STACK_CAPACITY;
    D.frame_capacity = MSAMP_CFG_FRAME_POOL;
    return MSAMP_OK;
}

#if MSAMP_KEEP
int msamp_table_kept(void)
{
    return atomic_load_explicit(&D.magic, memory_order_relaxed) == MSAMP_HEAPDUMP_MAGIC &&
           D.version == MSAMP_HEAPDUMP_VERSION && D.ptr_size == sizeof(uintptr_t) && D.flags == 0 &&
           D.live_capacity == MSAMP_CFG_LIVE_CAPACITY && D.live_ways == MSAMP_CFG_LIVE_WAYS &&
           D.stack_capacity == MSAMP_CFG_STACK_CAPACITY && D.frame_capacity == MSAMP_CFG_FRAME_POOL &&
           D.max_depth == MSAMP_CFG_MAX_DEPTH && D.live_addr == live_addr &&
           D.live_size == live_size && D.live_stack == live_stack && D.live_birth == live_birth &&
           D.live_interval == live_interval && D.stacks == stacks && D.frames == frames;
}

uint32_t msamp_stack_kept(uint32_t id, const uintptr_t **pcs)
{
    if (id == 0 || id >= MSAMP_CFG_STACK_CAPACITY)
        return 0;
    const struct msamp_stack_entry_v3 *e = &stacks[id];
    if (e->depth == 0 || e->depth > MSAMP_CFG_MAX_DEPTH || e->first == 0 ||
        e->first > (uint32_t)MSAMP_CFG_FRAME_POOL - e->depth)
        return 0;
    *pcs = &frames[e->first];
    return e->depth;
}

void msamp_stacks_unmark(void)
{
    for (uint32_t i = 0; i < MSAMP_CFG_STACK_CAPACITY; i++)
        stacks[i].pass = 0;
}
#endif
#endif

int msamp_table_reset(void)
{
    int rc = setup();
    if (rc != MSAMP_OK)
        return rc;
    msamp_live_reset();
#if !MSAMP_CFG_RUNTIME_TABLES /* else fresh zeroed memory, left untouched (msamp_live_reset) */
    for (uint32_t i = 0; i < MSAMP_STACK_CAP; i++) {
        D.stacks[i] = (struct msamp_stack_entry_v3){0, 0, 0, 0, 0};
        t.index[i] = 0;
    }
#endif
    D.live_used = 0;
    D.stacks_used = 0;
    D.frames_used = 0;
    t.next_fresh = 1;
    t.free_head = 0;
    t.hole_words = 0;
    t.referenced = 0;
    t.evicted = 0;
    t.evict_cursor = 1;
    return MSAMP_OK;
}

void msamp_table_describe(uint32_t session_id, uint32_t interval, uint32_t tick_hz)
{
    D.version = MSAMP_HEAPDUMP_VERSION;
    D.ptr_size = (uint16_t)sizeof(uintptr_t);
    D.flags = 0;
    D.live_ways = MSAMP_CFG_LIVE_WAYS;
    D.max_depth = MSAMP_CFG_MAX_DEPTH;
    D.session_id = session_id;
    D.interval = interval;
    D.tick_hz = tick_hz;
    atomic_store_explicit(&D.magic, MSAMP_HEAPDUMP_MAGIC, memory_order_release);
}

/* One more (+1) or one fewer (-1) live slot uses stack id. */
static void reference(uint32_t id, int d)
{
    if (id == 0 || id >= MSAMP_STACK_CAP)
        return;
    struct msamp_stack_entry_v3 *e = &D.stacks[id];
    if (d > 0 && e->refs++ == 0)
        t.referenced++;
    else if (d < 0 && e->refs != 0 && --e->refs == 0)
        t.referenced--;
}

void msamp_live_set(uint32_t slot, uintptr_t p, uintptr_t size, uint32_t stack, uint32_t birth,
                    uint32_t interval)
{
    D.live_size[slot] = size;
    D.live_stack[slot] = stack;
    D.live_birth[slot] = birth;
    D.live_interval[slot] = interval;
    reference(stack, 1);
    D.live_used++;
    msamp_live_publish(slot, p);
}

void msamp_live_clear(uint32_t slot)
{
    msamp_live_publish(slot, 0);
    D.live_used--;
    reference(D.live_stack[slot], -1);
}

uint32_t msamp_live_used(void)
{
    return D.live_used;
}

uintptr_t msamp_live_thin_size(uint32_t slot)
{
    return D.live_size[slot];
}

uint32_t msamp_live_interval(uint32_t slot)
{
    return D.live_interval[slot];
}

void msamp_live_set_interval(uint32_t slot, uint32_t interval)
{
    D.live_interval[slot] = interval;
}

uintptr_t msamp_live_addr(uint32_t slot)
{
    return atomic_load_explicit(&D.live_addr[slot], memory_order_relaxed);
}

void msamp_live_get(uint32_t slot, struct msamp_live_entry *e)
{
    e->addr = atomic_load_explicit(&D.live_addr[slot], memory_order_relaxed);
    e->size = D.live_size[slot];
    e->stack = D.live_stack[slot];
    e->birth = D.live_birth[slot];
    e->interval = D.live_interval[slot];
}

static uint32_t hash_frames(const uintptr_t *pcs, uint32_t n)
{
    /* FNV-1a over the words, then a final avalanche: cheap, and spreads nearby addresses. */
    uint32_t h = 2166136261u;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t v = (uint64_t)pcs[i];
        h = (h ^ (uint32_t)v) * 16777619u;
        h = (h ^ (uint32_t)(v >> 32)) * 16777619u;
    }
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    return h;
}

static int same_frames(const struct msamp_stack_entry_v3 *e, const uintptr_t *pcs, uint32_t n)
{
    if (e->depth != n)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        if (D.frames[e->first + i] != pcs[i])
            return 0;
    return 1;
}

/* Takes id out of the index (backward-shift deletion: the probe chains stay whole). */
static void index_remove(uint32_t id)
{
    uint32_t mask = MSAMP_STACK_CAP - 1u, i = D.stacks[id].hash & mask;
    while (t.index[i] != id)
        i = (i + 1u) & mask;
    for (uint32_t j = (i + 1u) & mask; t.index[j] != 0; j = (j + 1u) & mask) {
        uint32_t home = D.stacks[t.index[j]].hash & mask;
        /* The entry at j may move to the hole at i unless its home lies cyclically in (i, j]. */
        int stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
        if (!stays) {
            t.index[i] = t.index[j];
            i = j;
        }
    }
    t.index[i] = 0;
}

/* Evicts one stack no live slot uses: 1, or 0 when every stack is in use. */
static int evict_one(void)
{
    if (t.referenced >= D.stacks_used)
        return 0;
    for (uint32_t k = 1; k < MSAMP_STACK_CAP; k++) {
        uint32_t id = t.evict_cursor;
        t.evict_cursor = id + 1u < MSAMP_STACK_CAP ? id + 1u : 1u;
        struct msamp_stack_entry_v3 *e = &D.stacks[id];
        if (e->depth == 0 || e->refs != 0)
            continue;
        uint32_t words = e->depth + 1u;
        e->depth = 0; /* a dump no longer sees it */
        atomic_signal_fence(memory_order_release);
        index_remove(id);
        D.frames[e->first - 1u] = HOLE | words;
        t.hole_words += words;
        e->first = t.free_head;
        t.free_head = id;
        D.stacks_used--;
        t.evicted++;
        return 1;
    }
    return 0;
}

/* Moves every stack's frames down over the holes, in pool order. */
static void compact(void)
{
    uint32_t r = 0, w = 0;
    while (r < D.frames_used) {
        uintptr_t hdr = D.frames[r];
        if (hdr & HOLE) {
            r += (uint32_t)(hdr & ~HOLE);
            continue;
        }
        struct msamp_stack_entry_v3 *e = &D.stacks[hdr];
        uint32_t depth = e->depth, words = depth + 1u;
        if (r != w) {
            e->depth = 0; /* hidden from a dump while its frames move */
            atomic_signal_fence(memory_order_release);
            for (uint32_t k = 0; k < words; k++)
                D.frames[w + k] = D.frames[r + k];
            e->first = w + 1u;
            atomic_signal_fence(memory_order_release);
            e->depth = (uint16_t)depth;
        }
        r += words;
        w += words;
    }
    D.frames_used = w;
    t.hole_words = 0;
}

/* Room for one more stack of `words` pool words (its header included): 1, or 0 when evicting
 * every unused stack would not make it. */
static int make_room(uint32_t words)
{
    for (;;) {
        int id_free = D.stacks_used + 2u <= MSAMP_STACK_CAP;
        if (id_free && D.frames_used + words <= MSAMP_FRAME_CAP)
            return 1;
        if (id_free && D.frames_used - t.hole_words + words <= MSAMP_FRAME_CAP) {
            compact();
            return 1;
        }
        if (!evict_one())
            return 0;
    }
}

uint32_t msamp_stack_intern(const uintptr_t *pcs, uint32_t n)
{
    if (n == 0)
        return 0;
    uint32_t h = hash_frames(pcs, n), mask = MSAMP_STACK_CAP - 1u, i = h & mask;
    for (; t.index[i] != 0; i = (i + 1u) & mask) { /* the index always has an empty position */
        struct msamp_stack_entry_v3 *e = &D.stacks[t.index[i]];
        if (e->hash == h && same_frames(e, pcs, n))
            return t.index[i];
    }
    if (!make_room(n + 1u))
        return MSAMP_WIRE_STACK_FULL;
    uint32_t id;
    if (t.free_head != 0) {
        id = t.free_head;
        t.free_head = D.stacks[id].first;
    } else {
        id = t.next_fresh++;
    }
    /* make_room may have moved entries of the index: find an empty position again. */
    for (i = h & mask; t.index[i] != 0;)
        i = (i + 1u) & mask;
    struct msamp_stack_entry_v3 *e = &D.stacks[id];
    D.frames[D.frames_used] = id;
    for (uint32_t k = 0; k < n; k++)
        D.frames[D.frames_used + 1u + k] = pcs[k];
    e->hash = h;
    e->first = D.frames_used + 1u;
    e->pass = 0;
    e->refs = 0;
    D.frames_used += n + 1u;
    D.stacks_used++;
    t.index[i] = (uint16_t)id;
    /* Depth last: a dump reader sees the entry only once it is complete. */
    atomic_signal_fence(memory_order_release);
    e->depth = (uint16_t)n;
    return id;
}

static int real_id(uint32_t id)
{
    return id != 0 && id < MSAMP_STACK_CAP;
}

int msamp_stack_unsent(uint32_t id, uint32_t pass)
{
    return real_id(id) && D.stacks[id].pass != (uint16_t)pass;
}

void msamp_stack_sent(uint32_t id, uint32_t pass)
{
    if (real_id(id))
        D.stacks[id].pass = (uint16_t)pass;
}

uint32_t msamp_stacks_used(void)
{
    return D.stacks_used;
}

uint32_t msamp_stacks_referenced(void)
{
    return t.referenced;
}

uint32_t msamp_stacks_evicted(void)
{
    return t.evicted;
}

uint32_t msamp_frames_used(void)
{
    return D.frames_used - t.hole_words;
}

uint32_t msamp_stack_frames(uint32_t id, const uintptr_t **pcs)
{
    if (!real_id(id) || D.stacks[id].depth == 0)
        return 0;
    *pcs = &D.frames[D.stacks[id].first];
    return D.stacks[id].depth;
}

#endif
