#include "prof_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "prof_codec.h"

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
    struct buf b = {0};
    size_t n = strlen(path);
    char *tmp = xmalloc(n + 32);
    /* A regular file (or a new one) is written beside and renamed into place, so a reader never
     * sees half a profile; anything else that exists (/dev/stdout, a FIFO, /dev/full) is written
     * directly: a rename would replace the device node or the FIFO with a file. */
    struct stat st;
    int direct = stat(path, &st) == 0 && !S_ISREG(st.st_mode);
    if (direct)
        snprintf(tmp, n + 32, "%s", path);
    else
        snprintf(tmp, n + 32, "%s.tmp%ld", path, (long)getpid());
    const char *step = "create";
    int e = 0, rc = -1;
    int fd = direct ? open(tmp, O_WRONLY | O_TRUNC | O_CLOEXEC)
                    : open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    gzFile gz = NULL;
    if (fd < 0) {
        e = errno;
    } else {
        /* Level 1 like Go's runtime/pprof: profiles are written often, read rarely. */
        gz = gzdopen(fd, "wb1");
        if (!gz) {
            e = ENOMEM;
            close(fd);
        }
    }
    if (gz) {
        step = "write";
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
        if (rc == 0 && !direct && rename(tmp, path) != 0) {
            e = errno;
            step = "rename into place";
            rc = -1;
        }
        if (rc != 0 && !direct)
            unlink(tmp);
    }
    if (rc != 0) {
        if (strcmp(step, "rename into place") == 0 || direct)
            snprintf(err, errlen, "%s: %s", path, strerror(e));
        else
            snprintf(err, errlen, "%s: cannot %s %s: %s", path, step, tmp, strerror(e));
        errno = e;
    }
    free(tmp);
    buf_free(&b);
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
