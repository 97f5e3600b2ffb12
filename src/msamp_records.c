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

void msamp_layout_varints(struct msamp_sink *s, const void *arg)
{
    const struct msamp_varints *f = arg;
    for (uint32_t i = 0; i < f->n; i++)
        msamp_sink_varint(s, f->v[i]);
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

void msamp_put_varints(unsigned type, const uintptr_t *v, uint32_t n)
{
    struct msamp_varints f = {v, n};
    msamp_event_record(type, msamp_layout_varints, &f);
}
