/* The unit tests' look at what the core sent: flushes it (msamp_flush) and decodes the bytes the
 * fake transport took since *mark through fn, checking that every frame was good; *mark moves to
 * the end. Include after check.h, fake_port.h and msamp_decode.h. */
#ifndef MSAMP_DECODE_SINCE_H
#define MSAMP_DECODE_SINCE_H

static void decode_since(size_t *mark, msamp_record_fn fn)
{
    CHECK(msamp_flush() >= 0);
    struct msamp_dec *d = msamp_dec_new(fn, NULL);
    msamp_dec_feed(d, fake_out + *mark, fake_out_len - *mark);
    msamp_dec_finish(d);
    CHECK_EQ(msamp_dec_stats(d)->frames_bad, 0);
    CHECK_EQ(msamp_dec_stats(d)->records_malformed, 0);
    msamp_dec_free(d);
    *mark = fake_out_len;
}

#endif
