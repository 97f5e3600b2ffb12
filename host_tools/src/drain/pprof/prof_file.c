#include "pprof/prof_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "pprof/prof_codec.h"

/* prof_encode_to's sink: the encoding so far, compressed into the file (errno kept in *e). */
struct gz_sink {
    gzFile gz;
    int e;
};

static int gz_sink(void *ctx, struct buf *b)
{
    struct gz_sink *g = ctx;
    size_t off = 0;
    while (off < b->len) {
        unsigned chunk = b->len - off > (1u << 30) ? 1u << 30 : (unsigned)(b->len - off);
        errno = 0;
        if (gzwrite(g->gz, b->p + off, chunk) != (int)chunk) {
            g->e = errno ? errno : EIO;
            return -1;
        }
        off += chunk;
    }
    b->len = 0;
    return 0;
}

int prof_write_file(const struct prof *p, const char *path, char *err, size_t errlen)
{
    char why[256];
    if (prof_validate(p, why, sizeof(why)) != 0) {
        /* Never write what a reader would refuse. */
        snprintf(err, errlen, "%s: not written: invalid profile: %s", path, why);
        errno = EINVAL;
        return -1;
    }
    struct out_file o;
    if (out_open(&o, path, err, errlen) != 0)
        return -1;
    /* Level 1 like Go's runtime/pprof: profiles are written often, read rarely. */
    int fd = dup(fileno(o.f));
    gzFile gz = fd < 0 ? NULL : gzdopen(fd, "wb1");
    int e = fd < 0 ? errno : ENOMEM, rc = -1;
    if (fd >= 0 && !gz)
        close(fd);
    struct buf b = {0};
    if (gz) {
        /* Encoded and compressed a chunk at a time: the whole encoding is never in memory. */
        struct gz_sink sink = {gz, 0};
        rc = prof_encode_to(p, &b, gz_sink, &sink);
        e = sink.e;
        errno = 0;
        int zc = gzclose(gz); /* flushes: a full disk shows here */
        if (zc != Z_OK && rc == 0) {
            e = errno ? errno : EIO;
            rc = -1;
        }
    }
    buf_free(&b);
    if (rc != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(e));
        out_close(&o, 1, err, errlen);
        errno = e;
        return -1;
    }
    return out_close(&o, 0, err, errlen);
}

/* prof_encode_to's sink for prof_write_mem: the encoding so far, deflated onto out. */
struct mem_sink {
    z_stream z;
    struct buf *out;
};

static int mem_deflate(struct mem_sink *m, const uint8_t *p, size_t n, int flush)
{
    size_t off = 0;
    do {
        unsigned chunk = n - off > (1u << 30) ? 1u << 30 : (unsigned)(n - off);
        m->z.next_in = (Bytef *)(uintptr_t)(p + off);
        m->z.avail_in = chunk;
        off += chunk;
        int f = off < n ? Z_NO_FLUSH : flush, rc;
        do {
            uint8_t o[65536];
            m->z.next_out = o;
            m->z.avail_out = sizeof(o);
            rc = deflate(&m->z, f);
            if (rc == Z_STREAM_ERROR)
                return -1;
            buf_put(m->out, o, sizeof(o) - m->z.avail_out);
        } while (m->z.avail_out == 0 || (f == Z_FINISH && rc != Z_STREAM_END));
    } while (off < n);
    return 0;
}

static int mem_sink(void *ctx, struct buf *b)
{
    int rc = mem_deflate(ctx, (const uint8_t *)b->p, b->len, Z_NO_FLUSH);
    b->len = 0;
    return rc;
}

int prof_write_mem(const struct prof *p, struct buf *out, char *err, size_t errlen)
{
    char why[256];
    if (prof_validate(p, why, sizeof(why)) != 0) {
        snprintf(err, errlen, "not encoded: invalid profile: %s", why);
        return -1;
    }
    /* As gzwrite does for prof_write_file: level 1, a gzip wrapper, memLevel 8, the default
     * strategy; deflate's output does not depend on how its input is cut. */
    struct mem_sink m = {.out = out};
    if (deflateInit2(&m.z, 1, Z_DEFLATED, MAX_WBITS + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        snprintf(err, errlen, "zlib: cannot start a deflate stream");
        return -1;
    }
    struct buf b = {0};
    int rc = prof_encode_to(p, &b, mem_sink, &m);
    if (rc == 0)
        rc = mem_deflate(&m, (const uint8_t *)b.p, b.len, Z_FINISH);
    deflateEnd(&m.z);
    buf_free(&b);
    if (rc != 0)
        snprintf(err, errlen, "zlib: the profile's compression failed");
    return rc;
}

/* Inflates gzip data, every member of a multi-member file, to at most PROF_MAX_FILE bytes. 0, or
 * -1 with a message. */
static int inflate_all(const uint8_t *data, size_t len, struct buf *out, char *err, size_t errlen)
{
    z_stream z;
    memset(&z, 0, sizeof(z));
    if (inflateInit2(&z, 15 + 32) != Z_OK) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    size_t in_off = 0;
    int rc = 0;
    for (;;) {
        GROW(out->p, out->cap, out->len + 65536);
        size_t in_now = len - in_off > (1u << 30) ? 1u << 30 : len - in_off;
        z.next_in = (Bytef *)(uintptr_t)(data + in_off); /* zlib does not write through it */
        z.avail_in = (uInt)in_now;
        z.next_out = out->p + out->len;
        z.avail_out = 65536;
        int zr = inflate(&z, Z_NO_FLUSH);
        in_off += in_now - z.avail_in;
        out->len += 65536 - z.avail_out;
        if (out->len > PROF_MAX_FILE) {
            snprintf(err, errlen, "larger than %u bytes uncompressed", PROF_MAX_FILE);
            rc = -1;
            break;
        }
        if (zr == Z_STREAM_END) {
            /* Another gzip member may follow (cat a.gz b.gz); anything else ends the data. */
            if (len - in_off >= 2 && data[in_off] == 0x1f && data[in_off + 1] == 0x8b) {
                inflateReset(&z);
                continue;
            }
            break;
        }
        if (zr == Z_BUF_ERROR) { /* no progress possible: the input ended inside a member */
            snprintf(err, errlen, "truncated gzip data");
            rc = -1;
            break;
        }
        if (zr != Z_OK) {
            snprintf(err, errlen, "bad gzip data (%s)", z.msg ? z.msg : "inflate error");
            rc = -1;
            break;
        }
    }
    inflateEnd(&z);
    return rc;
}

int prof_read_mem(struct prof *p, const uint8_t *data, size_t len, char *err, size_t errlen)
{
    struct buf raw = {0};
    const uint8_t *pb = data;
    size_t pblen = len;
    if (len >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
        if (inflate_all(data, len, &raw, err, errlen) != 0) {
            buf_free(&raw);
            return -1;
        }
        pb = raw.p;
        pblen = raw.len;
    } else if (len > PROF_MAX_FILE) {
        snprintf(err, errlen, "larger than %u bytes", PROF_MAX_FILE);
        return -1;
    }
    prof_init(p);
    int rc = prof_decode(p, pb, pblen, err, errlen);
    if (rc != 0)
        prof_free(p);
    buf_free(&raw);
    return rc;
}

int prof_read_file(struct prof *p, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    struct buf b = {0};
    int rc = 0;
    for (;;) {
        GROW(b.p, b.cap, b.len + 65536);
        size_t n = fread(b.p + b.len, 1, 65536, f);
        b.len += n;
        if (n < 65536) {
            if (ferror(f)) {
                snprintf(err, errlen, "%s: %s", path, strerror(errno));
                rc = -1;
            }
            break;
        }
        if (b.len > PROF_MAX_FILE) {
            snprintf(err, errlen, "%s: larger than %u bytes", path, PROF_MAX_FILE);
            rc = -1;
            break;
        }
    }
    fclose(f);
    if (rc == 0) {
        char e[256];
        if (b.len == 0) {
            snprintf(err, errlen, "%s: empty file, not a profile", path);
            rc = -1;
        } else if (prof_read_mem(p, b.p, b.len, e, sizeof(e)) != 0) {
            snprintf(err, errlen, "%s: %s", path, e);
            rc = -1;
        }
    }
    buf_free(&b);
    return rc;
}
