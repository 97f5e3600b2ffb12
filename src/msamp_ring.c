/* The record ring between the allocation path and the transport. Producers hold the port lock, so
 * they are serialised; the one consumer (msamp_poll) runs without it. The free-running indexes are
 * published with release stores after the bytes, as SEGGER RTT does, so the consumer never reads a
 * half-written record and a producer never overwrites unread bytes. It never blocks: a record that
 * does not fit is refused whole and the caller counts it. */
#include "msamp_internal.h"

#define RING_MASK (MSAMP_CFG_RING_SIZE - 1u)

void msamp_ring_reset(struct msamp_ring *r)
{
    atomic_store_explicit(&r->head, 0, memory_order_relaxed);
    atomic_store_explicit(&r->tail, 0, memory_order_relaxed);
}

uint32_t msamp_ring_used(const struct msamp_ring *r)
{
    uint32_t head = atomic_load_explicit(&r->head, memory_order_acquire);
    uint32_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
    return head - tail;
}

uint32_t msamp_ring_free(const struct msamp_ring *r)
{
    return MSAMP_CFG_RING_SIZE - msamp_ring_used(r);
}

int msamp_ring_put(struct msamp_ring *r, const uint8_t *p, size_t n)
{
    uint32_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    uint32_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
    if (n > MSAMP_CFG_RING_SIZE - (head - tail))
        return -1;
    for (size_t i = 0; i < n; i++)
        r->buf[(head + i) & RING_MASK] = p[i];
    atomic_store_explicit(&r->head, head + (uint32_t)n, memory_order_release);
    return 0;
}

void msamp_ring_peek(const struct msamp_ring *r, uint32_t off, uint8_t *out, size_t n)
{
    uint32_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    for (size_t i = 0; i < n; i++)
        out[i] = r->buf[(tail + off + i) & RING_MASK];
}

void msamp_ring_consume(struct msamp_ring *r, uint32_t n)
{
    uint32_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    atomic_store_explicit(&r->tail, tail + n, memory_order_release);
}

uint32_t msamp_ring_record_size(const struct msamp_ring *r, uint32_t off)
{
    uint32_t avail = msamp_ring_used(r);
    if (off >= avail)
        return 0;
    uint32_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    uint8_t hdr = r->buf[(tail + off) & RING_MASK];
    uint32_t len = hdr >> 4;
    uint32_t size = 1;
    if (len == MSAMP_WIRE_LEN_EXTENDED) {
        /* The core writes lengths of at most two varint bytes (records < 16 KiB). */
        len = 0;
        for (uint32_t i = 0; i < 2; i++) {
            if (off + size >= avail)
                return 0;
            uint8_t b = r->buf[(tail + off + size) & RING_MASK];
            size++;
            len |= (uint32_t)(b & 0x7Fu) << (7 * i);
            if (!(b & 0x80u))
                break;
        }
    }
    size += len;
    return off + size <= avail ? size : 0;
}
