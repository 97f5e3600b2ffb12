/* What survives a reset (docs/POSTMORTEM.md#a-profile-that-survives-a-reset), in section
 * .noinit.msamp (port/msamp.ld places it NOLOAD in RAM: neither loaded nor zeroed at start-up):
 * - the RAM-dump block's header of the full tables (msamp_table_dump.c; not the compact tables'):
 *   init mixes the previous boot's session id, when its magic is there, into the new one, so warm
 *   boots of a device without entropy draw different ids (a chain: each id from the one before).
 * - MSAMP_KEEP (MSAMP_CFG_RESET_PROFILE, the static full tables): the tables themselves
 *   (msamp_table_dump.c puts them in the section) and the block below, the session's identity and
 *   its keep_figures as of the last msamp_poll() or msamp_note_reset(). The next boot's msamp_init()
 *   checks it (magic, CRC-32, the build-id's hash, the tables' header) and sends that session's
 *   end before its own: SESSION (flag PREVIOUS), TIME, a snapshot pass of the kept live set,
 *   HEAP, RESET (include/msamp_wire.h). */
#include "msamp_internal.h"

#define G msamp_core

#if MSAMP_KEEP
#define KEEP_MAGIC 0x4B50534Du /* "MSPK" */
/* 1: this layout; its size is checked too. */
#define KEEP_VERSION 1u
/* Transport calls that take nothing before the replay gives up (a link that is not up). */
#define KEEP_IDLE 100000u

/* The identity is written once, at msamp_init, and sealed by a CRC-32. The figures change at every
 * msamp_poll(): two copies, each sealed by a cheap check word (a dozen multiplies; a bitwise CRC of
 * the block at every poll cost about 3,000 instructions a poll); an update writes the copy not in
 * use, seals it, then switches to it with one store, so a reset at any instant leaves one copy
 * whole (a single copy lost the session of a reset inside its update: board-faults-boots). */
struct keep_fig {
    uint64_t last;  /* wire ticks: the last time known */
    uint32_t check; /* keep_check() of the rest */
    uint32_t cause, samples, frees, dropped;
#if MSAMP_CFG_HEAP_STATS
    struct msamp_heap_stats heap; /* the last keep_figures read */
#endif
};
struct msamp_keep {
    uint32_t magic; /* KEEP_MAGIC: valid; written last, cleared once the block is sent */
    uint32_t crc;   /* CRC-32 of the identity */
    /* the identity */
    uint32_t version, build, session_id, tick_hz;
    uint64_t start; /* wire ticks: the session's start */
    /* the figures: fig[cur] */
    uint32_t cur;
    struct keep_fig fig[2];
};
MSAMP_NOINIT_BEGIN
static struct msamp_keep K MSAMP_NOINIT;
MSAMP_NOINIT_END
#define KEEP_ID ((const uint8_t *)&K.version)
#define KEEP_ID_SIZE ((uint32_t)((const uint8_t *)&K.cur - KEEP_ID))
#define F (K.fig[K.cur & 1u])

/* CRC-32/IEEE of n bytes, bit by bit (the block is a few dozen bytes). */
static uint32_t keep_crc(const uint8_t *p, uint32_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    while (n-- != 0) {
        c ^= *p++;
        for (unsigned k = 0; k < 8u; k++)
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

/* FNV-1a of the build-id (0 bytes: the basis), and the block's version and size. */
static uint32_t keep_build(void)
{
    const uint8_t *id;
    size_t n = msamp_port_build_id(&id);
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n && id != NULL; i++)
        h = (h ^ id[i]) * 16777619u;
    return h;
}

/* The figures' check word: FNV-1a over their 32-bit halves (garbage RAM after power-on, or a
 * reset in the middle of an update, fails it). */
#define KEEP_MIX(h, v) ((h) = ((h) ^ (uint32_t)(v)) * 16777619u)
static uint32_t keep_check(const struct keep_fig *f)
{
    uint32_t h = 2166136261u;
    KEEP_MIX(h, f->cause);
    KEEP_MIX(h, f->samples);
    KEEP_MIX(h, f->frees);
    KEEP_MIX(h, f->dropped);
    KEEP_MIX(h, f->last);
    KEEP_MIX(h, f->last >> 32);
#if MSAMP_CFG_HEAP_STATS
    const uintptr_t heap[] = {f->heap.total, f->heap.min_free, f->heap.free, f->heap.largest_free,
                              f->heap.free_blocks, f->heap.valid};
    for (unsigned i = 0; i < sizeof heap / sizeof heap[0]; i++) {
        KEEP_MIX(h, heap[i]);
        KEEP_MIX(h, (uint64_t)heap[i] >> 32);
    }
#endif
    return h;
}

static int keep_valid(void)
{
    return K.magic == KEEP_MAGIC && K.crc == keep_crc(KEEP_ID, KEEP_ID_SIZE) &&
           K.cur <= 1u && F.check == keep_check(&F) &&
           K.version == (KEEP_VERSION << 16 | (uint32_t)sizeof K) && K.build == keep_build() &&
           msamp_table_kept() && msamp_heapdump.session_id == K.session_id && K.tick_hz != 0 &&
           F.last >= K.start;
}

/* Ring room for the next event: the open frame closed and everything handed to the transport. 0
 * when the transport takes nothing for KEEP_IDLE calls, or fails. */
static int keep_room(void)
{
    msamp_writer_close();
    for (uint32_t idle = 0; !msamp_ring_empty();) {
        int n = msamp_ring_drain();
        if (n < 0 || (n == 0 && ++idle > KEEP_IDLE))
            return 0;
    }
    return 1;
}

/* The replay's events, each by its step: a slot's STACK and LIVE for STEP_LIVE + slot. */
enum { STEP_SESSION, STEP_START, STEP_BEGIN, STEP_END, STEP_RESET, STEP_LIVE };

static void keep_write(uint32_t step, uint32_t count)
{
    uint64_t v[2] = {K.start, 0};
    struct msamp_varints64 f = {v, 1};
    switch (step) {
    case STEP_SESSION:
        msamp_rec_session(K.session_id, 0, MSAMP_SESSION_FLAG_PREVIOUS, msamp_heapdump.interval,
                          K.tick_hz);
        return;
    case STEP_START: /* the session's start: drain's times count from it */
        msamp_event_record(MSAMP_REC_TIME, msamp_layout_varints64, &f);
        return;
    case STEP_BEGIN: /* pass 0 at the last time known: LIVE births are the latest before it */
        v[0] = 0;
        v[1] = F.last;
        f.n = 2;
        msamp_event_record(MSAMP_REC_SNAP_BEGIN, msamp_layout_varints64, &f);
        G.w.ts = F.last;
        return;
    case STEP_END:
        msamp_rec_snap_end(0, count);
#if MSAMP_CFG_HEAP_STATS
        if (F.heap.valid != 0)
            msamp_rec_heap(MSAMP_HEAP_END, &F.heap, 0);
#endif
        return;
    case STEP_RESET:
        msamp_rec_reset(F.cause, F.samples, F.frees, F.dropped);
        return;
    default:
        break;
    }
    uint32_t slot = step - STEP_LIVE;
    struct msamp_live_entry e;
    msamp_live_get(slot, &e);
    struct msamp_stack_fields sf = {e.stack, 0, NULL};
    if (e.stack != MSAMP_WIRE_STACK_FULL && e.stack != 0) {
        sf.depth = msamp_stack_kept(e.stack, &sf.pcs);
        if (sf.depth == 0)
            e.stack = 0; /* undefined or implausible: its site is unknown */
        else if (msamp_stack_unsent(e.stack, 1))
            msamp_event_record(MSAMP_REC_STACK, msamp_layout_stack, &sf);
    }
    msamp_rec_live(slot, e.size, e.stack, e.birth, e.addr & ~MSAMP_LIVE_MOVING,
                   e.interval != 0 ? e.interval : msamp_heapdump.interval);
}

/* One event of the replay, the ring drained first when it has no room: 1 when sent. */
static int keep_send(uint32_t step, uint32_t count)
{
    for (int tries = 0; tries < 2; tries++) {
        struct msamp_writer ev;
        msamp_event_begin(&ev);
        keep_write(step, count);
        if (msamp_event_end(&ev, 0) == 0)
            return 1;
        if (!keep_room())
            return 0;
    }
    return 0;
}

void msamp_keep_replay(void)
{
    if (!keep_valid()) {
        K.magic = 0;
        return;
    }
    msamp_writer_boot();
    atomic_store_explicit(&G.interval, msamp_heapdump.interval, memory_order_relaxed);
    msamp_stacks_unmark();
    uint32_t count = 0;
    int ok = keep_send(STEP_SESSION, 0) && keep_send(STEP_START, 0) && keep_send(STEP_BEGIN, 0);
    for (uint32_t slot = 0; ok && slot < MSAMP_LIVE_CAP; slot++) {
        struct msamp_live_entry e;
        msamp_live_get(slot, &e);
        if (e.addr == 0)
            continue;
        ok = keep_send(STEP_LIVE + slot, 0);
        if (ok && e.stack != 0 && e.stack < MSAMP_STACK_CAP)
            msamp_stack_sent(e.stack, 1);
        count++;
    }
    if (ok && keep_send(STEP_END, count))
        (void)keep_send(STEP_RESET, 0);
    (void)keep_room();
    K.magic = 0; /* sent: the tables are this boot's from now on */
}

void msamp_keep_start(uint32_t session_id)
{
    K.magic = 0;
    K.version = KEEP_VERSION << 16 | (uint32_t)sizeof K;
    K.build = keep_build();
    K.session_id = session_id;
    K.tick_hz = msamp_tick_hz();
    K.start = msamp_now();
    K.crc = keep_crc(KEEP_ID, KEEP_ID_SIZE);
    K.cur = 0;
    struct keep_fig *f = &K.fig[0];
    f->cause = MSAMP_RESET_UNKNOWN;
    f->last = K.start;
    f->samples = f->frees = f->dropped = 0;
#if MSAMP_CFG_HEAP_STATS
    f->heap = G.heap;
#endif
    f->check = keep_check(f);
    K.magic = KEEP_MAGIC;
}

void msamp_keep_end(void)
{
    K.magic = 0; /* ended by END: nothing for the next boot to send */
}

/* The session's figures now into the copy not in use, sealed, then in use (under the lock, or
 * from a fault handler): cause as given. */
static void keep_figures(uint32_t cause)
{
    const struct keep_fig *o = &F;
    struct keep_fig *f = &K.fig[(K.cur & 1u) ^ 1u];
    f->cause = cause;
    f->samples = G.samples;
    f->frees = G.frees;
    f->dropped = G.count[MSAMP_DROP_RING_RECORDS];
    uint64_t now = msamp_now();
    f->last = now >= o->last ? now : o->last;
#if MSAMP_CFG_HEAP_STATS
    f->heap = G.heap;
#endif
    f->check = keep_check(f);
    __asm__ volatile("" ::: "memory"); /* the copy whole before it is the one in use */
    K.cur = (K.cur & 1u) ^ 1u;
}

void msamp_keep_update(void)
{
    keep_figures(F.cause);
}
#endif

void msamp_note_reset(unsigned cause)
{
#if MSAMP_KEEP
    if (!G.initialised || K.magic != KEEP_MAGIC)
        return;
    keep_figures(cause);
#else
    (void)cause;
#endif
}
