/*
 * Latency histogram: log-linear buckets, see hist.h for the layout.
 */
#include "hist.h"

static unsigned hist_index(uint64_t v)
{
    unsigned msb, shift;

    if (v < HIST_SUB)
        return (unsigned)v;
    if (v >> HIST_MAX_BITS)
        return HIST_BUCKETS - 1;
    msb = 63u - (unsigned)__builtin_clzll(v);          /* >= HIST_SUB_BITS */
    shift = msb - (HIST_SUB_BITS - 1);                 /* >= 1 */
    return HIST_SUB + (shift - 1) * HIST_HALF
         + (unsigned)((v >> shift) - HIST_HALF);
}

/* Middle of bucket i (the value a percentile falling there reports). */
static uint64_t hist_value(unsigned i)
{
    unsigned j, shift;
    uint64_t low;

    if (i < HIST_SUB)
        return i;
    j = i - HIST_SUB;
    shift = j / HIST_HALF + 1;
    low = (uint64_t)(HIST_HALF + j % HIST_HALF) << shift;
    return low + ((1ull << shift) >> 1);
}

void hist_record(struct hist *h, uint64_t v)
{
    h->b[hist_index(v)]++;
    h->count++;
    h->sum += v;
    if (v > h->max)
        h->max = v;
}

void hist_merge(struct hist *into, const struct hist *from)
{
    unsigned i;

    for (i = 0; i < HIST_BUCKETS; i++)
        into->b[i] += from->b[i];
    into->count += from->count;
    into->sum += from->sum;
    if (from->max > into->max)
        into->max = from->max;
}

uint64_t hist_quantile(const struct hist *h, double q)
{
    uint64_t target, seen = 0, v;
    unsigned i;

    if (h->count == 0)
        return 0;
    target = (uint64_t)(q * (double)h->count);
    if ((double)target < q * (double)h->count)
        target++;                                      /* ceil */
    if (target < 1)
        target = 1;
    for (i = 0; i < HIST_BUCKETS; i++) {
        seen += h->b[i];
        if (seen >= target)
            break;
    }
    v = hist_value(i < HIST_BUCKETS ? i : HIST_BUCKETS - 1);
    return v > h->max ? h->max : v;
}

uint64_t hist_mean(const struct hist *h)
{
    return h->count ? h->sum / h->count : 0;
}
