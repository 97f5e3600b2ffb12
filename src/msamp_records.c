/* The device's encoder of each record of wire format v2 (include/msamp_wire.h,
 * docs/WIRE_FORMAT.md), one for every build. A free-form record (SESSION, STACK, MARK, MAPPING,
 * TASK) has a layout function that writes its fields into a sink, which either counts them (to
 * size the record's header) or writes them into the open frame; a varint record is an array of
 * varints filled by the names its field list in msamp_wire.h gives. */
#include "msamp_internal.h"

/* SESSION's fixed part (MSAMP_WIRE_FIELDS_SESSION), table-driven: each field's kind and its
 * offset in struct msamp_session_fields in a byte, one loop writes them all (a call per field
 * otherwise). */
#define KIND_VERSION 0u
#define KIND_U8 1u
#define KIND_U32LE 2u
#define KIND_REQ 3u
#define OFF_VERSION(field) 0u
#define OFF_U8(field) offsetof(struct msamp_session_fields, field)
#define OFF_U32LE OFF_U8
#define OFF_REQ OFF_U8
#define SESSION_FIELD(f, kind, field, label) (uint8_t)(KIND_##kind | OFF_##kind(field) << 2),
/* Then build_id_len, a u8 (the bytes follow). */
static const uint8_t session_fixed[] = {MSAMP_WIRE_FIELDS_SESSION(SESSION_FIELD, 0)
                                            SESSION_FIELD(0, U8, build_id_len, 0)};
_Static_assert(offsetof(struct msamp_session_fields, max_depth) < 64u &&
                   offsetof(struct msamp_session_fields, build_id_len) < 64u,
               "offsets in 6 bits");

void msamp_layout_session(struct msamp_sink *s, const void *arg)
{
    const struct msamp_session_fields *f = arg;
    for (uint32_t i = 0; i < sizeof session_fixed; i++) {
        uint32_t kind = session_fixed[i] & 3u, v = MSAMP_WIRE_VERSION;
        if (kind != KIND_VERSION)
            v = *(const uint32_t *)(const void *)((const uint8_t *)f + (session_fixed[i] >> 2));
        if (kind == KIND_REQ)
            msamp_sink_varint(s, v);
        else
            for (uint32_t k = 0; k < (kind == KIND_U32LE ? 4u : 1u); k++)
                msamp_sink_byte(s, v >> (8u * k));
    }
    msamp_sink_bytes(s, f->build_id, f->build_id_len);
    if (MSAMP_CFG_DEVICE_ID && f->device_id_len != 0) { /* the optional [device_id_len device_id] */
        msamp_sink_byte(s, f->device_id_len);
        msamp_sink_bytes(s, f->device_id, f->device_id_len);
    }
}

/* id depth frame0, then each frame as the zigzag of its difference to the one before. */
void msamp_layout_stack(struct msamp_sink *s, const void *arg)
{
    const struct msamp_stack_fields *f = arg;
    msamp_sink_varint(s, f->id);
    msamp_sink_varint(s, f->depth);
    msamp_sink_varint(s, f->pcs[0]);
    for (uint32_t i = 1; i < f->depth; i++) {
        msamp_sink_varint(s, msamp_zigzag(f->pcs[i] - f->pcs[i - 1u]));
    }
}

/* Varints that may be 64-bit on every target (TIME, SNAP_BEGIN: absolute timestamps, their fields
 * in the order of MSAMP_WIRE_FIELDS_TIME and _SNAP_BEGIN: ts; pass ts). */
void msamp_layout_varints64(struct msamp_sink *s, const void *arg)
{
    const struct msamp_varints64 *f = arg;
    for (uint32_t i = 0; i < f->n; i++)
        msamp_sink_varint(s, f->v[i]);
}

void msamp_layout_bytes(struct msamp_sink *s, const void *arg)
{
    const struct msamp_bytes *f = arg;
    msamp_sink_bytes(s, f->p, f->n);
}

#if MSAMP_CFG_MAPPINGS
void msamp_layout_mapping(struct msamp_sink *s, const void *arg)
{
    const struct msamp_mapping *m = arg;
    uint32_t id_len = m->build_id != NULL && m->build_id_len <= MSAMP_WIRE_MAX_BUILD_ID
                          ? (uint32_t)m->build_id_len
                          : 0;
    uint32_t path_len = 0;
    while (m->path != NULL && m->path[path_len] != '\0')
        path_len++;
    const char *path = m->path;
    /* A long path keeps its end (the file name) and the record stays well inside a frame. */
    if (path_len > MSAMP_MAPPING_PATH_MAX) {
        path += path_len - MSAMP_MAPPING_PATH_MAX;
        path_len = MSAMP_MAPPING_PATH_MAX;
    }
    msamp_sink_varint(s, m->start);
    msamp_sink_varint(s, m->limit);
    msamp_sink_varint(s, m->offset);
    msamp_sink_byte(s, id_len);
    msamp_sink_bytes(s, m->build_id, id_len);
    msamp_sink_varint(s, path_len);
    msamp_sink_bytes(s, path, path_len);
}
#endif

/* The varint records (MSAMP_WIRE_RECORDS in include/msamp_wire.h) as arrays of varints:
 * F_NAME_field is the index of field in the array, F_NAME__type that of an extended record's type
 * (-1: a base type), F_NAME__req the number of varints before the first optional field and
 * F_NAME__all the number with every optional field. Each function fills its record's array by
 * these names and sends its first n varints (SEND); the names are constants, so the code is
 * what the same function written by hand with numbers compiles to. */
#define REQUIRED_REQ 1
#define REQUIRED_DT 1
#define REQUIRED_TS 1
#define REQUIRED_ID16 1
#define REQUIRED_ADDR 0
#define REQUIRED_OPT 0
#define REQUIRED_FLAG 0
#define REQUIRED_WITH 0
#define INDEX(N, kind, field, label) F_##N##_##field,
#define COUNT_REQUIRED(N, kind, field, label) +REQUIRED_##kind
#define POSITIONS(NAME, type, m)                                                  \
    enum {                                                                        \
        F_##NAME##__type = ((type) >= 16) - 1,                                    \
        MSAMP_WIRE_FIELDS_##NAME(INDEX, NAME) F_##NAME##__all,                    \
        F_##NAME##__req = F_##NAME##__type + 1 MSAMP_WIRE_FIELDS_##NAME(COUNT_REQUIRED, NAME) \
    };
#define NO_POSITIONS(NAME, type, m)
MSAMP_WIRE_RECORDS(NO_POSITIONS, POSITIONS)
/* TIME and SNAP_BEGIN are written by msamp_layout_varints64 (timestamps are 64-bit everywhere). */
_Static_assert(F_TIME_ts == 0 && F_TIME__all == 1 && F_SNAP_BEGIN_pass == 0 &&
                   F_SNAP_BEGIN_ts == 1 && F_SNAP_BEGIN__all == 2,
               "TIME = ts, SNAP_BEGIN = pass ts");

/* Sends the first n varints of record NAME's array v. */
#define SEND(NAME, v, n) \
    msamp_event_varints(MSAMP_REC_##NAME >= 16 ? MSAMP_REC_EXTENDED : MSAMP_REC_##NAME, v, n)

#if MSAMP_CFG_SEND_ADDRESSES
#define ADDRESS 1u
#else
#define ADDRESS 0u
#endif

/* REALLOC is old_slot, then ALLOC's fields: one array holds both. */
_Static_assert(F_REALLOC_new_slot1 == F_ALLOC_slot1 + 1 && F_REALLOC_size == F_ALLOC_size + 1 &&
                   F_REALLOC_stack_id == F_ALLOC_stack_id + 1 && F_REALLOC_dt == F_ALLOC_dt + 1 &&
                   F_REALLOC_addr == F_ALLOC_addr + 1 && F_REALLOC__all == F_ALLOC__all + 1 &&
                   F_REALLOC__req == F_ALLOC__req + 1 && F_REALLOC_old_slot == 0,
               "REALLOC = old_slot + ALLOC");

void msamp_rec_alloc(int32_t old_slot, uint32_t slot1, uintptr_t size, uint32_t stack, uintptr_t dt,
                     uintptr_t addr)
{
    uintptr_t v[F_REALLOC__all] = {
        [F_REALLOC_old_slot] = (uintptr_t)old_slot, [F_REALLOC_new_slot1] = slot1,
        [F_REALLOC_size] = size,   [F_REALLOC_stack_id] = stack,
        [F_REALLOC_dt] = dt,       [F_REALLOC_addr] = addr};
    unsigned first = !MSAMP_CFG_REALLOC_CHAINS || old_slot < 0; /* no REALLOC without chains */
    /* Wire v2: a dt of 0 that would end the payload is left out (most samples come within a tick
     * of the record before them: 1 byte of 7). */
    msamp_event_varints(first ? MSAMP_REC_ALLOC : MSAMP_REC_REALLOC, &v[first],
                        F_REALLOC__req - first + ADDRESS - (!ADDRESS && dt == 0u));
#if MSAMP_CFG_EMPTY_FREE
    msamp_core.w.last_slot1 = slot1;
#endif
}

_Static_assert(F_ALLOC_dt + 1 == F_ALLOC__req && F_FREE_dt + 1 == F_FREE__req,
               "dt ends ALLOC's and FREE's required fields: a dt of 0 may be left out");

void msamp_rec_free(uint32_t slot, uintptr_t dt, unsigned moved)
{
    uintptr_t v[F_FREE__all] = {[F_FREE_slot] = slot, [F_FREE_dt] = dt, [F_FREE_moved] = 1};
    uint32_t n = moved != 0 ? F_FREE__all : F_FREE__req - (dt == 0u);
    /* Wire v2: the free of the block the frame's latest sample record allocated, at dt 0, is an
     * empty FREE (most short-lived sampled blocks die before the next sample: 1 byte, not 3). */
#if MSAMP_CFG_EMPTY_FREE
    if (n == F_FREE_dt && msamp_core.w.last_slot1 == slot + 1u) {
        n = 0;
        msamp_core.w.last_slot1 = 0;
    }
#endif
    SEND(FREE, v, n);
}

void msamp_rec_live(uint32_t slot, uintptr_t size, uint32_t stack, uint32_t birth, uintptr_t addr,
                    uint32_t interval)
{
    uintptr_t v[F_LIVE__all] = {[F_LIVE_slot] = slot,   [F_LIVE_size] = size,
                                [F_LIVE_stack_id] = stack, [F_LIVE_birth] = birth,
                                [F_LIVE_addr] = addr,   [F_LIVE_interval] = interval};
    uint32_t n = F_LIVE__req + ADDRESS;
    if (interval != atomic_load_explicit(&msamp_core.interval, memory_order_relaxed))
        v[n++] = interval;
    SEND(LIVE, v, n);
}

/* The device's counters are in the order of the record's fields. */
#define SAME(a, b) ((int)(a) == (int)(b))
_Static_assert(SAME(F_DROPS_ring_records, MSAMP_DROP_RING_RECORDS) &&
                   SAME(F_DROPS_ring_bytes, MSAMP_DROP_RING_BYTES) &&
                   SAME(F_DROPS_live_full, MSAMP_DROP_LIVE_FULL) &&
                   SAME(F_DROPS_stack_full, MSAMP_DROP_STACK_FULL) &&
                   SAME(F_DROPS_reentrant, MSAMP_DROP_REENTRANT) &&
                   SAME(F_DROPS_truncated, MSAMP_DROP_TRUNCATED) &&
                   SAME(F_DROPS_no_frame, MSAMP_DROP_NO_FRAME) &&
                   SAME(F_DROPS_out_of_bounds, MSAMP_DROP_OUT_OF_BOUNDS) && SAME(F_DROPS__all, MSAMP_DROP_COUNT),
               "DROPS = enum msamp_wire_drop");

void msamp_rec_drops(const uint32_t *count)
{
    uintptr_t v[MSAMP_CORE_DROPS];
    for (unsigned i = 0; i < MSAMP_CORE_DROPS; i++)
        v[i] = count[i];
    SEND(DROPS, v, MSAMP_CORE_DROPS);
}

void msamp_rec_interval(uint32_t interval, uintptr_t dt, unsigned reason, uint32_t epoch)
{
    uintptr_t v[F_INTERVAL__all] = {[F_INTERVAL_interval] = interval, [F_INTERVAL_dt] = dt,
                                    [F_INTERVAL_reason] = reason, [F_INTERVAL_epoch] = epoch};
    SEND(INTERVAL, v, reason != MSAMP_INTERVAL_SET ? F_INTERVAL__all : F_INTERVAL__req);
}

void msamp_rec_snap_end(uint32_t pass, uint32_t count)
{
    uintptr_t v[F_SNAP_END__all] = {[F_SNAP_END_pass] = pass, [F_SNAP_END_count] = count};
    SEND(SNAP_END, v, F_SNAP_END__all);
}

void msamp_rec_fail(unsigned kind, uintptr_t size, uint32_t stack, uintptr_t dt, uint32_t count)
{
    uintptr_t v[F_FAIL__all] = {[F_FAIL_kind] = kind, [F_FAIL_size] = size,
                                [F_FAIL_stack_id] = stack, [F_FAIL_dt] = dt,
                                [F_FAIL_count] = count};
    SEND(FAIL, v, F_FAIL__all);
}

void msamp_rec_cmd_ack(uint32_t seq, unsigned cmd, unsigned status, uint32_t series)
{
    uintptr_t v[F_CMD_ACK__all] = {[F_CMD_ACK__type] = MSAMP_REC_CMD_ACK, [F_CMD_ACK_seq] = seq,
                                   [F_CMD_ACK_cmd] = cmd, [F_CMD_ACK_status] = status,
                                   [F_CMD_ACK_series] = series};
    SEND(CMD_ACK, v, series ? F_CMD_ACK__all : F_CMD_ACK__req);
}

void msamp_rec_sample_task(uint32_t task)
{
    uintptr_t v[F_SAMPLE_TASK__all] = {[F_SAMPLE_TASK__type] = MSAMP_REC_SAMPLE_TASK,
                                       [F_SAMPLE_TASK_task] = task};
    SEND(SAMPLE_TASK, v, F_SAMPLE_TASK__all);
}

void msamp_rec_end(uint32_t samples, uint32_t frees, uint32_t dropped)
{
    uintptr_t v[F_END__all] = {[F_END__type] = MSAMP_REC_END, [F_END_samples] = samples,
                               [F_END_frees] = frees, [F_END_dropped] = dropped};
    SEND(END, v, F_END__all);
}

void msamp_rec_reset(uint32_t cause, uint32_t samples, uint32_t frees, uint32_t dropped)
{
    uintptr_t v[F_RESET__all] = {[F_RESET__type] = MSAMP_REC_RESET, [F_RESET_cause] = cause,
                                 [F_RESET_samples] = samples, [F_RESET_frees] = frees,
                                 [F_RESET_dropped] = dropped, [F_RESET_dt] = 0};
    SEND(RESET, v, F_RESET__all);
}

#if MSAMP_CFG_TASK_BUDGETS
void msamp_rec_task_budget(uint32_t task, uintptr_t budget, uintptr_t in_use, uintptr_t peak,
                           uint32_t events, uintptr_t dt)
{
    uintptr_t v[F_TASK_BUDGET__all] = {
        [F_TASK_BUDGET__type] = MSAMP_REC_TASK_BUDGET, [F_TASK_BUDGET_task] = task,
        [F_TASK_BUDGET_budget] = budget,               [F_TASK_BUDGET_in_use] = in_use,
        [F_TASK_BUDGET_peak] = peak,                   [F_TASK_BUDGET_events] = events,
        [F_TASK_BUDGET_dt] = dt};
    SEND(TASK_BUDGET, v, F_TASK_BUDGET__all);
}
#endif

#if MSAMP_CFG_HEAP_STATS
void msamp_rec_heap(unsigned reason, const struct msamp_heap_stats *h, uintptr_t dt)
{
    uint32_t k = h->valid;
    uintptr_t v[F_HEAP__all] = {
        [F_HEAP__type] = MSAMP_REC_HEAP,
        [F_HEAP_reason] = reason,
        [F_HEAP_valid] = k,
        [F_HEAP_free_bytes] = k & MSAMP_HEAP_FREE ? h->free : 0u,
        [F_HEAP_min_free] = k & (MSAMP_HEAP_MIN_FREE | MSAMP_HEAP_MIN_SEEN) ? h->min_free : 0u,
        [F_HEAP_largest_free] = k & MSAMP_HEAP_LARGEST_FREE ? h->largest_free : 0u,
        [F_HEAP_free_blocks] = k & MSAMP_HEAP_FREE_BLOCKS ? h->free_blocks : 0u,
        [F_HEAP_total] = k & MSAMP_HEAP_TOTAL ? h->total : 0u,
        [F_HEAP_dt] = dt};
    SEND(HEAP, v, F_HEAP__all);
}
#endif

/* extended type, task, name_len, name (cut at MSAMP_WIRE_MAX_TASK_NAME bytes). */
void msamp_layout_task(struct msamp_sink *s, const void *arg)
{
    const struct msamp_task_fields *f = arg;
    uint32_t n = 0;
    while (f->name[n] != '\0' && n < MSAMP_WIRE_MAX_TASK_NAME)
        n++;
    msamp_sink_varint(s, MSAMP_REC_TASK);
    msamp_sink_varint(s, f->task);
    msamp_sink_varint(s, n);
    msamp_sink_bytes(s, f->name, n);
}
