/* The adaptive interval (src/msamp_adapt.c, include/msamp_thin.h):
 * - the thinning coin: the kept fraction per size class matches q = p(s,R')/p(s,R) (a chi-square
 *   goodness-of-fit test over six classes, at a fixed seed);
 * - the weights after four doublings stay unbiased (Horvitz-Thompson estimates of a population's
 *   bytes, averaged over many runs, within 4.5 standard errors of the truth);
 * - the core end to end on the fake port, unpinned, with a live set 20x its table: raises happen,
 *   no sample is refused, and a host that replays the stream's INTERVAL records with the rule
 *   holds exactly the device's live table (slot by slot); over eight runs (seeds 1..8, one child
 *   process each) the pooled in-use estimate is within 4.5 standard deviations of the truth. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "fake_port.h"
#include "msamp.h"
#include "msamp_decode.h"
#include "msamp_internal.h"
#include "rec_log.h"

static double p_of(double s, double r)
{
    return r <= 1 ? 1.0 : -expm1(-s / r);
}

static void test_coin_fit(void)
{
    static const uint32_t sizes[] = {8, 100, 1000, 4096, 20000, 1u << 20};
    const uint32_t r = 4096, n = 40000;
    double chi2 = 0;
    for (unsigned c = 0; c < 6; c++) {
        uint32_t q16 = msamp_thin_q16(sizes[c], r, 2 * r);
        double q = p_of(sizes[c], 2 * r) / p_of(sizes[c], r);
        CHECK(fabs(q16 / 65536.0 - q) < 1e-3); /* the rule's q is the real ratio */
        uint32_t kept = 0;
        for (uint32_t slot = 0; slot < n; slot++)
            kept += (uint32_t)msamp_thin_keep(slot, 7 + c, 0xC0FFEE, q16);
        double want = n * (q16 / 65536.0), var = want * (1 - q16 / 65536.0);
        if (var > 0)
            chi2 += (kept - want) * (kept - want) / var;
        else
            CHECK_EQ(kept, n);
        printf("size %7u: kept %.4f, q %.4f\n", sizes[c], (double)kept / n, q16 / 65536.0);
    }
    /* 5 classes with q < 1, 5 degrees of freedom: P(chi2 > 25.7) = 1e-4. */
    printf("chi-square %.2f (5 df, bound 25.7)\n", chi2);
    CHECK(chi2 < 25.7);
}

/* A 64-bit generator of the test's own (the core's may be 32-bit in this build). */
static uint64_t next64(uint64_t *x)
{
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    return *x * 0x2545F4914F6CDD1Dull;
}

/* q16 over a grid of sizes and intervals, doublings and larger steps, odd intervals too: always
 * in [1, 65536] (a coin keeps with probability q16 / 65536 only there, and the host weights by
 * 65536 / q16), and within 1e-3 (or 0.2 % of q) of the real ratio. The rule's first x = s / r
 * read 0 for s < r / 1024 and returned q16 = 98298 for 24 B from 32 KiB to 64 KiB: kept every
 * time, weighted by 2/3 instead of 2 (issue 36's -20 % after two raises). */
static void test_q_grid(void)
{
    static const uint32_t rs[] = {1, 2, 3, 7, 16, 100, 1000, 1024, 4096, 12345, 16384, 32768,
                                  65536, 65537, 98304, 100000, 524288, 1000000, 1u << 24,
                                  123456789u, 1u << 30, 3000000000u};
    static const uint32_t steps[] = {2, 3, 16, 1000};
    unsigned checked = 0, bad = 0;
    double worst = 0;
    for (uint64_t s = 1; s <= (1ull << 33); s = s < 64 ? s + 1 : s + s / 7u) {
        for (unsigned i = 0; i < sizeof rs / sizeof rs[0]; i++) {
            for (unsigned j = 0; j < sizeof steps / sizeof steps[0]; j++) {
                uint64_t to64 = (uint64_t)rs[i] * steps[j];
                if (to64 > UINT32_MAX)
                    continue;
                uint32_t r = rs[i], to = (uint32_t)to64;
                uint32_t q16 = msamp_thin_q16(s, r, to);
                double q = p_of((double)s, to) / p_of((double)s, r);
                double err = fabs(q16 / 65536.0 - q);
                checked++;
                if (q16 < 1 || q16 > 65536 || err > 1e-3 + 2e-3 * q) {
                    if (bad++ < 10)
                        printf("q16(%llu, %u, %u) = %u, real %.6f\n", (unsigned long long)s, r,
                               to, q16, q);
                }
                if (err / (q + 1e-3) > worst)
                    worst = err / (q + 1e-3);
            }
        }
    }
    printf("q16 grid: %u cases, %u out of bounds, worst error %.2e of q\n", checked, bad, worst);
    CHECK_EQ(bad, 0u);
}

/* Horvitz-Thompson estimates of a population's bytes after STEPS doublings from r0, averaged
 * over many runs: within 4.5 standard errors of the truth. M blocks of 2^lo .. 2^(lo+spread-1)
 * bytes (plus 0..15 where lo < 5: 24 B and the like, not powers of two). */
static void unbiased_doublings(uint32_t r0, unsigned lo, unsigned spread, int M)
{
    enum { RUNS = 400, STEPS = 4 };
    static uint32_t size[40000];
    uint64_t rng = 0x9E3779B97F4A7C15ull + r0;
    double truth = 0;
    for (int i = 0; i < M; i++) {
        size[i] = (1u << lo) << (next64(&rng) % spread);
        if (lo < 5)
            size[i] += (uint32_t)(next64(&rng) % 16u);
        truth += size[i];
    }
    double sum = 0, sum2 = 0;
    for (int run = 0; run < RUNS; run++) {
        double est = 0;
        for (int i = 0; i < M; i++) {
            double u = (double)(next64(&rng) >> 11) / 9007199254740992.0;
            if (u >= p_of(size[i], r0))
                continue;
            double w = 1.0 / p_of(size[i], r0);
            uint32_t r = r0;
            int kept = 1;
            for (int k = 1; k <= STEPS && kept; k++) {
                uint32_t q16 = msamp_thin_q16(size[i], r, 2 * r);
                kept = msamp_thin_keep((uint32_t)i, (uint32_t)k, (uint32_t)run, q16);
                w *= 65536.0 / q16;
                r *= 2;
            }
            if (kept)
                est += w * size[i];
        }
        sum += est;
        sum2 += est * est;
    }
    double mean = sum / RUNS, sd = sqrt((sum2 / RUNS - mean * mean) / RUNS);
    printf("after %d doublings from %u: mean estimate %.0f, truth %.0f, standard error %.0f "
           "(t = %+.2f)\n", STEPS, r0, mean, truth, sd, (mean - truth) / sd);
    CHECK(fabs(mean - truth) < 4.5 * sd);
}

static void test_unbiased_doublings(void)
{
    unbiased_doublings(1024, 4, 10, 2000); /* 16 B .. 8 KiB from 1 KiB */
    /* 8..39 B from 16 KiB to 256 KiB: x below 1/1024 (the first rule read -32 %, t = -24, here) */
    unbiased_doublings(16384, 3, 2, 40000);
}

/* The host's model of the live table, rebuilt from the stream alone. */
struct hslot {
    int live;
    uint64_t size, interval;
    double w;
};
static struct hslot host[MSAMP_CFG_LIVE_CAPACITY];

static void replay(uint32_t session_id)
{
    uint64_t interval = 0;
    memset(host, 0, sizeof host);
    for (int i = 0; i < nrec; i++) {
        struct rec *r = &recs[i];
        switch (r->type) {
        case MSAMP_REC_SESSION:
            interval = r->b;
            break;
        case MSAMP_REC_ALLOC:
            if (r->a != 0 && r->a <= MSAMP_CFG_LIVE_CAPACITY)
                host[r->a - 1] = (struct hslot){1, r->b, interval, 1.0 / p_of(r->b, interval)};
            break;
        case MSAMP_REC_FREE:
            if (r->a < MSAMP_CFG_LIVE_CAPACITY)
                host[r->a].live = 0;
            break;
        case MSAMP_REC_INTERVAL:
            if (MSAMP_INTERVAL_THINS(r->c)) {
                for (uint32_t s = 0; s < MSAMP_CFG_LIVE_CAPACITY; s++) {
                    struct hslot *h = &host[s];
                    uint64_t size = h->size, from = h->interval;
                    if (MSAMP_CFG_COMPACT_TABLES) { /* SESSION says MSAMP_SESSION_FLAG_CODED_SIZES */
                        size = msamp_thin_decode(msamp_thin_code(size));
                        from = msamp_thin_decode(msamp_thin_code(from));
                    }
                    if (!h->live || from >= r->a)
                        continue;
                    uint32_t q16 = msamp_thin_q16(size, (uint32_t)from, (uint32_t)r->a);
                    if (msamp_thin_keep(s, (uint32_t)r->d, session_id, q16)) {
                        h->w *= 65536.0 / q16;
                        h->interval = r->a;
                    } else {
                        h->live = 0;
                    }
                }
            }
            interval = r->a;
            break;
        default:
            break;
        }
    }
}

static void on_interval(void *arg, const struct msamp_record *r)
{
    (void)arg;
    on_record(NULL, r);
    if (r->type == MSAMP_REC_INTERVAL && nrec > 0) {
        recs[nrec - 1].c = r->u.interval.reason;
        recs[nrec - 1].d = r->u.interval.epoch;
    }
}

struct e2e_result {
    double truth, est, var;
    int checks, failures;
};

/* One run of the core, in a child process (the core initialises once per process). */
static void test_core_end_to_end(uint32_t seed, struct e2e_result *out)
{
    struct msamp_config cfg = {.interval = 64, .resend_ms = 100000000, .seed = seed};
    CHECK_EQ(msamp_init(&cfg), 0);
    enum { N = 6000 };
    static void *keep[N];
    static size_t sz[N];
    double truth = 0;
    fake_depth = 2;
    for (int i = 0; i < N; i++) {
        fake_stack[0] = 0x410000 + (uintptr_t)(i % 3) * 0x100;
        sz[i] = i % 3 == 0 ? 24 : i % 3 == 1 ? 200 : 3000;
        keep[i] = __wrap_malloc(sz[i]);
        if (i % 64 == 0)
            msamp_flush();
    }
    for (int i = 0; i < N; i += 4) { /* some frees, of pending entries among others */
        __wrap_free(keep[i]);
        keep[i] = NULL;
    }
    msamp_flush();
    for (int i = 0; i < N; i++)
        truth += keep[i] ? (double)sz[i] : 0;
    struct msamp_stats st;
    msamp_get_stats(&st);
    printf("live set at the start interval: %.0f samples for %u slots; raises %u, interval %u, "
           "thinned %u, live_full %u, ring_records %u\n",
           truth / 64, st.live_capacity, st.raises, st.interval, st.thinned, st.live_full,
           st.ring_records);
    CHECK(truth / 64 > 10.0 * st.live_capacity);
    CHECK(st.raises >= 3);
    CHECK_EQ(st.ring_records, 0);
    /* Only a bucket still full after the raise it caused (msamp_config.h: at most one sample per
     * raise; seeds 1..800 saw at most 3 here). */
    CHECK(st.live_full <= st.raises);

    nrec = 0;
    struct msamp_dec *d = msamp_dec_new(on_interval, NULL);
    msamp_dec_feed(d, fake_out, fake_out_len);
    msamp_dec_finish(d);
    msamp_dec_free(d);
    CHECK(count(MSAMP_REC_INTERVAL) >= 3);
    replay(msamp_core.session_id);
    /* The device settles what is still pending; then both sides hold the same entries. */
    msamp_adapt_settle_all();
    uint32_t same = 0, used = 0;
    double est = 0, var = 0;
    for (uint32_t s = 0; s < MSAMP_CFG_LIVE_CAPACITY; s++) {
        int dev = msamp_live_addr(s) != 0;
        uintptr_t dev_size = dev ? msamp_live_thin_size(s) : 0;
        uintptr_t host_size = !MSAMP_CFG_COMPACT_TABLES ? host[s].size
                                                 : msamp_thin_decode(msamp_thin_code(host[s].size));
        used += (uint32_t)dev;
        same += (uint32_t)(dev == host[s].live && (!dev || dev_size == host_size));
        if (host[s].live) {
            est += host[s].w * (double)host[s].size;
            var += (double)host[s].size * (double)host[s].size * host[s].w * (host[s].w - 1);
        }
    }
    CHECK_EQ(same, MSAMP_CFG_LIVE_CAPACITY);
    CHECK(used > 0);
    printf("seed %u in use: truth %.0f, replayed estimate %.0f (sd %.0f)\n", seed, truth, est,
           sqrt(var));
    CHECK_EQ(fake_lock_errors, 0);
    *out = (struct e2e_result){truth, est, var, check_count, check_failures};
}

/* The same over a slow link (docs/ADAPTIVE.md "The link"): the transport takes LINK bytes per
 * allocation, a hundredth of what the samples make at the start interval, so the ring fills; the
 * device raises the interval (INTERVAL reason RING_HIGH) before it drops anything, and the host's
 * replay of those raises (and of the tables', as the live set grows) holds exactly the device's
 * live table; pooled over the seeds, the replayed in-use estimate is within bounds of the truth. Then the link catches up (the
 * transport takes everything, the blocks freed, two seconds of polls): the interval comes down. */
static void test_link_end_to_end(uint32_t seed, struct e2e_result *out)
{
    enum { N = 20000, LINK = 2 };
    struct msamp_config cfg = {.interval = 64, .resend_ms = 100000000, .seed = seed};
    CHECK_EQ(msamp_init(&cfg), 0);
    static void *keep[N];
    static size_t sz[N];
    double truth = 0;
    fake_depth = 2;
    fake_transport_credit = 0;
    for (int i = 0; i < N; i++) {
        fake_stack[0] = 0x410000 + (uintptr_t)(i % 3) * 0x100;
        sz[i] = i % 3 == 0 ? 24 : i % 3 == 1 ? 200 : 3000;
        keep[i] = __wrap_malloc(sz[i]);
        if (i % 8 != 0) { /* one block in 8 stays */
            __wrap_free(keep[i]);
            keep[i] = NULL;
        }
        fake_time += 10;
        fake_transport_credit += LINK;
        msamp_poll();
    }
    struct msamp_stats st;
    msamp_get_stats(&st);
    printf("slow link: raises %u, interval %u, thinned %u, ring_records %u, ring_used %u\n", st.raises,
           st.interval, st.thinned, st.ring_records, st.ring_used);
    CHECK_EQ(st.ring_records, 0);
    CHECK(st.raises >= 3);
    fake_transport_credit = -1;
    msamp_flush();
    for (int i = 0; i < N; i++)
        truth += keep[i] ? (double)sz[i] : 0;
    nrec = 0;
    struct msamp_dec *d = msamp_dec_new(on_interval, NULL);
    msamp_dec_feed(d, fake_out, fake_out_len);
    msamp_dec_finish(d);
    msamp_dec_free(d);
    int ring_high = 0;
    for (int i = 0; i < nrec; i++)
        ring_high += recs[i].type == MSAMP_REC_INTERVAL && recs[i].c == MSAMP_INTERVAL_RING_HIGH;
    printf("raises for the ring %d, for the tables %d\n", ring_high, (int)st.raises - ring_high);
    CHECK(ring_high >= 1); /* the live set also outgrows the table: both kinds replay alike */
    replay(msamp_core.session_id);
    msamp_adapt_settle_all();
    uint32_t same = 0;
    double est = 0, var = 0;
    for (uint32_t s = 0; s < MSAMP_CFG_LIVE_CAPACITY; s++) {
        int dev = msamp_live_addr(s) != 0;
        same += (uint32_t)(dev == host[s].live);
        if (host[s].live) {
            est += host[s].w * (double)host[s].size;
            var += (double)host[s].size * (double)host[s].size * host[s].w * (host[s].w - 1);
        }
    }
    CHECK_EQ(same, MSAMP_CFG_LIVE_CAPACITY);
    printf("seed %u in use: truth %.0f, replayed estimate %.0f (sd %.0f)\n", seed, truth, est,
           sqrt(var));
    /* The link catches up: every block freed, polls for 3 s of the device's clock. */
    for (int i = 0; i < N; i++)
        __wrap_free(keep[i]);
    uint32_t raised = st.interval;
    for (int k = 0; k < 300; k++) {
        fake_time += 10000;
        msamp_poll();
    }
    msamp_get_stats(&st);
    printf("link caught up: interval %u -> %u, lowers %u\n", raised, st.interval, st.lowers);
    CHECK(st.lowers >= 2 && st.interval < raised);
    CHECK_EQ(fake_lock_errors, 0);
    *out = (struct e2e_result){truth, est, var, check_count, check_failures};
}

/* The estimate's own standard deviation (Horvitz-Thompson, from the kept weights) is small exactly
 * when the estimate is low, so one run's z-score has a heavy low tail: pool RUNS independent runs
 * (seeds 1..RUNS) and check the pooled estimate against the pooled truth. */
static void test_core_runs(void (*run)(uint32_t, struct e2e_result *))
{
    enum { RUNS = 8 };
    double truth = 0, est = 0, var = 0;
    for (uint32_t seed = 1; seed <= RUNS; seed++) {
        int fd[2];
        struct e2e_result r = {0, 0, 0, 0, 1};
        CHECK_EQ(pipe(fd), 0);
        fflush(NULL);
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
            close(fd[0]);
            check_count = check_failures = 0; /* the child counts its own */
            run(seed, &r);
            fflush(NULL);
            _exit(write(fd[1], &r, sizeof r) == (ssize_t)sizeof r ? 0 : 1);
        }
        close(fd[1]);
        ssize_t got = read(fd[0], &r, sizeof r);
        close(fd[0]);
        int status = 0;
        CHECK_EQ(waitpid(pid, &status, 0), pid);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        CHECK_EQ(got, sizeof r);
        CHECK_EQ(r.failures, 0); /* the child's own checks */
        check_count += r.checks;
        truth += r.truth;
        est += r.est;
        var += r.var;
    }
    printf("pooled over %d runs: truth %.0f, estimate %.0f (ratio %.3f, sd %.0f, z %.2f)\n", RUNS,
           truth, est, est / truth, sqrt(var), (est - truth) / sqrt(var));
    CHECK(fabs(est - truth) < 4.5 * sqrt(var) + 1);
}

int main(void)
{
    (void)basic_events;
    (void)check_basic_events;
    (void)decode_from;
    test_q_grid();
    test_coin_fit();
    test_unbiased_doublings();
    test_core_runs(test_core_end_to_end);
    test_core_runs(test_link_end_to_end);
    return check_report("unit-adapt");
}
