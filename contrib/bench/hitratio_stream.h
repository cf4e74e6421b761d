/*
 * hitratio_stream: the draws of hitratio's request stream, shared with the
 * offline replay (hitratio_sim) so that both see the same keys, sizes and
 * TTLs: the generator, the Zipf popularity and the per-key mix.
 */
#ifndef MCDS_HITRATIO_STREAM_H
#define MCDS_HITRATIO_STREAM_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static uint64_t hr_rng;

static uint64_t hr_rand(void) {
    uint64_t x = hr_rng;

    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    hr_rng = x;
    return x * 0x2545F4914F6CDD1Dull;
}

static double hr_unit(void) {
    return (double)(hr_rand() >> 11) / 9007199254740992.0;
}

/* The cumulative Zipf distribution over keys 0..n-1 (key 0 most popular). */
static double *hr_zipf_cdf(uint64_t n, double s) {
    double *cdf = malloc(n * sizeof(*cdf)), sum = 0;
    uint64_t i;

    if (cdf == NULL)
        return NULL;
    for (i = 0; i < n; i++)
        cdf[i] = (sum += 1.0 / pow((double)(i + 1), s));
    for (i = 0; i < n; i++)
        cdf[i] /= sum;
    return cdf;
}

/* A key drawn from cdf: its popularity rank. */
static uint64_t hr_key(const double *cdf, uint64_t n) {
    double u = hr_unit();
    uint64_t lo = 0, hi = n - 1;

    while (lo < hi) {
        uint64_t mid = (lo + hi) / 2;
        if (cdf[mid] < u)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Per key: its value size and TTL, fixed by the key alone. */
static uint64_t hr_mix(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    return k ^ (k >> 33);
}

#endif
