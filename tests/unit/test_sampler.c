/* The Poisson byte sampler: the integer -ln(u), the gap distribution (mean and a Kolmogorov-
 * Smirnov goodness-of-fit test with a fixed seed), the sampling probability per size, and the
 * unbiasedness of the 1/(1-exp(-s/R)) weights over a mixed workload. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "msamp_internal.h"

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void test_neg_log(void)
{
    /* Against libm over u spread across (0, 1]: absolute error below 2^-18. */
    double worst = 0;
    uint64_t st = msamp_rng_seed(7);
    for (int i = 0; i < 200000; i++) {
#if MSAMP_CFG_SAMPLER32
        uint64_t r = (uint32_t)msamp_rng_next(&st) >> (i % 28);
        double u = (double)((uint32_t)r | 1u) / 4294967296.0;
#else
        uint64_t r = msamp_rng_next(&st) >> (i % 60);
        double u = (double)(r | 1u) / 18446744073709551616.0;
#endif
        double want = -log(u);
        double got = msamp_neg_log_q20(r) / 1048576.0;
        double err = fabs(got - want);
        if (err > worst)
            worst = err;
    }
    printf("neg_log_q20: worst absolute error %.2e\n", worst);
    CHECK(worst < 1.0 / (1 << 18));
    CHECK_EQ(msamp_neg_log_q20(UINT64_MAX), 0);
}

static void test_gap_distribution(void)
{
    enum { N = 200000 };
    const uint32_t R = 4096;
    static uint64_t gaps[N];
    uint64_t st = msamp_rng_seed(12345);
    double sum = 0;
    for (int i = 0; i < N; i++) {
        gaps[i] = msamp_draw_gap(&st, R);
        sum += (double)gaps[i];
    }
    /* gap = floor(R*E) + 1 has mean R + 1/2 (about); its standard error is R/sqrt(N). */
    double mean = sum / N;
    double se = R / sqrt((double)N);
    printf("gap mean %.1f (expected %.1f, standard error %.1f)\n", mean, R + 0.5, se);
    CHECK(fabs(mean - (R + 0.5)) < 4 * se);

    /* KS against the CDF of floor(R*E)+1: P(gap <= g) = 1 - exp(-g/R). At the 0.1% level the
     * critical value is 1.95/sqrt(N). */
    qsort(gaps, N, sizeof gaps[0], cmp_u64);
    double d = 0;
    for (int i = 0; i < N; i++) {
        if (i + 1 < N && gaps[i + 1] == gaps[i])
            continue; /* evaluate the empirical CDF after the last of equal values */
        double f = 1.0 - exp(-(double)gaps[i] / R);
        double lo = fabs(f - (double)(i + 1) / N);
        if (lo > d)
            d = lo;
    }
    printf("KS statistic %.5f (critical %.5f)\n", d, 1.95 / sqrt((double)N));
    CHECK(d < 1.95 / sqrt((double)N));

    CHECK_EQ(msamp_draw_gap(&st, 1), 1);
    CHECK_EQ(msamp_draw_gap(&st, 0), 1);
    CHECK(msamp_draw_gap(&st, UINT32_MAX) >= 1);
}

/* Runs a countdown over a stream of n allocations of one size: fraction sampled. */
static double sampled_fraction(uint32_t R, uint64_t size, int n, uint64_t seed)
{
    uint64_t st = msamp_rng_seed(seed);
    uint64_t cd = msamp_draw_gap(&st, R);
    int hits = 0;
    for (int i = 0; i < n; i++) {
        if (size < cd) {
            cd -= size;
        } else {
            hits++;
            cd = msamp_draw_gap(&st, R);
        }
    }
    return (double)hits / n;
}

static void test_sampling_probability(void)
{
    const uint32_t R = 4096;
    const uint64_t sizes[] = {16, 512, 4096, 16384};
    for (unsigned k = 0; k < 4; k++) {
        int n = 200000;
        double p = 1.0 - exp(-(double)sizes[k] / R);
        double got = sampled_fraction(R, sizes[k], n, 99 + k);
        double sd = sqrt(p * (1 - p) / n);
        printf("size %llu: sampled %.5f, expected %.5f (sd %.5f)\n",
               (unsigned long long)sizes[k], got, p, sd);
        CHECK(fabs(got - p) < 5 * sd + 1e-9);
    }
    CHECK(sampled_fraction(1, 1, 1000, 3) == 1.0);
}

static void test_unsampling_weights(void)
{
    /* A workload of mixed sizes; the weighted sample must estimate its bytes and counts. */
    const uint32_t R = 8192;
    uint64_t st = msamp_rng_seed(2024), wl = msamp_rng_seed(77);
    uint64_t cd = msamp_draw_gap(&st, R);
    double true_bytes = 0, true_count = 0, est_bytes = 0, est_count = 0, var_bytes = 0;
    double var_count = 0;
    for (int i = 0; i < 1000000; i++) {
        uint64_t size = 8u << (msamp_rng_next(&wl) % 12); /* 8 B .. 16 KiB */
        true_bytes += (double)size;
        true_count += 1;
        double p = 1.0 - exp(-(double)size / R);
        var_bytes += (double)size * size * (1 - p) / p;
        var_count += (1 - p) / p;
        if (size < cd) {
            cd -= size;
            continue;
        }
        cd = msamp_draw_gap(&st, R);
        est_bytes += (double)size / p;
        est_count += 1 / p;
    }
    double sd = sqrt(var_bytes), sd_count = sqrt(var_count);
    printf("bytes: true %.0f, estimated %.0f (sd %.0f); count: true %.0f, estimated %.0f (sd %.0f)\n",
           true_bytes, est_bytes, sd, true_count, est_count, sd_count);
    CHECK(fabs(est_bytes - true_bytes) < 4 * sd);
    CHECK(fabs(est_count - true_count) < 4 * sd_count);
}

int main(void)
{
    test_neg_log();
    test_gap_distribution();
    test_sampling_probability();
    test_unsampling_weights();
    return check_report(MSAMP_CFG_SAMPLER32 ? "unit-sampler32" : "unit-sampler");
}
