/*
 * ops/metrics: the server's figures in Prometheus's text format (version
 * 0.0.4), as the metrics listener (ops/metrics_http) serves them at
 * /metrics: every `stats` figure, under memcached_exporter's name where it
 * has one and as mcds_<name> otherwise; the largest queues and lists by
 * name (--metrics-top of each, the totals of all of them beside); and the
 * ages of the last fsync and snapshot with --data-dir.
 */
#ifndef MCDS_METRICS_H
#define MCDS_METRICS_H

struct evbuffer;

/* Appends the whole exposition to out. -1 when memory ran out (out then
 * holds part of it: send none of it). */
int metrics_render(struct evbuffer *out);

#endif
