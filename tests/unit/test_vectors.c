/* Golden vectors, device side: each tests/vectors/NAME.txt listing is encoded with the device's
 * record encoders and framer, and must equal NAME.bin byte for byte. With --regen the .bin files
 * are written instead (then check them by hand and with msamp-dump before committing).
 * Usage: test_vectors [--regen] FILE.txt... */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "msamp_internal.h"

static uint8_t out[1 << 16];
static size_t out_len;
static uint8_t body[MSAMP_WIRE_MAX_BODY];
static size_t body_len; /* records after the seq byte */
static int in_frame;
static uint8_t seq;

static void flush_frame(void)
{
    if (!in_frame)
        return;
    size_t len = msamp_frame_seal(body, seq, body_len);
    struct msamp_cobs c;
    msamp_cobs_start(&c, body, len);
    size_t n;
    while ((n = msamp_cobs_emit(&c, out + out_len, 7)) != 0)
        out_len += n;
    in_frame = 0;
}

static void add(const uint8_t *rec, size_t size)
{
    memcpy(body + 1 + body_len, rec, size);
    body_len += size;
}

/* The value of key= on the line, as a number (0x... hex or decimal). */
static int field(const char *line, const char *key, uint64_t *v)
{
    char pat[32];
    snprintf(pat, sizeof pat, " %s=", key);
    const char *p = strstr(line, pat);
    if (p == NULL)
        return 0;
    *v = strtoull(p + strlen(pat), NULL, 0);
    return 1;
}

static uint64_t need(const char *line, const char *key, int lineno)
{
    uint64_t v;
    if (!field(line, key, &v)) {
        fprintf(stderr, "line %d: missing %s\n", lineno, key);
        check_failures++;
        return 0;
    }
    return v;
}

static size_t hex_bytes(const char *line, const char *key, uint8_t *outb, size_t cap)
{
    char pat[32];
    snprintf(pat, sizeof pat, " %s=", key);
    const char *p = strstr(line, pat);
    size_t n = 0;
    if (p == NULL)
        return 0;
    p += strlen(pat);
    while (n < cap && isxdigit((unsigned char)p[0]) && isxdigit((unsigned char)p[1])) {
        unsigned b;
        sscanf(p, "%2x", &b);
        outb[n++] = (uint8_t)b;
        p += 2;
    }
    return n;
}

/* A quoted string with \xHH escapes. */
static size_t quoted(const char *line, const char *key, char *outs, size_t cap)
{
    char pat[32];
    snprintf(pat, sizeof pat, " %s=\"", key);
    const char *p = strstr(line, pat);
    size_t n = 0;
    if (p == NULL)
        return 0;
    for (p += strlen(pat); *p && *p != '"' && n < cap; p++) {
        if (p[0] == '\\' && p[1] == 'x') {
            unsigned b;
            sscanf(p + 2, "%2x", &b);
            outs[n++] = (char)b;
            p += 3;
        } else {
            outs[n++] = *p;
        }
    }
    return n;
}

static int encode_listing(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        perror(path);
        return -1;
    }
    char line[8192];
    int lineno = 0;
    out_len = 0;
    in_frame = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        char type[32] = "";
        sscanf(line, "%31s", type);
        uint8_t buf[3 + MSAMP_WIRE_MAX_BODY];
        struct msamp_rec r;
        const uint8_t *rec = NULL;
        uint64_t v[6];
        uint64_t addr;
        uintptr_t a;
        int has_addr = field(line, "addr", &addr);
        a = (uintptr_t)addr;
        if (strcmp(type, "frame") == 0) {
            flush_frame();
            seq = (uint8_t)need(line, "seq", lineno);
            body_len = 0;
            in_frame = 1;
            continue;
        } else if (strcmp(type, "SESSION") == 0) {
            static uint8_t bid[64];
            struct msamp_session_fields s = {0};
            s.flags = (uint8_t)need(line, "flags", lineno);
            s.session_id = (uint32_t)need(line, "session_id", lineno);
            s.resend_seq = (uint32_t)need(line, "resend_seq", lineno);
            char arch[32] = "";
            const char *ap = strstr(line, " arch=");
            if (ap)
                sscanf(ap + 6, "%31s", arch);
            const char *names[] = {"unknown", "x86_64", "aarch64", "arm", "thumb",
                                   "mips64", "riscv64", "riscv32", "x86"};
            for (unsigned i = 0; i < 9; i++)
                if (strcmp(arch, names[i]) == 0)
                    s.arch = (uint8_t)i;
            s.ptr_size = (uint8_t)need(line, "ptr_size", lineno);
            s.tick_hz = (uint32_t)need(line, "tick_hz", lineno);
            s.interval = (uint32_t)need(line, "interval", lineno);
            s.live_capacity = (uint32_t)need(line, "live_capacity", lineno);
            s.stack_capacity = (uint32_t)need(line, "stack_capacity", lineno);
            s.max_depth = (uint32_t)need(line, "max_depth", lineno);
            s.build_id_len = (uint8_t)hex_bytes(line, "build_id", bid, sizeof bid);
            s.build_id = bid;
            rec = msamp_enc_session(&r, buf, &s);
        } else if (strcmp(type, "STACK") == 0) {
            uintptr_t pcs[256];
            uint32_t depth = (uint32_t)need(line, "depth", lineno), n = 0;
            const char *p = strstr(line, " frames=");
            p = p ? p + 8 : "";
            while (n < 256) {
                char *end;
                pcs[n++] = (uintptr_t)strtoull(p, &end, 0);
                if (*end != ',')
                    break;
                p = end + 1;
            }
            CHECK_EQ(n, depth);
            rec = msamp_enc_stack(&r, buf, (uint32_t)need(line, "id", lineno), pcs, n);
        } else if (strcmp(type, "ALLOC") == 0) {
            rec = msamp_enc_alloc(&r, buf, -1, need(line, "slot1", lineno), need(line, "size", lineno),
                                  (uint32_t)need(line, "stack", lineno), need(line, "dt", lineno),
                                  has_addr ? &a : NULL);
        } else if (strcmp(type, "REALLOC") == 0) {
            rec = msamp_enc_alloc(&r, buf, (int64_t)need(line, "old_slot", lineno),
                                  need(line, "new_slot1", lineno), need(line, "size", lineno),
                                  (uint32_t)need(line, "stack", lineno), need(line, "dt", lineno),
                                  has_addr ? &a : NULL);
        } else if (strcmp(type, "FREE") == 0) {
            rec = msamp_enc_free(&r, buf, (uint32_t)need(line, "slot", lineno), need(line, "dt", lineno));
        } else if (strcmp(type, "LIVE") == 0) {
            rec = msamp_enc_live(&r, buf, (uint32_t)need(line, "slot", lineno), need(line, "size", lineno),
                                 (uint32_t)need(line, "stack", lineno),
                                 (uint32_t)need(line, "birth", lineno), has_addr ? &a : NULL);
        } else if (strcmp(type, "SNAP_BEGIN") == 0) {
            v[0] = need(line, "pass", lineno);
            v[1] = need(line, "ts", lineno);
            rec = msamp_enc_varints(&r, buf, MSAMP_REC_SNAP_BEGIN, v, 2);
        } else if (strcmp(type, "SNAP_END") == 0) {
            v[0] = need(line, "pass", lineno);
            v[1] = need(line, "count", lineno);
            rec = msamp_enc_varints(&r, buf, MSAMP_REC_SNAP_END, v, 2);
        } else if (strcmp(type, "DROPS") == 0) {
            const char *k[6] = {"ring_records", "ring_bytes", "live_full", "stack_full", "reentrant",
                                "truncated"};
            for (unsigned i = 0; i < 6; i++)
                v[i] = need(line, k[i], lineno);
            rec = msamp_enc_varints(&r, buf, MSAMP_REC_DROPS, v, 6);
        } else if (strcmp(type, "INTERVAL") == 0) {
            v[0] = need(line, "interval", lineno);
            v[1] = need(line, "dt", lineno);
            rec = msamp_enc_varints(&r, buf, MSAMP_REC_INTERVAL, v, 2);
        } else if (strcmp(type, "TIME") == 0) {
            v[0] = need(line, "ts", lineno);
            rec = msamp_enc_varints(&r, buf, MSAMP_REC_TIME, v, 1);
        } else if (strcmp(type, "MARK") == 0) {
            char text[256];
            size_t n = quoted(line, "text", text, sizeof text);
            rec = msamp_enc_mark(&r, buf, text, n);
        } else if (strcmp(type, "MAPPING") == 0) {
            static uint8_t bid[64];
            static char pathb[512];
            struct msamp_mapping m = {0};
            m.start = (uintptr_t)need(line, "start", lineno);
            m.limit = (uintptr_t)need(line, "limit", lineno);
            m.offset = (uintptr_t)need(line, "offset", lineno);
            m.build_id_len = hex_bytes(line, "build_id", bid, sizeof bid);
            m.build_id = bid;
            size_t n = quoted(line, "path", pathb, sizeof pathb - 1);
            pathb[n] = '\0';
            m.path = pathb;
            rec = msamp_enc_mapping(&r, buf, &m, sizeof pathb);
        } else {
            fprintf(stderr, "%s:%d: unknown line type %s\n", path, lineno, type);
            check_failures++;
            continue;
        }
        if (!in_frame) {
            fprintf(stderr, "%s:%d: record outside a frame\n", path, lineno);
            check_failures++;
            continue;
        }
        add(rec, r.size);
    }
    flush_frame();
    fclose(f);
    return 0;
}

int main(int argc, char **argv)
{
    int regen = argc > 1 && strcmp(argv[1], "--regen") == 0;
    int files = 0;
    for (int i = 1 + regen; i < argc; i++) {
        if (encode_listing(argv[i]) != 0) {
            check_failures++;
            continue;
        }
        char bin[1024];
        snprintf(bin, sizeof bin, "%.*s.bin", (int)(strlen(argv[i]) - 4), argv[i]);
        if (regen) {
            FILE *f = fopen(bin, "wb");
            if (f == NULL || fwrite(out, 1, out_len, f) != out_len || fclose(f) != 0) {
                perror(bin);
                return 1;
            }
            printf("wrote %s (%zu bytes)\n", bin, out_len);
            continue;
        }
        static uint8_t want[1 << 16];
        FILE *f = fopen(bin, "rb");
        size_t n = f ? fread(want, 1, sizeof want, f) : 0;
        if (f)
            fclose(f);
        CHECK(f != NULL);
        CHECK_EQ(n, out_len);
        CHECK(n == out_len && memcmp(want, out, n) == 0);
        files++;
    }
    CHECK(files > 0 || regen);
    printf("%d vector files compared\n", files);
    return check_report("unit-vectors");
}
