/*
 * Reporting: the human table, and one machine-readable line (CSV or JSON).
 */
#ifndef MCDS_BENCH_REPORT_H
#define MCDS_BENCH_REPORT_H

#include <stdio.h>
#include "bench.h"

struct bench_result {
    const struct bench_opts *opts;
    struct bench_stats total;        /* all threads merged */
    double seconds;                  /* measured time */
    int nconns;
};

void report_human(FILE *f, const struct bench_result *r);
void report_csv_header(FILE *f);
void report_csv(FILE *f, const struct bench_result *r);
void report_json(FILE *f, const struct bench_result *r);

#endif
