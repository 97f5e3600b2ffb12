/* What the core reports on its own, from init and msamp_poll() under the port lock: its identity
 * (SESSION and the port's MAPPINGs), its loss counters (DROPS, whenever one moved) and, where the
 * build has them, snapshot passes: every live sample re-sent between SNAP_BEGIN and SNAP_END,
 * periodically (so a reader that joins late has the whole in-use set within one period) and when
 * msamp_snapshot() asks. */
#include "msamp_internal.h"

#define G msamp_core
/* Loaded images sent with each SESSION, at most. */
#define MAX_MAPPINGS 8u

#if MSAMP_CFG_MAPPINGS
/* One event per MAPPING (a pass's opening keeps room for as many). */
static void put_mappings(void)
{
    struct msamp_writer ev;
    struct msamp_mapping maps[MAX_MAPPINGS];
    size_t n = msamp_port_mappings(maps, MAX_MAPPINGS);
    for (size_t i = 0; i < n && i < MAX_MAPPINGS; i++) {
        msamp_event_begin(&ev);
        msamp_event_record(MSAMP_REC_MAPPING, msamp_layout_mapping, &maps[i]);
        (void)msamp_event_end(&ev, 0);
    }
#if MSAMP_CFG_SNAPSHOTS
    G.mappings = (uint32_t)n;
#endif
}
#endif

uint32_t msamp_device_id(const uint8_t **id)
{
    size_t n = 0;
    *id = NULL;
#if !MSAMP_CFG_DEVICE_ID
    return 0; /* not asked for: none sent, none mixed in */
#endif
#if !MSAMP_CFG_TINY
    if (G.device_id != NULL) {
        *id = (const uint8_t *)G.device_id;
        while (n < MSAMP_WIRE_MAX_DEVICE_ID && G.device_id[n] != '\0')
            n++;
    } else
#endif
    {
        n = msamp_port_device_id(id);
    }
    if (*id == NULL)
        return 0;
    return (uint32_t)(n < MSAMP_WIRE_MAX_DEVICE_ID ? n : MSAMP_WIRE_MAX_DEVICE_ID);
}

#if MSAMP_CFG_DEVICE_ID
uint64_t msamp_device_entropy(uint64_t entropy)
{
    const uint8_t *id;
    for (uint32_t i = 0, n = msamp_device_id(&id); i < n; i++)
        entropy = (entropy ^ id[i]) * 0x100000001B3ull;
    return entropy;
}
#endif

void msamp_rec_session(uint32_t session_id, uint32_t resend_seq, uint32_t flags, uint32_t interval,
                       uint32_t tick_hz)
{
    struct msamp_session_fields f;
    f.build_id_len = (uint32_t)msamp_port_build_id(&f.build_id);
    if (f.build_id_len > MSAMP_WIRE_MAX_BUILD_ID)
        f.build_id_len = 0;
    f.device_id_len = msamp_device_id(&f.device_id);
    f.flags = MSAMP_SESSION_ENDIAN | (MSAMP_CFG_SEND_ADDRESSES ? MSAMP_SESSION_FLAG_ADDRESSES : 0u) |
              (!MSAMP_CFG_COMPACT_TABLES ? 0u : MSAMP_SESSION_FLAG_CODED_SIZES) |
              (MSAMP_CFG_CONTROL ? MSAMP_SESSION_FLAG_CMD_V2 : 0u) | flags;
    f.session_id = session_id;
    f.resend_seq = resend_seq;
    f.arch = MSAMP_ARCH_SELF;
    f.ptr_size = sizeof(uintptr_t);
    f.tick_hz = tick_hz;
    f.interval = interval;
    f.live_capacity = MSAMP_LIVE_CAP;
    f.stack_capacity = MSAMP_STACK_CAP;
    f.max_depth = MSAMP_CFG_MAX_DEPTH;
    msamp_event_record(MSAMP_REC_SESSION, msamp_layout_session, &f);
}

void msamp_put_identity(uint32_t session_id, uint32_t resend_seq)
{
    struct msamp_writer ev;
    msamp_event_begin(&ev);
    msamp_rec_session(session_id, resend_seq, 0, atomic_load_explicit(&G.interval, memory_order_relaxed),
                      msamp_tick_hz());
    (void)msamp_event_end(&ev, 0);
#if MSAMP_CFG_MAPPINGS
    put_mappings();
#endif
#if MSAMP_PORT_RTOS
    G.tasks_named = 0; /* the task names go again, with this identity */
#endif
#if MSAMP_CFG_HEAP_STATS
    msamp_event_begin(&ev);
    G.w.ts = UINT64_MAX; /* an absolute TIME before it: the reader may have joined at SESSION */
    msamp_heap_put(MSAMP_HEAP_IDENTITY);
    (void)msamp_event_end(&ev, 0);
#endif
}

#if MSAMP_CFG_HEAP_STATS
_Static_assert(MSAMP_HEAP_TOTAL == MSAMP_WIRE_HEAP_TOTAL && MSAMP_HEAP_FREE == MSAMP_WIRE_HEAP_FREE &&
                   MSAMP_HEAP_MIN_FREE == MSAMP_WIRE_HEAP_MIN_FREE &&
                   MSAMP_HEAP_LARGEST_FREE == MSAMP_WIRE_HEAP_LARGEST_FREE &&
                   MSAMP_HEAP_FREE_BLOCKS == MSAMP_WIRE_HEAP_FREE_BLOCKS &&
                   MSAMP_HEAP_MIN_SEEN == MSAMP_WIRE_HEAP_MIN_SEEN,
               "HEAP.valid = msamp_heap_stats.valid");

void msamp_heap_read(struct msamp_heap_stats *h)
{
    h->valid = 0;
    msamp_port_heap_stats(h);
    h->valid &= MSAMP_HEAP_TOTAL | MSAMP_HEAP_FREE | MSAMP_HEAP_MIN_FREE | MSAMP_HEAP_LARGEST_FREE |
                MSAMP_HEAP_FREE_BLOCKS;
}

int msamp_heap_due(void)
{
#if MSAMP_CFG_HEAP_POLL_MS
    return atomic_load_explicit(&G.heap_ask, memory_order_relaxed);
#else
    return 1;
#endif
}

void msamp_heap_plan(void)
{
#if MSAMP_CFG_HEAP_POLL_MS
    uint64_t now = msamp_now();
    uint8_t ask = now >= G.heap_next;
    if (ask)
        G.heap_next = now + (uint64_t)msamp_tick_hz() * MSAMP_CFG_HEAP_POLL_MS / 1000u;
    atomic_store_explicit(&G.heap_ask, ask, memory_order_relaxed);
#endif
}

void msamp_heap_note(const struct msamp_heap_stats *h)
{
    uintptr_t seen = G.heap.min_free; /* the fewest free seen so far (valid once heap_step is set) */
    G.heap = *h;
    if (!(h->valid & MSAMP_HEAP_FREE))
        return;
    if (!(h->valid & MSAMP_HEAP_MIN_FREE)) {
        G.heap.min_free = G.heap_step != 0 && seen < h->free ? seen : h->free;
        G.heap.valid |= MSAMP_HEAP_MIN_SEEN;
    }
    uintptr_t low = G.heap.min_free;
    if (G.heap_step == 0) { /* the first figures: the baseline */
        uintptr_t step = (uintptr_t)MSAMP_CFG_HEAP_STEP;
        if (step == 0)
            step = (h->valid & MSAMP_HEAP_TOTAL ? h->total : h->free) / 32u;
        G.heap_step = step != 0 ? step : 1u;
        G.heap_low = low;
        return;
    }
    if (low > G.heap_low || G.heap_low - low < G.heap_step)
        return;
    struct msamp_writer ev;
    msamp_event_begin(&ev);
    msamp_heap_put(MSAMP_HEAP_LOW);
    if (msamp_event_end(&ev, 0) != 0)
        return; /* the ring is full: again at the next poll */
    G.heap_low = low;
#if MSAMP_CFG_SNAPSHOTS
    G.snap_requested = 1; /* the in-use profile at the heap's worst moment, from the device */
#endif
}

void msamp_heap_put(unsigned reason)
{
    uintptr_t dt = msamp_event_stamp();
    msamp_rec_heap(reason, &G.heap, dt);
}
#endif

#if MSAMP_PORT_RTOS
/* A TASK record for each task id the RTOS layer has named since the last one sent (all of them
 * after a SESSION); stops at the first that does not fit the ring, to go on at the next poll. */
static void report_tasks(void)
{
    uint32_t n = msamp_port_tasks();
    while (G.tasks_named < n) {
        struct msamp_task_fields f = {G.tasks_named + 1u, msamp_port_task_name(G.tasks_named + 1u)};
        if (f.name != NULL) {
            struct msamp_writer ev;
            msamp_event_begin(&ev);
            msamp_event_record(MSAMP_REC_EXTENDED, msamp_layout_task, &f);
            if (msamp_event_end(&ev, 0) != 0)
                return;
        }
        G.tasks_named++;
    }
}
#endif

void msamp_put_clock(void)
{
    struct msamp_writer ev;
    msamp_event_begin(&ev);
    G.w.ts = UINT64_MAX; /* the stamp then writes an absolute TIME */
    (void)msamp_event_stamp();
    (void)msamp_event_end(&ev, 0);
}

#if MSAMP_CFG_SNAPSHOTS
/* The next snapshot pass number (1..0xFFFF): stack definitions are marked with it. */
static void next_pass(void)
{
    G.pass = G.pass == 0xFFFFu ? 1u : G.pass + 1u;
}
#endif

/* A DROPS record whenever a loss counter moved (counters only grow: their sum tells). Not counted
 * as a drop when it does not fit: the counters are sent again later. */
static void report_drops(void)
{
    struct msamp_writer ev;
    G.count[MSAMP_DROP_REENTRANT] = msamp_reentrant();
    uint32_t sum = 0;
    for (unsigned i = 0; i < MSAMP_CORE_DROPS; i++)
        sum += G.count[i];
    if (sum == G.sent)
        return;
    msamp_event_begin(&ev);
    msamp_rec_drops(G.count);
    if (msamp_event_end(&ev, 0) == 0)
        G.sent = sum;
}

#if MSAMP_CFG_SNAPSHOTS
/* Ring room a pass's opening needs: SESSION, DROPS and SNAP_BEGIN with their frames, and each
 * MAPPING. Short of it, the pass starts at a later poll and nothing is counted as dropped. */
#define OPENING_ROOM 256u
#define MAPPING_ROOM 320u
/* A slow link (MSAMP_CFG_LINK_ADAPT, docs/ADAPTIVE.md "The link"): a pass starts with the ring
 * under an eighth full and writes while it is under 3/16, so the samples keep the rest, and a
 * pass does not fill the ring to the quarter that raises the interval. */
#if MSAMP_LINK_ADAPT
#define LINK_BUSY(fill) (msamp_ring_used() >= (fill))
#else
#define LINK_BUSY(fill) 0
#endif

static void begin_pass(uint64_t ts)
{
    struct msamp_writer ev;
    G.pass_start = G.w.wh;
    next_pass();
    msamp_put_identity(G.session_id, G.resend_seq++);
    G.sent = UINT32_MAX; /* DROPS in every pass, changed or not */
    report_drops();
    uint64_t v[2] = {G.pass, ts};
    struct msamp_varints64 f = {v, 2};
    msamp_event_begin(&ev);
    msamp_event_record(MSAMP_REC_SNAP_BEGIN, msamp_layout_varints64, &f);
    G.w.ts = ts; /* the reader's clock too: later dt fields count from here */
    (void)msamp_event_end(&ev, 0);
    G.cursor = 0;
    G.snap_count = 0;
    G.scanning = 1;
}

/* Sends up to MSAMP_CFG_SNAPSHOT_BATCH live entries (looking at no more than 16 times as many
 * slots); ends the pass when the whole table has been seen. */
static void scan_pass(void)
{
    struct msamp_writer ev;
    uint32_t looked = 0;
    for (uint32_t k = 0; k < MSAMP_CFG_SNAPSHOT_BATCH && G.cursor < MSAMP_LIVE_CAP;) {
        if (++looked > 16u * MSAMP_CFG_SNAPSHOT_BATCH || LINK_BUSY(MSAMP_CFG_RING_SIZE / 16u * 3u))
            return;
        struct msamp_live_entry e;
        /* An empty slot first, inline: most of a large table is (the exit's pass sees all). */
        if (msamp_live_addr(G.cursor) == 0 || !msamp_live_settled(G.cursor)) {
            G.cursor++;
            continue;
        }
        msamp_live_get(G.cursor, &e);
        if (e.addr == 0) {
            G.cursor++;
            continue;
        }
        msamp_event_begin(&ev);
        int send_stack = msamp_stack_unsent(e.stack, G.pass);
        if (send_stack) {
            struct msamp_stack_fields f = {e.stack, 0, NULL};
            f.depth = msamp_stack_frames(e.stack, &f.pcs);
            msamp_event_record(MSAMP_REC_STACK, msamp_layout_stack, &f);
        }
        /* A realloc's detached slot is its allocation still: the block's address, unmarked. */
        msamp_rec_live(G.cursor, e.size, e.stack, e.birth, e.addr & ~MSAMP_LIVE_MOVING, e.interval);
        if (msamp_event_end(&ev, 0) != 0)
            return; /* resume at this entry on the next poll */
        if (send_stack)
            msamp_stack_sent(e.stack, G.pass);
        G.snap_count++;
        G.cursor++;
        k++;
    }
    if (G.cursor < MSAMP_LIVE_CAP)
        return;
    msamp_event_begin(&ev);
    msamp_rec_snap_end(G.pass, G.snap_count);
    if (msamp_event_end(&ev, 0) == 0) {
        G.scanning = 0;
        G.pass_end = G.w.wh;
        G.pass_bytes = G.w.wh - G.pass_start;
    }
}

/* Due by volume: MSAMP_CFG_SNAPSHOT_BYTES since the last pass ended, and 3 times the bytes it
 * took. */
static int pass_due_by_bytes(void)
{
#if MSAMP_CFG_SNAPSHOT_BYTES == 0
    return 0; /* by time alone */
#else
    uint32_t since = G.w.wh - G.pass_end;
    return since >= (uint32_t)MSAMP_CFG_SNAPSHOT_BYTES && since / 3u >= G.pass_bytes;
#endif
}

static void passes(void)
{
    uint64_t ts = msamp_now();
    if (!G.scanning && (G.snap_requested || ts >= G.next_resend || pass_due_by_bytes()) &&
        msamp_ring_used() + OPENING_ROOM + G.mappings * MAPPING_ROOM <= MSAMP_CFG_RING_SIZE &&
        !LINK_BUSY(MSAMP_CFG_RING_SIZE / 8u)) {
        begin_pass(ts);
        G.snap_requested = 0;
        G.next_resend = ts + G.resend_ticks;
    }
    if (G.scanning)
        scan_pass();
}
#endif

#if MSAMP_CFG_RESEND_BYTES
/* The identity each MSAMP_CFG_RESEND_BYTES of stream, whatever the time: SESSION, MAPPINGs, an
 * absolute TIME, and DROPS (by report_drops after it). Not sent when the ring has no room: the
 * next one is due at the next multiple. */
static void identity_by_volume(void)
{
    if (!G.w.identity_due)
        return;
    G.w.identity_due = 0;
#if MSAMP_CFG_SNAPSHOTS
    msamp_put_identity(G.session_id, G.resend_seq++);
#else
    G.w.resends = G.w.resends == 0xFFu ? 1u : (uint8_t)(G.w.resends + 1u);
    msamp_put_identity(G.session_id, G.w.resends);
#endif
    msamp_put_clock();
    G.sent = UINT32_MAX;
    /* Every 8th time, each stack's definition goes out again at its next use (the dump tables
     * mark definitions by pass: a new pass number, outside a pass), so a reader that lost one on
     * the line has it back within 8 identities, even with no snapshot pass to re-send it. */
#if MSAMP_CFG_SNAPSHOTS
    if ((G.resend_seq & 7u) == 0 && !G.scanning)
        next_pass();
#elif MSAMP_CFG_COMPACT_TABLES
    if ((G.w.resends & 7u) == 0)
        msamp_stacks_resend();
#endif
}
#endif

void msamp_report_duties(void)
{
    msamp_adapt_poll();
#if MSAMP_CFG_SNAPSHOTS
    passes();
#endif
#if MSAMP_CFG_RESEND_BYTES
    identity_by_volume();
#endif
#if MSAMP_PORT_RTOS
    report_tasks();
#endif
    report_drops();
}
