/* One encoder per record type of wire format v1 (docs/WIRE_FORMAT.md). Each builds the record in
 * the caller's buffer and returns its start; r->size is its total size. */
#include "msamp_internal.h"

const uint8_t *msamp_enc_session(struct msamp_rec *r, uint8_t *buf,
                                 const struct msamp_session_fields *f)
{
    uint32_t sid = f->session_id;
    uint8_t fixed[6] = {(uint8_t)MSAMP_WIRE_VERSION, f->flags, (uint8_t)sid, (uint8_t)(sid >> 8),
                        (uint8_t)(sid >> 16), (uint8_t)(sid >> 24)};
    uint8_t arch[2] = {f->arch, f->ptr_size};
    msamp_rec_begin(r, buf);
    msamp_rec_bytes(r, fixed, 6);
    msamp_rec_varint(r, f->resend_seq);
    msamp_rec_bytes(r, arch, 2);
    msamp_rec_varint(r, f->tick_hz);
    msamp_rec_varint(r, f->interval);
    msamp_rec_varint(r, f->live_capacity);
    msamp_rec_varint(r, f->stack_capacity);
    msamp_rec_varint(r, f->max_depth);
    msamp_rec_bytes(r, &f->build_id_len, 1);
    msamp_rec_bytes(r, f->build_id, f->build_id_len);
    return msamp_rec_end(r, MSAMP_REC_SESSION);
}

const uint8_t *msamp_enc_stack(struct msamp_rec *r, uint8_t *buf, uint32_t id,
                               const uintptr_t *pcs, uint32_t depth)
{
    msamp_rec_begin(r, buf);
    msamp_rec_varint(r, id);
    msamp_rec_varint(r, depth);
    msamp_rec_varint(r, (uint64_t)pcs[0]);
    for (uint32_t i = 1; i < depth; i++)
        msamp_rec_svarint(r, (int64_t)(intptr_t)(pcs[i] - pcs[i - 1]));
    return msamp_rec_end(r, MSAMP_REC_STACK);
}

const uint8_t *msamp_enc_alloc(struct msamp_rec *r, uint8_t *buf, int64_t old_slot,
                               uint64_t slot1, uint64_t size, uint32_t stack, uint64_t dt,
                               const uintptr_t *addr)
{
    msamp_rec_begin(r, buf);
    if (old_slot >= 0)
        msamp_rec_varint(r, (uint64_t)old_slot);
    msamp_rec_varint(r, slot1);
    msamp_rec_varint(r, size);
    msamp_rec_varint(r, stack);
    msamp_rec_varint(r, dt);
    if (addr != NULL)
        msamp_rec_varint(r, *addr);
    return msamp_rec_end(r, old_slot >= 0 ? MSAMP_REC_REALLOC : MSAMP_REC_ALLOC);
}

const uint8_t *msamp_enc_free(struct msamp_rec *r, uint8_t *buf, uint32_t slot, uint64_t dt)
{
    msamp_rec_begin(r, buf);
    msamp_rec_varint(r, slot);
    msamp_rec_varint(r, dt);
    return msamp_rec_end(r, MSAMP_REC_FREE);
}

const uint8_t *msamp_enc_live(struct msamp_rec *r, uint8_t *buf, uint32_t slot, uint64_t size,
                              uint32_t stack, uint32_t birth, const uintptr_t *addr)
{
    msamp_rec_begin(r, buf);
    msamp_rec_varint(r, slot);
    msamp_rec_varint(r, size);
    msamp_rec_varint(r, stack);
    msamp_rec_varint(r, birth);
    if (addr != NULL)
        msamp_rec_varint(r, *addr);
    return msamp_rec_end(r, MSAMP_REC_LIVE);
}

/* Records made of varints only: SNAP_BEGIN, SNAP_END, DROPS, INTERVAL, TIME. */
const uint8_t *msamp_enc_varints(struct msamp_rec *r, uint8_t *buf, unsigned type,
                                 const uint64_t *v, unsigned n)
{
    msamp_rec_begin(r, buf);
    for (unsigned i = 0; i < n; i++)
        msamp_rec_varint(r, v[i]);
    return msamp_rec_end(r, type);
}

const uint8_t *msamp_enc_mark(struct msamp_rec *r, uint8_t *buf, const void *text, size_t len)
{
    msamp_rec_begin(r, buf);
    msamp_rec_bytes(r, text, len);
    return msamp_rec_end(r, MSAMP_REC_MARK);
}

const uint8_t *msamp_enc_mapping(struct msamp_rec *r, uint8_t *buf, const struct msamp_mapping *m,
                                 size_t path_room)
{
    uint8_t id_len = (uint8_t)(m->build_id != NULL && m->build_id_len <= 64u ? m->build_id_len : 0);
    size_t path_len = 0;
    while (m->path != NULL && m->path[path_len] != '\0')
        path_len++;
    const char *path = m->path;
    if (path_len > path_room) { /* keep the end of a long path: the file name */
        path += path_len - path_room;
        path_len = path_room;
    }
    msamp_rec_begin(r, buf);
    msamp_rec_varint(r, m->start);
    msamp_rec_varint(r, m->limit);
    msamp_rec_varint(r, m->offset);
    msamp_rec_bytes(r, &id_len, 1);
    msamp_rec_bytes(r, m->build_id, id_len);
    msamp_rec_varint(r, path_len);
    msamp_rec_bytes(r, path, path_len);
    return msamp_rec_end(r, MSAMP_REC_MAPPING);
}

size_t msamp_frame_seal(uint8_t *body, uint8_t seq, size_t records_len)
{
    body[0] = seq;
    uint32_t crc = msamp_crc32_update(0, body, 1u + records_len);
    for (unsigned i = 0; i < 4; i++)
        body[1u + records_len + i] = (uint8_t)(crc >> (8 * i));
    return 1u + records_len + MSAMP_WIRE_CRC_SIZE;
}
