/*
 * Latency histogram with log-linear buckets (HDR style), fixed size.
 *
 * Values are nanoseconds.  Below 128 every value has its own bucket; above,
 * each power of two is split into 64 buckets, so a reported percentile is
 * within 1/64 (1.6 %) of the true value.  Values of 2^40 ns (18 minutes) and
 * more land in the last bucket.  Recording is a few instructions and never
 * allocates; histograms of several threads are merged by adding buckets.
 */
#ifndef MCDS_BENCH_HIST_H
#define MCDS_BENCH_HIST_H

#include <stdint.h>

#define HIST_SUB_BITS  7
#define HIST_SUB       (1 << HIST_SUB_BITS)        /* 128 exact buckets */
#define HIST_HALF      (HIST_SUB / 2)              /* 64 per power of two */
#define HIST_MAX_BITS  40
#define HIST_BUCKETS   (HIST_SUB + (HIST_MAX_BITS - HIST_SUB_BITS) * HIST_HALF)

struct hist {
    uint64_t count;
    uint64_t sum;
    uint64_t max;
    uint64_t b[HIST_BUCKETS];
};

void     hist_record(struct hist *h, uint64_t v);
void     hist_merge(struct hist *into, const struct hist *from);
/* Value at quantile q in [0,1] (0.99 for p99); 0 for an empty histogram. */
uint64_t hist_quantile(const struct hist *h, double q);
uint64_t hist_mean(const struct hist *h);

#endif
