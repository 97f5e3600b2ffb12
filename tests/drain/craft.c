/*
 * Crafts hostile but well-formed msamp streams (valid COBS frames and CRCs: every record reaches
 * drain's model) for drain's bounds test (t_bounds.sh). usage: craft MODE N OUT.bin
 * N scales the stream: its size grows linearly with N.
 *   snapstorm   SESSION declaring 2^20 live slots, 2000 live entries spread over them, then N
 *               snapshot passes (SNAP_BEGIN, one LIVE, SNAP_END; every 4th pass SNAP_BEGIN alone)
 *   thinstorm   SESSION, 20000 live entries, then N INTERVAL raises of +1 byte (each a thinning
 *               over the whole live table)
 *   mapstorm    N sessions, each: SESSION, 256 MAPPINGs of small ranges, one 256-frame stack with a
 *               frame in every mapping, one ALLOC
 *   frames      SESSION, N distinct 256-frame stacks (1-byte deltas), one ALLOC each
 *   huge        SESSION declaring capacities, depth and interval 2^64-1, then N records with
 *               huge slots, stack ids, sizes, passes and intervals
 *   sessions    N sessions of one stack and one ALLOC each
 *   empty       N sessions with a header only
 *   spans       N sessions of one stack, a TIME, an ALLOC and 30 more ALLOCs each 2^k ticks
 *               later (k 10..39): short sessions whose timeline's bins are widened 30 times
 *   lateend     N sessions of one stack, a TIME, 128 ALLOCs 1000 ticks apart (all kept live: a
 *               site that grows) and a TIME 2^40 ticks later: the growth window's end lies far
 *               past the bins of the last change
 *   stacks      SESSION, N stacks with scattered 64-bit ids (depth 4), an ALLOC each, then every
 *               id redefined once
 *   sitemaps    SESSION, 256 MAPPINGs, N stacks of 64 frames spread over the mappings
 *   prehdr      N ALLOC/LIVE/STACK records and no SESSION at all (the pre-header buffer)
 *   marks       SESSION, N MARKs, N MAPPINGs (new and repeated), DROPS
 *   bigslots    SESSION of interval 1 and a 2^21-slot live table, N (at most 2^21) ALLOCs of 100
 *               bytes scattered over all its slots, every third freed: in use (N - ceil(N/3)) * 100
 *               bytes exactly (each sample weighs 1)
 *   tasksites   SESSION, one 1 MB ALLOC of task 1 at stack 1, then N sites: SAMPLE_TASK (tasks 1..
 *               65535) and an ALLOC at one of N/65535+1 256-frame stacks, each (stack, task) new
 *   paced       a session in two parts for the clock's check (t_clock.sh): OUT.bin holds SESSION
 *               (tick_hz 10000), a stack, a TIME and 10 ALLOCs a tick apart; OUT.bin.tail 10 more
 *               ALLOCs, the first N ticks after the last of OUT.bin, the rest a tick apart: the
 *               records span N + 19 ticks of device time, whatever pause the reader puts between
 *               the two files
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "streamgen.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A SESSION with every capacity given. */
static void session(struct sg *g, uint32_t id, uint64_t resend, uint64_t interval,
                    uint64_t live_cap, uint64_t stack_cap, uint64_t depth)
{
    static const uint8_t bid[20] = {0xb1, 0xd0};
    sg_begin(g);
    sg_u8(g, 1);
    sg_u8(g, 0);
    for (int i = 0; i < 4; i++)
        sg_u8(g, (uint8_t)(id >> (8 * i)));
    sg_var(g, resend);
    sg_u8(g, MSAMP_ARCH_AARCH64);
    sg_u8(g, 8);
    sg_var(g, 10000);
    sg_var(g, interval);
    sg_var(g, live_cap);
    sg_var(g, stack_cap);
    sg_var(g, depth);
    sg_u8(g, sizeof(bid));
    for (size_t i = 0; i < sizeof(bid); i++)
        sg_u8(g, bid[i]);
    sg_end(g, MSAMP_REC_SESSION);
}

static void stack_line(struct sg *g, uint64_t id, uint64_t base, uint32_t depth, uint64_t step)
{
    uint64_t fr[MSAMP_WIRE_MAX_DEPTH];
    for (uint32_t i = 0; i < depth; i++)
        fr[i] = base + i * step;
    sg_stack(g, id, fr, depth);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: craft MODE N OUT.bin\n");
        return 2;
    }
    const char *mode = argv[1];
    uint64_t n = strtoull(argv[2], NULL, 0);
    FILE *f = fopen(argv[3], "wb");
    if (!f) {
        perror(argv[3]);
        return 1;
    }
    struct sg g;
    sg_init(&g, f, 512);
    const uint64_t big = UINT64_MAX;
    (void)sg_session_flags; /* this tool declares every capacity itself (session()) */
    if (!strcmp(mode, "snapstorm")) {
        session(&g, 1, 0, 4096, 1u << 20, 1024, 32);
        stack_line(&g, 1, 0x400000, 3, 0x10);
        for (uint64_t i = 0; i < 2000; i++)
            SG(&g, MSAMP_REC_ALLOC, 1 + i * 523, 64, 1, 1);
        for (uint64_t p = 0; p < n; p++) {
            SG(&g, MSAMP_REC_SNAP_BEGIN, p, p);
            if (p % 4 == 3)
                continue;
            SG(&g, MSAMP_REC_LIVE, (p % 2000) * 523, 64, 1, p);
            SG(&g, MSAMP_REC_SNAP_END, p, 1);
        }
    } else if (!strcmp(mode, "thinstorm")) {
        session(&g, 1, 0, 4096, 1u << 20, 1024, 32);
        stack_line(&g, 1, 0x400000, 3, 0x10);
        for (uint64_t i = 0; i < 20000; i++)
            SG(&g, MSAMP_REC_ALLOC, 1 + i, 64, 1, 1);
        for (uint64_t i = 0; i < n; i++)
            SG(&g, MSAMP_REC_INTERVAL, 4097 + i, 1, MSAMP_INTERVAL_LIVE_HIGH, i);
    } else if (!strcmp(mode, "mapstorm")) {
        for (uint64_t s = 0; s < n; s++) {
            session(&g, (uint32_t)s + 1, 0, 4096, 256, 256, 256);
            char path[32];
            for (int m = 0; m < 256; m++) {
                snprintf(path, sizeof(path), "/l%d.so", m);
                sg_mapping(&g, (uint64_t)m << 16, ((uint64_t)m << 16) + 0x8000, 0, NULL, 0, path);
            }
            stack_line(&g, 1, 0x100, 256, 1u << 16);
            SG(&g, MSAMP_REC_ALLOC, 1, 100, 1, 1);
        }
    } else if (!strcmp(mode, "frames")) {
        session(&g, 1, 0, 4096, 1u << 20, big, 256);
        for (uint64_t i = 0; i < n; i++) {
            stack_line(&g, i + 1, 0x400000 + i * 4096, 256, 1);
            SG(&g, MSAMP_REC_ALLOC, 0, 64, i + 1, 1);
        }
    } else if (!strcmp(mode, "huge")) {
        session(&g, 1, 0, big, big, big, big);
        for (uint64_t i = 0; i < n; i++) {
            uint64_t r = rnd();
            switch (i % 8) {
            case 0: SG(&g, MSAMP_REC_ALLOC, r | (1ull << 19), big, r, 1); break;
            case 1: SG(&g, MSAMP_REC_LIVE, r % (1u << 20), big - i, r >> 1, r, 0, big); break;
            case 2: SG(&g, MSAMP_REC_FREE, r, 1); break;
            case 3: SG(&g, MSAMP_REC_SNAP_BEGIN, r, r); break;
            case 4: SG(&g, MSAMP_REC_SNAP_END, r, big); break;
            case 5: SG(&g, MSAMP_REC_INTERVAL, r | 1, 1, 1 + r % 3, r); break;
            case 6: SG(&g, MSAMP_REC_REALLOC, r, r >> 3, big, r >> 7, 1); break;
            default: SG(&g, MSAMP_REC_DROPS, big, big, big, big, big, big); break;
            }
        }
    } else if (!strcmp(mode, "sessions") || !strcmp(mode, "empty")) {
        int empty = !strcmp(mode, "empty");
        for (uint64_t s = 0; s < n; s++) {
            session(&g, (uint32_t)s + 1, 0, 4096, 64, 64, 32);
            if (empty)
                continue;
            stack_line(&g, 1, 0x400000 + s * 16, 3, 0x10);
            SG(&g, MSAMP_REC_ALLOC, 1, 64, 1, 1);
        }
    } else if (!strcmp(mode, "spans")) {
        for (uint64_t s = 0; s < n; s++) {
            session(&g, (uint32_t)s + 1, 0, 4096, 64, 64, 32);
            stack_line(&g, 1, 0x400000 + s * 16, 3, 0x10);
            SG(&g, MSAMP_REC_TIME, 1000);
            SG(&g, MSAMP_REC_ALLOC, 1, 64, 1, 1);
            for (unsigned k = 10; k < 40; k++)
                SG(&g, MSAMP_REC_ALLOC, 2 + k, 64 << (k % 4), 1, 1ull << k);
        }
    } else if (!strcmp(mode, "lateend")) {
        for (uint64_t s = 0; s < n; s++) {
            session(&g, (uint32_t)s + 1, 0, 1, 256, 64, 32);
            stack_line(&g, 1, 0x400000 + s * 16, 3, 0x10);
            SG(&g, MSAMP_REC_TIME, 1000);
            for (unsigned k = 0; k < 128; k++) /* the last in the bins' last (31 of 4096 ticks) */
                SG(&g, MSAMP_REC_ALLOC, 1 + k, 100, 1, 1000);
            SG(&g, MSAMP_REC_TIME, 1000 + 128 * 1000 + (1ull << 40));
        }
    } else if (!strcmp(mode, "stacks")) {
        session(&g, 1, 0, 4096, 1u << 20, big, 32);
        for (int pass = 0; pass < 2; pass++) {
            rng = 0x9e3779b97f4a7c15ull;
            for (uint64_t i = 0; i < n; i++) {
                uint64_t id = rnd() | 1;
                stack_line(&g, id, 0x400000 + i * 64 + (uint64_t)pass * 0x1000000, 4, 8);
                SG(&g, MSAMP_REC_ALLOC, 1 + i % 4096, 64, id, 1);
            }
        }
    } else if (!strcmp(mode, "sitemaps")) {
        session(&g, 1, 0, 4096, 1u << 20, big, 64);
        for (int m = 0; m < 256; m++) {
            char path[32];
            snprintf(path, sizeof(path), "/l%d.so", m);
            sg_mapping(&g, (uint64_t)m << 24, ((uint64_t)m + 1) << 24, 0, NULL, 0, path);
        }
        for (uint64_t i = 0; i < n; i++) {
            uint64_t fr[64];
            for (int k = 0; k < 64; k++)
                fr[k] = ((uint64_t)((i + (uint64_t)k * 4) % 256) << 24) + (i % 4096) * 16 + 4;
            sg_stack(&g, i + 1, fr, 64);
            SG(&g, MSAMP_REC_ALLOC, 0, 64, i + 1, 1);
        }
    } else if (!strcmp(mode, "prehdr")) {
        for (uint64_t i = 0; i < n; i++) {
            if (i % 3 == 0)
                stack_line(&g, 1 + i % 1000, 0x400000 + (i % 1000) * 64, 8, 16);
            else if (i % 3 == 1)
                SG(&g, MSAMP_REC_ALLOC, 1 + i % 60000, 64, 1 + i % 1000, 1);
            else
                SG(&g, MSAMP_REC_LIVE, i % 60000, 64, 1 + i % 1000, 5, 8192);
        }
    } else if (!strcmp(mode, "marks")) {
        session(&g, 1, 0, 4096, 64, 64, 32);
        for (uint64_t i = 0; i < n; i++) {
            char text[64];
            snprintf(text, sizeof(text), "mark %llu of a storm", (unsigned long long)i);
            sg_mark(&g, text);
            sg_mapping(&g, (i % 512) << 20, ((i % 512) << 20) + 4096, 0, NULL, 0, "/m.so");
            SG(&g, MSAMP_REC_DROPS, i, i, i, i, i, i);
        }
        stack_line(&g, 1, 0x400000, 3, 0x10);
        SG(&g, MSAMP_REC_ALLOC, 1, 64, 1, 1);
    } else if (!strcmp(mode, "bigslots")) {
        session(&g, 1, 0, 1, 1u << 21, 1024, 32);
        stack_line(&g, 1, 0x400000, 3, 0x10);
        for (uint64_t i = 0; i < n && i < (1u << 21); i++) {
            uint64_t slot = (i * 2654435761u) & ((1u << 21) - 1); /* odd: a permutation */
            SG(&g, MSAMP_REC_ALLOC, slot + 1, 100, 1, 1);
            if (i % 3 == 0)
                SG(&g, MSAMP_REC_FREE, slot, 1);
        }
    } else if (!strcmp(mode, "tasksites")) {
        session(&g, 1, 0, 4096, 1u << 20, big, 256);
        for (uint64_t k = 0; k <= n / 65535; k++)
            stack_line(&g, k + 1, 0x400000 + k * 4096, 256, 1);
        SG(&g, MSAMP_REC_EXTENDED, MSAMP_REC_SAMPLE_TASK, 1);
        SG(&g, MSAMP_REC_ALLOC, 0, 1000000, 1, 1);
        for (uint64_t i = 0; i < n; i++) {
            if (g.len + 32 > g.max_body)
                sg_flush(&g); /* SAMPLE_TASK and its ALLOC in one frame */
            SG(&g, MSAMP_REC_EXTENDED, MSAMP_REC_SAMPLE_TASK, 1 + i % 65535);
            SG(&g, MSAMP_REC_ALLOC, 1 + i % 1000, 64, 1 + i / 65535, 1);
        }
    } else if (!strcmp(mode, "paced")) {
        session(&g, 1, 0, 1, 64, 64, 32);
        stack_line(&g, 1, 0x400000, 3, 0x10);
        SG(&g, MSAMP_REC_TIME, 1000);
        for (uint64_t i = 0; i < 10; i++)
            SG(&g, MSAMP_REC_ALLOC, 1 + i, 64, 1, 1);
        sg_flush(&g);
        char tail[4096];
        snprintf(tail, sizeof(tail), "%s.tail", argv[3]);
        if (fclose(f) != 0 || !(f = fopen(tail, "wb"))) {
            perror(tail);
            return 1;
        }
        g.out = f;
        for (uint64_t i = 0; i < 10; i++)
            SG(&g, MSAMP_REC_ALLOC, 11 + i, 64, 1, i ? 1 : n);
    } else {
        fprintf(stderr, "craft: unknown mode %s\n", mode);
        fclose(f);
        return 2;
    }
    sg_flush(&g);
    if (fclose(f) != 0) {
        perror(argv[3]);
        return 1;
    }
    return 0;
}
