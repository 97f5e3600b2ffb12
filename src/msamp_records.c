/* The layout of each record of wire format v1 (docs/WIRE_FORMAT.md, include/msamp_wire.h), written
 * once for every build: each function writes a record's fields into a sink, which either counts
 * them (to size the record's header) or writes them into the open frame. */
#include "msamp_internal.h"

void msamp_layout_session(struct msamp_sink *s, const void *arg)
{
    const struct msamp_session_fields *f = arg;
    msamp_sink_byte(s, MSAMP_WIRE_VERSION);
    msamp_sink_byte(s, f->flags);
    for (unsigned i = 0; i < 4u; i++)
        msamp_sink_byte(s, f->session_id >> (8u * i)); /* u32le */
    msamp_sink_varint(s, f->resend_seq);
    msamp_sink_byte(s, f->arch);
    msamp_sink_byte(s, f->ptr_size);
    msamp_sink_varint(s, f->tick_hz);
    msamp_sink_varint(s, f->interval);
    msamp_sink_varint(s, f->live_capacity);
    msamp_sink_varint(s, f->stack_capacity);
    msamp_sink_varint(s, f->max_depth);
    msamp_sink_byte(s, f->build_id_len);
    msamp_sink_bytes(s, f->build_id, f->build_id_len);
    if (f->device_id_len != 0) { /* the optional trailing [device_id_len device_id] */
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
        uintptr_t d = f->pcs[i] - f->pcs[i - 1u];
        msamp_sink_varint(s, (d << 1) ^ (0u - (d >> (sizeof(uintptr_t) * 8u - 1u))));
    }
}

/* Varints that may be 64-bit on every target (TIME, SNAP_BEGIN: absolute timestamps). */
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

#if MSAMP_CFG_SEND_ADDRESSES
#define ADDRESS 1u
#else
#define ADDRESS 0u
#endif

void msamp_rec_alloc(int32_t old_slot, uint32_t slot1, uintptr_t size, uint32_t stack, uintptr_t dt,
                     uintptr_t addr)
{
    uintptr_t v[6] = {(uintptr_t)old_slot, slot1, size, stack, dt, addr};
    unsigned first = old_slot < 0;
    msamp_event_varints(first ? MSAMP_REC_ALLOC : MSAMP_REC_REALLOC, &v[first],
                        5u - first + ADDRESS);
}

void msamp_rec_free(uint32_t slot, uintptr_t dt, unsigned moved)
{
    uintptr_t v[3] = {slot, dt, 1};
    msamp_event_varints(MSAMP_REC_FREE, v, 2u + (moved != 0));
}

void msamp_rec_live(uint32_t slot, uintptr_t size, uint32_t stack, uint32_t birth, uintptr_t addr,
                    uint32_t interval)
{
    uintptr_t v[6] = {slot, size, stack, birth, addr, interval};
    uint32_t n = 4u + ADDRESS;
    if (interval != atomic_load_explicit(&msamp_core.interval, memory_order_relaxed))
        v[n++] = interval;
    msamp_event_varints(MSAMP_REC_LIVE, v, n);
}

void msamp_rec_drops(const uint32_t *count)
{
    uintptr_t v[MSAMP_DROP_COUNT];
    for (unsigned i = 0; i < MSAMP_DROP_COUNT; i++)
        v[i] = count[i];
    msamp_event_varints(MSAMP_REC_DROPS, v, MSAMP_DROP_COUNT);
}

void msamp_rec_interval(uint32_t interval, uintptr_t dt, unsigned reason, uint32_t epoch)
{
    uintptr_t v[4] = {interval, dt, reason, epoch};
    msamp_event_varints(MSAMP_REC_INTERVAL, v, reason != MSAMP_INTERVAL_SET ? 4u : 2u);
}

void msamp_rec_snap_end(uint32_t pass, uint32_t count)
{
    uintptr_t v[2] = {pass, count};
    msamp_event_varints(MSAMP_REC_SNAP_END, v, 2);
}

void msamp_rec_fail(unsigned kind, uintptr_t size, uint32_t stack, uintptr_t dt, uint32_t count)
{
    uintptr_t v[5] = {kind, size, stack, dt, count};
    msamp_event_varints(MSAMP_REC_FAIL, v, 5);
}

void msamp_rec_cmd_ack(uint32_t seq, unsigned cmd, unsigned status)
{
    uintptr_t v[4] = {MSAMP_REC_CMD_ACK, seq, cmd, status};
    msamp_event_varints(MSAMP_REC_EXTENDED, v, 4);
}

void msamp_rec_sample_task(uint32_t task)
{
    uintptr_t v[2] = {MSAMP_REC_SAMPLE_TASK, task};
    msamp_event_varints(MSAMP_REC_EXTENDED, v, 2);
}

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
