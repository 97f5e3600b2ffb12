/* The ring on its own: whole records or nothing, wrap-around, record sizes, exact space. */
#include <string.h>

#include "check.h"
#include "msamp_internal.h"

static struct msamp_ring ring;

int main(void)
{
    msamp_ring_reset(&ring);
    CHECK_EQ(msamp_ring_free(&ring), MSAMP_CFG_RING_SIZE);
    uint8_t buf[3 + MSAMP_MAX_RECORD];
    struct msamp_rec r;
    const uint8_t *rec = msamp_enc_free(&r, buf, 300, 5); /* 4 bytes */
    CHECK_EQ(r.size, 4);
    unsigned put = 0, refused = 0;
    for (unsigned i = 0; i < MSAMP_CFG_RING_SIZE; i++) {
        if (msamp_ring_put(&ring, rec, r.size) == 0)
            put++;
        else
            refused++;
    }
    CHECK_EQ(put, MSAMP_CFG_RING_SIZE / 4);
    CHECK_EQ(refused, MSAMP_CFG_RING_SIZE - MSAMP_CFG_RING_SIZE / 4);
    CHECK_EQ(msamp_ring_free(&ring), 0);
    CHECK_EQ(msamp_ring_record_size(&ring, 0), 4);
    CHECK_EQ(msamp_ring_record_size(&ring, MSAMP_CFG_RING_SIZE - 4), 4);
    CHECK_EQ(msamp_ring_record_size(&ring, MSAMP_CFG_RING_SIZE), 0);
    /* Consume some, refill across the wrap with a long record, read it back intact. */
    msamp_ring_consume(&ring, 40);
    uint8_t text[30];
    for (unsigned i = 0; i < sizeof text; i++)
        text[i] = (uint8_t)(i * 7);
    rec = msamp_enc_mark(&r, buf, text, sizeof text);
    CHECK_EQ(msamp_ring_put(&ring, rec, r.size), 0);
    CHECK_EQ(msamp_ring_put(&ring, rec, r.size), -1); /* 8 bytes left: refused whole */
    CHECK_EQ(msamp_ring_free(&ring), 40 - r.size);
    uint32_t off = MSAMP_CFG_RING_SIZE - 40;
    CHECK_EQ(msamp_ring_record_size(&ring, off), r.size);
    uint8_t back[64];
    msamp_ring_peek(&ring, off, back, r.size);
    CHECK(memcmp(back, rec, r.size) == 0);
    msamp_ring_consume(&ring, msamp_ring_used(&ring));
    CHECK_EQ(msamp_ring_used(&ring), 0);
    CHECK_EQ(msamp_ring_record_size(&ring, 0), 0);
    return check_report("unit-ring");
}
