#include "prof_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "prof_codec.h"

int prof_write_file(const struct prof *p, const char *path)
{
    struct buf b = {0};
    prof_encode(p, &b);
    size_t n = strlen(path);
    char *tmp = xmalloc(n + 16);
    snprintf(tmp, n + 16, "%s.tmp%ld", path, (long)getpid());
    /* Level 1 like Go's runtime/pprof: profiles are written often, read rarely. */
    gzFile gz = gzopen(tmp, "wb1");
    int rc = -1;
    if (gz) {
        size_t off = 0;
        rc = 0;
        while (off < b.len) {
            unsigned chunk = b.len - off > (1u << 30) ? 1u << 30 : (unsigned)(b.len - off);
            if (gzwrite(gz, b.p + off, chunk) != (int)chunk) {
                rc = -1;
                break;
            }
            off += chunk;
        }
        if (gzclose(gz) != Z_OK)
            rc = -1;
        if (rc == 0 && rename(tmp, path) != 0)
            rc = -1;
        if (rc != 0) {
            int e = errno ? errno : EIO;
            unlink(tmp);
            errno = e;
        }
    }
    free(tmp);
    buf_free(&b);
    return rc;
}

/* Largest profile read by merge (uncompressed): bounds memory whatever a file claims. */
#define PROF_MAX_FILE (1024u * 1024u * 1024u)

int prof_read_file(struct prof *p, const char *path, char *err, size_t errlen)
{
    gzFile gz = gzopen(path, "rb");
    if (!gz) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno ? errno : ENOMEM));
        return -1;
    }
    struct buf b = {0};
    int rc = 0;
    for (;;) {
        GROW(b.p, b.cap, b.len + 65536);
        int n = gzread(gz, b.p + b.len, 65536);
        if (n < 0) {
            int zerr;
            snprintf(err, errlen, "%s: %s", path, gzerror(gz, &zerr));
            rc = -1;
            break;
        }
        if (n == 0)
            break;
        b.len += (size_t)n;
        if (b.len > PROF_MAX_FILE) {
            snprintf(err, errlen, "%s: larger than %u bytes uncompressed", path, PROF_MAX_FILE);
            rc = -1;
            break;
        }
    }
    gzclose(gz);
    if (rc == 0) {
        char e[256];
        prof_init(p);
        if (prof_decode(p, b.p, b.len, e, sizeof(e)) != 0) {
            snprintf(err, errlen, "%s: %s", path, e);
            prof_free(p);
            rc = -1;
        }
    }
    buf_free(&b);
    return rc;
}
