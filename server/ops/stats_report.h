/*
 * stats_report: the text of every `stats` group (see stats_report.c),
 * through a callback so that every protocol formats it its own way.
 */
#ifndef MCDS_STATS_REPORT_H
#define MCDS_STATS_REPORT_H

#include "base/stats.h"

void stats_general(stats_emit_fn emit, void *ctx);
void stats_settings(stats_emit_fn emit, void *ctx);
void stats_items(stats_emit_fn emit, void *ctx);
void stats_slabs(stats_emit_fn emit, void *ctx);
/* Returns 0 if sub names a known group (and emitted it), -1 otherwise. */
int stats_group(const char *sub, stats_emit_fn emit, void *ctx);

#endif
