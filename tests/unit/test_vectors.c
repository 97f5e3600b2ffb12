/* Golden vectors, device side: each tests/vectors/NAME.txt listing is encoded with the device's
 * record layouts and frame writer (each listed frame one event), and must equal NAME.bin byte for
 * byte. A build with MSAMP_CFG_SEND_ADDRESSES takes the listings whose device sends addresses, one
 * without it the others (unit-vectors runs both). With --regen the .bin files
 * are written instead (then check them by hand and with msamp-dump before committing).
 * Usage: test_vectors [--regen] FILE.txt... */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "msamp_internal.h"
#include "writer_port.h" /* the clock is unused: the listings give every dt */

static int in_frame;
static struct msamp_writer ev;

/* Ends the listing's frame: one event, closed and handed to the transport. */
static void flush_frame(void)
{
    if (!in_frame)
        return;
    CHECK_EQ(msamp_event_end(&ev, 0), 0);
    msamp_writer_close();
    while (msamp_ring_drain() > 0)
        ;
    in_frame = 0;
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
    memset(&msamp_core, 0, sizeof msamp_core);
    while (fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        char type[32] = "";
        sscanf(line, "%31s", type);
        uint64_t v64[2];
        uint64_t addr = 0;
        int has_addr = field(line, "addr", &addr);
        unsigned rtype = MSAMP_REC_INVALID;
        msamp_layout_fn layout = NULL;
        const void *arg = NULL;
        struct msamp_session_fields s = {0};
        struct msamp_stack_fields st = {0};
        struct msamp_varints64 f64 = {v64, 0};
        struct msamp_bytes text = {NULL, 0};
        struct msamp_mapping m = {0};
        static uintptr_t pcs[256];
        static uint8_t bid[64];
        static char textb[256], pathb[512];
        struct msamp_task_fields tk;
        if (strcmp(type, "frame") != 0 && !in_frame) {
            fprintf(stderr, "%s:%d: record outside a frame\n", path, lineno);
            check_failures++;
            continue;
        }
        if (strcmp(type, "frame") == 0) {
            flush_frame();
            msamp_core.seq = (uint8_t)need(line, "seq", lineno);
            msamp_event_begin(&ev);
            in_frame = 1;
            continue;
        } else if (strcmp(type, "SESSION") == 0) {
            s.flags = (uint32_t)need(line, "flags", lineno);
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
                    s.arch = i;
            s.ptr_size = (uint32_t)need(line, "ptr_size", lineno);
            s.tick_hz = (uint32_t)need(line, "tick_hz", lineno);
            s.interval = (uint32_t)need(line, "interval", lineno);
            s.live_capacity = (uint32_t)need(line, "live_capacity", lineno);
            s.stack_capacity = (uint32_t)need(line, "stack_capacity", lineno);
            s.max_depth = (uint32_t)need(line, "max_depth", lineno);
            s.build_id_len = (uint32_t)hex_bytes(line, "build_id", bid, sizeof bid);
            s.build_id = bid;
            static char devb[MSAMP_WIRE_MAX_DEVICE_ID + 1];
            s.device_id_len = (uint32_t)quoted(line, "device_id", devb, MSAMP_WIRE_MAX_DEVICE_ID);
            s.device_id = (const uint8_t *)devb;
            rtype = MSAMP_REC_SESSION, layout = msamp_layout_session, arg = &s;
        } else if (strcmp(type, "STACK") == 0) {
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
            st = (struct msamp_stack_fields){(uint32_t)need(line, "id", lineno), n, pcs};
            rtype = MSAMP_REC_STACK, layout = msamp_layout_stack, arg = &st;
        } else if ((strcmp(type, "ALLOC") == 0 || strcmp(type, "REALLOC") == 0) &&
                   has_addr != MSAMP_CFG_SEND_ADDRESSES) {
            /* A record this build's layout never makes (an ALLOC without the address in a stream
             * that carries them, for the decoder's sake): its varints as listed. */
            uintptr_t v[6];
            unsigned n = 0;
            if (type[0] == 'R')
                v[n++] = (uintptr_t)need(line, "old_slot", lineno);
            v[n++] = (uintptr_t)need(line, type[0] == 'R' ? "new_slot1" : "slot1", lineno);
            v[n++] = (uintptr_t)need(line, "size", lineno);
            v[n++] = (uintptr_t)need(line, "stack", lineno);
            v[n++] = (uintptr_t)need(line, "dt", lineno);
            if (has_addr)
                v[n++] = (uintptr_t)addr;
            msamp_event_varints(type[0] == 'R' ? MSAMP_REC_REALLOC : MSAMP_REC_ALLOC, v, n);
        } else if (strcmp(type, "ALLOC") == 0 || strcmp(type, "REALLOC") == 0) {
            int re = type[0] == 'R';
            msamp_rec_alloc(re ? (int32_t)need(line, "old_slot", lineno) : -1,
                            (uint32_t)need(line, re ? "new_slot1" : "slot1", lineno),
                            (uintptr_t)need(line, "size", lineno), (uint32_t)need(line, "stack", lineno),
                            (uintptr_t)need(line, "dt", lineno), (uintptr_t)addr);
        } else if (strcmp(type, "FREE") == 0) {
            uint64_t moved = 0;
            (void)field(line, "moved", &moved);
            msamp_rec_free((uint32_t)need(line, "slot", lineno), (uintptr_t)need(line, "dt", lineno),
                           (unsigned)moved);
        } else if (strcmp(type, "LIVE") == 0) {
            msamp_rec_live((uint32_t)need(line, "slot", lineno), (uintptr_t)need(line, "size", lineno),
                           (uint32_t)need(line, "stack", lineno), (uint32_t)need(line, "birth", lineno),
                           (uintptr_t)addr, atomic_load(&msamp_core.interval));
            CHECK_EQ(has_addr, MSAMP_CFG_SEND_ADDRESSES);
        } else if (strcmp(type, "SNAP_BEGIN") == 0) {
            v64[f64.n++] = need(line, "pass", lineno);
            v64[f64.n++] = need(line, "ts", lineno);
            rtype = MSAMP_REC_SNAP_BEGIN, layout = msamp_layout_varints64, arg = &f64;
        } else if (strcmp(type, "SNAP_END") == 0) {
            msamp_rec_snap_end((uint32_t)need(line, "pass", lineno), (uint32_t)need(line, "count", lineno));
        } else if (strcmp(type, "DROPS") == 0) {
            const char *k[MSAMP_DROP_COUNT] = {"ring_records", "ring_bytes", "live_full",
                                               "stack_full", "reentrant", "truncated", "no_frame",
                                               "out_of_bounds"};
            uint32_t c[MSAMP_DROP_COUNT];
            uint64_t v;
            /* The trailing counters the listing has: a device from before no_frame sent six, one
             * from before out_of_bounds seven; this build's own writer sends them all. */
            unsigned n = MSAMP_DROP_NO_FRAME;
            while (n < MSAMP_DROP_COUNT && field(line, k[n], &v))
                n++;
            if (n == MSAMP_DROP_COUNT) {
                for (unsigned i = 0; i < MSAMP_DROP_COUNT; i++)
                    c[i] = (uint32_t)need(line, k[i], lineno);
                msamp_rec_drops(c);
            } else {
                uintptr_t w[MSAMP_DROP_COUNT];
                for (unsigned i = 0; i < n; i++)
                    w[i] = (uintptr_t)need(line, k[i], lineno);
                msamp_event_varints(MSAMP_REC_DROPS, w, n);
            }
        } else if (strcmp(type, "FAIL") == 0) {
            msamp_rec_fail((unsigned)need(line, "kind", lineno), (uintptr_t)need(line, "size", lineno),
                           (uint32_t)need(line, "stack", lineno), (uintptr_t)need(line, "dt", lineno),
                           (uint32_t)need(line, "count", lineno));
        } else if (strcmp(type, "INTERVAL") == 0) {
            msamp_rec_interval((uint32_t)need(line, "interval", lineno), (uintptr_t)need(line, "dt", lineno),
                               MSAMP_INTERVAL_SET, 0);
        } else if (strcmp(type, "TIME") == 0) {
            v64[f64.n++] = need(line, "ts", lineno);
            rtype = MSAMP_REC_TIME, layout = msamp_layout_varints64, arg = &f64;
        } else if (strcmp(type, "MARK") == 0) {
            text = (struct msamp_bytes){textb, (uint32_t)quoted(line, "text", textb, sizeof textb)};
            rtype = MSAMP_REC_MARK, layout = msamp_layout_bytes, arg = &text;
        } else if (strcmp(type, "CMD_ACK") == 0) {
            uint64_t series = 0; /* absent: an ack of a version-1 frame */
            (void)field(line, "series", &series);
            msamp_rec_cmd_ack((uint32_t)need(line, "seq", lineno), (unsigned)need(line, "cmd", lineno),
                              (unsigned)need(line, "status", lineno),
                              series);
        } else if (strcmp(type, "TASK") == 0) {
            size_t n = quoted(line, "name", textb, sizeof textb - 1);
            textb[n] = '\0';
            tk = (struct msamp_task_fields){(uint32_t)need(line, "task", lineno), (const char *)textb};
            rtype = MSAMP_REC_EXTENDED, layout = msamp_layout_task, arg = &tk;
        } else if (strcmp(type, "HEAP") == 0) {
            struct msamp_heap_stats h = {
                .total = (uintptr_t)need(line, "total", lineno),
                .free = (uintptr_t)need(line, "free", lineno),
                .min_free = (uintptr_t)need(line, "min_free", lineno),
                .largest_free = (uintptr_t)need(line, "largest_free", lineno),
                .free_blocks = (uintptr_t)need(line, "free_blocks", lineno),
                .valid = (uint32_t)need(line, "valid", lineno)};
            msamp_rec_heap((unsigned)need(line, "reason", lineno), &h, (uintptr_t)need(line, "dt", lineno));
        } else if (strcmp(type, "RESET") == 0) {
            CHECK_EQ(need(line, "dt", lineno), 0); /* the device's RESET is at the last time known */
            msamp_rec_reset((uint32_t)need(line, "cause", lineno), (uint32_t)need(line, "samples", lineno),
                            (uint32_t)need(line, "frees", lineno), (uint32_t)need(line, "dropped", lineno));
        } else if (strcmp(type, "SAMPLE_TASK") == 0) {
            msamp_rec_sample_task((uint32_t)need(line, "task", lineno));
        } else if (strcmp(type, "MAPPING") == 0) {
            m.start = (uintptr_t)need(line, "start", lineno);
            m.limit = (uintptr_t)need(line, "limit", lineno);
            m.offset = (uintptr_t)need(line, "offset", lineno);
            m.build_id_len = hex_bytes(line, "build_id", bid, sizeof bid);
            m.build_id = bid;
            size_t n = quoted(line, "path", pathb, sizeof pathb - 1);
            pathb[n] = '\0';
            m.path = pathb;
            rtype = MSAMP_REC_MAPPING, layout = msamp_layout_mapping, arg = &m;
        } else {
            fprintf(stderr, "%s:%d: unknown line type %s\n", path, lineno, type);
            check_failures++;
            continue;
        }
        if (layout != NULL)
            msamp_event_record(rtype, layout, arg);
    }
    flush_frame();
    fclose(f);
    return 0;
}

/* A field of the listing's first SESSION (0 when there is none). */
static uint64_t session_field(const char *path, const char *key)
{
    FILE *f = fopen(path, "r");
    char line[8192];
    uint64_t v = 0;
    while (f != NULL && fgets(line, sizeof line, f))
        if (strncmp(line, "SESSION ", 8) == 0 && field(line, key, &v))
            break;
    if (f != NULL)
        fclose(f);
    return v;
}

/* Whether the listing's device sends addresses (its SESSION's flags): the device's record layouts
 * are built for one or the other (MSAMP_CFG_SEND_ADDRESSES), so each build encodes its own kind. */
static int sends_addresses(const char *path)
{
    return (session_field(path, "flags") & MSAMP_SESSION_FLAG_ADDRESSES) != 0;
}

int main(int argc, char **argv)
{
    int regen = argc > 1 && strcmp(argv[1], "--regen") == 0;
    int files = 0;
    for (int i = 1 + regen; i < argc; i++) {
        /* A stream of an older wire version (NAME_v1): the decoder's, which reads it still
         * (vectors-decode); this device writes the current version only. */
        if (session_field(argv[i], "version") != MSAMP_WIRE_VERSION) {
            printf("%s: wire version %u, not this device's\n", argv[i],
                   (unsigned)session_field(argv[i], "version"));
            continue;
        }
        if (sends_addresses(argv[i]) != MSAMP_CFG_SEND_ADDRESSES) {
            printf("%s: addresses %s, not in this build\n", argv[i],
                   MSAMP_CFG_SEND_ADDRESSES ? "off" : "on");
            continue;
        }
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
