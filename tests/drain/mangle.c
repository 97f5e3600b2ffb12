/*
 * Damages a stream file for drain's robustness tests. usage: mangle MODE N SEED IN OUT
 *   flip N      flip one bit in each of N random bytes
 *   drop N      delete N random runs of 1..64 bytes
 *   garbage N   insert N random runs of 1..100 random bytes (zeros included)
 *   truncate N  keep the first N per mille of the bytes
 *   cutmid N    cut 5 bytes after the frame end nearest to N per mille (ends mid-frame)
 *   skip N      drop the first N per mille of the bytes (a reader joining late, mid-frame)
 *   noise N     a noisy line: each byte is hit with probability N per 10^6, by one of (equally
 *               likely) a bit flip, a dropped byte, an inserted random byte, or a run of 1..32
 *               bytes repeated (a duplicated stretch)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long rng;

static unsigned long long rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: mangle MODE N SEED IN OUT\n");
        return 2;
    }
    const char *mode = argv[1];
    size_t n = strtoul(argv[2], NULL, 0);
    rng = strtoull(argv[3], NULL, 0) | 1;
    FILE *f = fopen(argv[4], "rb");
    if (!f) {
        perror(argv[4]);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    size_t len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    size_t cap = len + n * 100 + 16;
    if (!strcmp(mode, "noise"))
        cap = len * 2 + 64;
    unsigned char *b = malloc(cap);
    if (!b || fread(b, 1, len, f) != len) {
        fprintf(stderr, "mangle: cannot read %s\n", argv[4]);
        return 1;
    }
    fclose(f);
    size_t start = 0;
    if (!strcmp(mode, "flip")) {
        for (size_t i = 0; i < n && len; i++)
            b[rnd() % len] ^= (unsigned char)(1u << (rnd() % 8));
    } else if (!strcmp(mode, "drop")) {
        for (size_t i = 0; i < n && len > 64; i++) {
            size_t at = rnd() % (len - 64), k = 1 + rnd() % 64;
            memmove(b + at, b + at + k, len - at - k);
            len -= k;
        }
    } else if (!strcmp(mode, "garbage")) {
        for (size_t i = 0; i < n; i++) {
            size_t at = len ? rnd() % len : 0, k = 1 + rnd() % 100;
            memmove(b + at + k, b + at, len - at);
            for (size_t j = 0; j < k; j++)
                b[at + j] = (unsigned char)(rnd() % 4 == 0 ? 0 : rnd());
            len += k;
        }
    } else if (!strcmp(mode, "truncate")) {
        len = len * n / 1000;
    } else if (!strcmp(mode, "cutmid")) {
        size_t at = len * n / 1000;
        while (at < len && b[at] != 0)
            at++;
        if (at + 6 < len)
            len = at + 6;
    } else if (!strcmp(mode, "skip")) {
        start = len * n / 1000;
    } else if (!strcmp(mode, "noise")) {
        unsigned char *o = malloc(cap);
        if (!o) {
            fprintf(stderr, "mangle: out of memory\n");
            return 1;
        }
        size_t ol = 0;
        for (size_t i = 0; i < len && ol + 40 < cap; i++) {
            if (rnd() % 1000000 >= n) {
                o[ol++] = b[i];
                continue;
            }
            switch (rnd() % 4) {
            case 0: o[ol++] = b[i] ^ (unsigned char)(1u << (rnd() % 8)); break;
            case 1: break; /* dropped */
            case 2:
                o[ol++] = (unsigned char)rnd();
                o[ol++] = b[i];
                break;
            default: {
                /* b[from..i] twice in a row: the stretch ending here is repeated */
                size_t k = 1 + rnd() % 32, from = i >= k ? i - k : 0;
                o[ol++] = b[i];
                for (size_t j = from; j <= i; j++)
                    o[ol++] = b[j];
                break;
            }
            }
        }
        free(b);
        b = o;
        len = ol;
    } else {
        fprintf(stderr, "mangle: unknown mode %s\n", mode);
        return 2;
    }
    FILE *o = fopen(argv[5], "wb");
    if (!o || fwrite(b + start, 1, len - start, o) != len - start || fclose(o) != 0) {
        perror(argv[5]);
        return 1;
    }
    free(b);
    return 0;
}
