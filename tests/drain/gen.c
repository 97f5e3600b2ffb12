/*
 * Writes a synthetic msamp stream with known truth for drain's tests.
 * usage: gen [options] OUT.bin TRUTH.txt
 *   --interval R (4096)  --seed S (1)  --allocs N (200000)  --sites K (12)  --sessions N (1)
 *   --snap-every N (20000 allocations; 0: none)  --lose-free-every N (0)  --max-body B (512)
 *   --unknown-stacks (every 7th site uses stack id 0)  --interval-change R2 (at half time)
 *   --unique-stacks: every allocation has a stack of its own and is untracked (slot1 0): a stream
 *   of N distinct pprof samples, for the benchmark (no truth).
 *   --adapt N: the device's live table has N slots and it adapts its interval (simdev.h): raised
 *   x2 above 3N/4 entries in use (thinning its live table), lowered below N/4, at most 64 times
 *   the first interval.  --coded: it thins with 8-bit codes (SESSION flag CODED_SIZES).
 *   --stack-cap N: its stack table holds N stacks (evicting unused ones, ids reused; "stack table
 *   full" when all are in use; with --adapt a raise when all are in use).
 *   --release-leaks: at three quarters of the run the never-freed blocks are freed, but those of
 *   the first eighth of the run (the interval comes down; the oldest entries keep theirs).
 *   --odd-sizes: sizes 16 << (i % 8) plus a third plus 1 (no 8-bit code holds them exactly).
 *   --scatter: a sample takes a free live-table slot at random, not the latest freed (simdev.h).
 * Site i (1-based) has a 3-frame stack with leaf return address 0x400000 + 0x100 * i (aarch64,
 * so drain lists it at that address - 4), allocates 16 << (i % 8) bytes per call (see
 * --odd-sizes); sites with
 * i % 3 == 0 never free, i % 3 == 1 free at once, i % 3 == 2 free 50 calls later.
 * TRUTH lines (last session): "site I LEAF_ADDR alloc_objects alloc_bytes inuse_objects
 * inuse_bytes" with exact (unsampled) numbers. With --adapt or --stack-cap also the estimates a
 * correct reader computes from the stream, exactly: "replay LEAF_ADDR alloc_objects alloc_bytes
 * inuse_objects inuse_bytes" per site with samples (allocated following the thinning, as
 * drain does), ("replay full ..." for the samples of the
 * "stack table full" id), and "interval_peak R", the largest interval of the run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simdev.h"

/* A reader's allocated estimates per site (index 0: "stack table full"), following the device's
 * thinning as drain's does: a kept entry's weight scaled, a thinned one's taken out. */
struct thin_sums {
    double *an, *ab;
};
static void thin_adjust(void *ctx, uint64_t leaf, uint64_t size, double dw)
{
    struct thin_sums *t = ctx;
    unsigned b = leaf ? (unsigned)((leaf - 0x400000) / 0x100) : 0;
    t->an[b] += dw;
    t->ab[b] += dw * (double)size;
}

/* Site i's allocation size: 16 << (i % 8), or with --odd-sizes a size no 8-bit code holds. */
static uint64_t site_size(unsigned site, unsigned odd)
{
    uint64_t size = 16u << (site % 8);
    return odd ? size + size / 3 + 1 : size;
}

int main(int argc, char **argv)
{
    uint64_t interval = 4096, seed = 1, allocs = 200000, snap_every = 20000, interval2 = 0;
    unsigned sites = 12, sessions = 1, lose = 0, max_body = 512, unknown = 0, unique = 0;
    unsigned adapt = 0, coded = 0, stack_cap = 0, release = 0, odd = 0, scatter = 0;
    int i = 1;
    for (; i + 1 < argc && strncmp(argv[i], "--", 2) == 0; i++) {
        if (strcmp(argv[i], "--unknown-stacks") == 0) {
            unknown = 1;
            continue;
        }
        if (strcmp(argv[i], "--unique-stacks") == 0) {
            unique = 1;
            continue;
        }
        if (strcmp(argv[i], "--coded") == 0) {
            coded = 1;
            continue;
        }
        if (strcmp(argv[i], "--release-leaks") == 0) {
            release = 1;
            continue;
        }
        if (strcmp(argv[i], "--odd-sizes") == 0) {
            odd = 1;
            continue;
        }
        if (strcmp(argv[i], "--scatter") == 0) {
            scatter = 1;
            continue;
        }
        if (i + 2 >= argc)
            break;
        unsigned long long v = strtoull(argv[i + 1], NULL, 0);
        const char *o = argv[i++];
        if (!strcmp(o, "--interval")) interval = v;
        else if (!strcmp(o, "--seed")) seed = v;
        else if (!strcmp(o, "--allocs")) allocs = v;
        else if (!strcmp(o, "--sites")) sites = (unsigned)v;
        else if (!strcmp(o, "--sessions")) sessions = (unsigned)v;
        else if (!strcmp(o, "--snap-every")) snap_every = v;
        else if (!strcmp(o, "--lose-free-every")) lose = (unsigned)v;
        else if (!strcmp(o, "--max-body")) max_body = (unsigned)v;
        else if (!strcmp(o, "--interval-change")) interval2 = v;
        else if (!strcmp(o, "--adapt")) adapt = (unsigned)v;
        else if (!strcmp(o, "--stack-cap")) stack_cap = (unsigned)v;
        else {
            fprintf(stderr, "gen: unknown option %s\n", o);
            return 2;
        }
    }
    if (argc - i != 2 || sites == 0 || sites > 1000 || max_body < 64 || max_body > 4096 ||
        adapt > SIM_LIVE || stack_cap > SIM_STACKS) {
        fprintf(stderr, "usage: gen [options] OUT.bin TRUTH.txt\n");
        return 2;
    }
    FILE *out = fopen(argv[i], "wb"), *truth = fopen(argv[i + 1], "w");
    if (!out || !truth) {
        perror("gen");
        return 1;
    }
    static struct simdev d;
    sg_init(&d.g, out, max_body);
    d.arch = MSAMP_ARCH_AARCH64;
    d.ptr = 8;
    d.bidlen = 20;
    for (int k = 0; k < 20; k++)
        d.bid[k] = (uint8_t)(0xa0 + k);
    d.lose_free_every = lose;
    d.scatter = (int)scatter;
    if (adapt) {
        d.adapt = 1;
        d.live_cap = adapt;
        d.live_high = adapt * 3 / 4;
        d.live_low = adapt / 4;
        d.max_interval = interval << 6;
        d.stack_high = stack_cap ? stack_cap - 1 : 0;
    }
    d.coded = (int)coded;
    d.flags = coded ? MSAMP_SESSION_FLAG_CODED_SIZES : 0;
    d.stack_cap = stack_cap;
    uint64_t *an = calloc(sites + 1, 8), *ab = calloc(sites + 1, 8), *in = calloc(sites + 1, 8),
             *ib = calloc(sites + 1, 8);
    /* The exact estimates of a correct reader, per site (index 0: "stack table full"). */
    double *ran = calloc(sites + 1, 8), *rab = calloc(sites + 1, 8), *rin = calloc(sites + 1, 8),
           *rib = calloc(sites + 1, 8);
    uint64_t *rsamples = calloc(sites + 1, 8);
    struct thin_sums ts = {ran, rab};
    d.thin_hook = thin_adjust;
    d.thin_ctx = &ts;
    uint64_t pending[64] = {0};
    for (unsigned s = 0; s < sessions; s++) {
        memset(an, 0, (sites + 1) * 8);
        memset(ab, 0, (sites + 1) * 8);
        memset(in, 0, (sites + 1) * 8);
        memset(ib, 0, (sites + 1) * 8);
        memset(pending, 0, sizeof(pending));
        memset(ran, 0, (sites + 1) * 8);
        memset(rab, 0, (sites + 1) * 8);
        memset(rin, 0, (sites + 1) * 8);
        memset(rib, 0, (sites + 1) * 8);
        memset(rsamples, 0, (sites + 1) * 8);
        sim_boot(&d, 0x5eed0000u + (uint32_t)(seed - 1) * 0x100u + s, seed + s, interval);
        sg_mark(&d.g, "gen start");
        for (uint64_t n = 0; n < allocs; n++) {
            if (interval2 && n == allocs / 2) {
                d.interval = interval2;
                d.countdown = interval2 > 1 ? sim_gap(&d) : 0;
                uint64_t dt;
                sim_dt(&d, &dt);
                SG(&d.g, MSAMP_REC_INTERVAL, interval2, dt);
            }
            unsigned site = (unsigned)(n % sites) + 1;
            uint64_t size = site_size(site, odd), addr = 0x10000000 + n * 16;
            if (unique) {
                uint64_t ufr[4] = {0x400000 + 4 * n, 0x500000 + 4 * (n % 1000), 0x600000 + n % 7,
                                   0x700000};
                uint64_t dt;
                sg_stack(&d.g, n + 1, ufr, 4);
                sim_dt(&d, &dt);
                SG(&d.g, MSAMP_REC_ALLOC, 0, size, n + 1, dt);
                continue;
            }
            uint64_t fr[3] = {0x400000 + 0x100 * site, 0x500000 + 0x10 * (site % 3), 0x600000};
            if (release && n == allocs * 3 / 4) {
                /* Free the never-freed blocks but those of the first eighth of the run: the live
                 * table nearly empties and the interval comes down, while the oldest entries
                 * keep the interval they were thinned to. */
                for (uint64_t m = allocs / 8; m < n; m++) {
                    unsigned ms = (unsigned)(m % sites) + 1;
                    if (ms % 3 != 0)
                        continue;
                    sim_free(&d, 0x10000000 + m * 16);
                    in[ms]--;
                    ib[ms] -= site_size(ms, odd);
                }
            }
            int sampled = sim_alloc(&d, addr, size, fr, unknown && site % 7 == 0 ? 0 : 3);
            if (sampled) {
                unsigned b = d.last_full ? 0 : site;
                ran[b] += d.last_w;
                rab[b] += d.last_w * (double)size;
                rsamples[b]++;
            }
            an[site]++;
            ab[site] += size;
            if (site % 3 == 0) {
                in[site]++;
                ib[site] += size;
            } else if (site % 3 == 1) {
                sim_free(&d, addr);
            } else {
                uint64_t *p = &pending[n % 50];
                if (*p)
                    sim_free(&d, *p);
                *p = addr;
            }
            if (snap_every && n % snap_every == snap_every - 1)
                sim_snapshot(&d);
            if (n % 1000 == 0)
                sg_flush(&d.g);
        }
        /* Allocations still pending a free are live at the end. */
        for (unsigned k = 0; k < 50; k++) {
            if (!pending[k])
                continue;
            uint64_t n = (pending[k] - 0x10000000) / 16;
            unsigned site = (unsigned)(n % sites) + 1;
            in[site]++;
            ib[site] += site_size(site, odd);
        }
        if (snap_every)
            sim_snapshot(&d);
        sg_flush(&d.g);
    }
    for (unsigned s = 1; s <= sites; s++)
        fprintf(truth, "site %u 0x%x %llu %llu %llu %llu\n", s, 0x400000 + 0x100 * s,
                (unsigned long long)an[s], (unsigned long long)ab[s], (unsigned long long)in[s],
                (unsigned long long)ib[s]);
    if (adapt || stack_cap) {
        for (uint32_t k = 0; k < SIM_LIVE; k++) {
            if (!d.live[k].used)
                continue;
            unsigned b = d.live[k].leaf ? (unsigned)((d.live[k].leaf - 0x400000) / 0x100) : 0;
            rin[b] += d.live[k].w;
            rib[b] += d.live[k].w * (double)d.live[k].size;
        }
        for (unsigned s = 0; s <= sites; s++) {
            if (!rsamples[s])
                continue;
            if (s)
                fprintf(truth, "replay 0x%x", 0x400000 + 0x100 * s);
            else
                fprintf(truth, "replay full");
            /* A reader's allocated follows the thinning (thin_adjust), so it is never below its
             * in-use (docs/DRAIN.md) without a raise. */
            fprintf(truth, " %.6f %.6f %.6f %.6f\n", ran[s], rab[s], rin[s], rib[s]);
        }
        fprintf(truth, "interval_peak %llu\n", (unsigned long long)d.interval_peak);
        fprintf(truth,
                "# device: interval now %llu, raises live_high=%llu stack_high=%llu "
                "bucket_full=%llu, lowers %llu, %llu thinned, %llu stack evictions, %llu stack "
                "table full\n",
                (unsigned long long)d.interval,
                (unsigned long long)d.raises[MSAMP_INTERVAL_LIVE_HIGH],
                (unsigned long long)d.raises[MSAMP_INTERVAL_STACK_HIGH],
                (unsigned long long)d.raises[MSAMP_INTERVAL_BUCKET_FULL],
                (unsigned long long)d.raises[MSAMP_INTERVAL_LOWER], (unsigned long long)d.thinned,
                (unsigned long long)d.evictions, (unsigned long long)d.drops_stack_full);
    }
    fclose(out);
    fclose(truth);
    return 0;
}
