/*
 * Reporting: a human table per op kind and overall, and one CSV or JSON line
 * with the overall figures (columns listed in report_csv_header).  Latencies
 * are printed in microseconds; throughput counts requests (a multi-get of
 * 100 keys is one op; keys/s counts its keys).  Queue workloads add a
 * "cycle" row: messages acked (or taken) per second, and the latency of a
 * message from its push being queued to its ack being answered.
 */
#include <string.h>

#include "report.h"
#include "workload.h"

const char *const bench_op_names[OP__COUNT] = {
    "get", "mget", "set", "push", "pop", "ack", "take", "setup"
};

static const char *report_proto(const struct bench_opts *o)
{
    static const char *const names[] = { "text", "meta", "redis", "beanstalk" };

    return names[o->proto];
}

static uint64_t report_ops(const struct bench_stats *s)
{
    uint64_t n = 0;
    int k;

    for (k = 0; k < OP__COUNT; k++)
        n += s->ops[k];
    return n;
}

/* All op kinds in one histogram (kept static: it is 18 KB). */
static const struct hist *report_all(const struct bench_stats *s)
{
    static struct hist all;
    int k;

    memset(&all, 0, sizeof(all));
    for (k = 0; k < OP__COUNT; k++)
        hist_merge(&all, &s->lat[k]);
    return &all;
}

static double us(uint64_t ns)
{
    return (double)ns / 1000.0;
}

static void report_row(FILE *f, const char *name, uint64_t ops,
                       const struct hist *h, double secs)
{
    fprintf(f, "  %-5s %12llu %12.1f %9.1f %9.1f %9.1f %9.1f %9.1f\n",
            name, (unsigned long long)ops, secs > 0 ? (double)ops / secs : 0.0,
            us(hist_mean(h)), us(hist_quantile(h, 0.50)),
            us(hist_quantile(h, 0.99)), us(hist_quantile(h, 0.999)),
            us(h->max));
}

/* The run's lines above the table: what was sent, and how. */
static void report_head(FILE *f, const struct bench_result *r)
{
    const struct bench_opts *o = r->opts;
    const struct bench_stats *s = &r->total;
    int i;

    fprintf(f, "mcds-bench: workload %s, protocol %s, server%s",
            o->workload->name, report_proto(o), o->nservers > 1 ? "s" : "");
    for (i = 0; i < o->nservers; i++)
        fprintf(f, " %s:%s", o->servers[i].host, o->servers[i].port);
    fprintf(f, "\n  %d threads x %d conns = %d conns, depth %d; ",
            o->threads, o->conns, r->nconns, o->depth);
    if (o->workload->reply) {
        fprintf(f, "queues %llu \"%s\", value %zu B",
                (unsigned long long)o->queues, o->prefix, o->value_size);
        if (o->producers)
            fprintf(f, "\n  %d producers + %d consumers per thread, backlog "
                    "%lld, pop wait %.3g s", o->producers,
                    o->conns - o->producers, (long long)o->backlog, o->pop_wait);
        fprintf(f, "\n  warm-up %.1f s, measured %.2f s\n", o->warmup, r->seconds);
        return;
    }
    fprintf(f, "keys %llu \"%s\", value %zu B",
            (unsigned long long)o->keyspace, o->prefix, o->value_size);
    if (!o->workload->finite)
        fprintf(f, ", get:set %u:%u, multiget %d\n  warm-up %.1f s, measured %.2f s\n",
                o->get_weight, o->set_weight, o->multiget, o->warmup, r->seconds);
    else
        fprintf(f, "\n  stored %llu of %llu items in %.2f s\n",
                (unsigned long long)s->stored,
                (unsigned long long)o->load_items, r->seconds);
}

void report_human(FILE *f, const struct bench_result *r)
{
    const struct bench_opts *o = r->opts;
    const struct bench_stats *s = &r->total;
    uint64_t keys = s->hits + s->misses;
    int k;

    report_head(f, r);
    fprintf(f, "\n  %-5s %12s %12s %9s %9s %9s %9s %9s\n", "op", "ops",
            "ops/s", "avg us", "p50 us", "p99 us", "p99.9 us", "max us");
    for (k = 0; k < OP__COUNT; k++)
        if (s->ops[k])
            report_row(f, bench_op_names[k], s->ops[k], &s->lat[k], r->seconds);
    report_row(f, "all", report_ops(s), report_all(s), r->seconds);
    if (o->workload->reply) {
        report_row(f, "cycle", s->cycles, &s->cycle_lat, r->seconds);
        fprintf(f, "\n  cycle: a message acked (or taken); its latency runs "
                "from its push to that reply\n  pops: %llu messages, %llu empty\n",
                (unsigned long long)s->hits, (unsigned long long)s->misses);
    } else if (keys) {
        fprintf(f, "\n  keys: %llu hits, %llu misses (%.1f %% hits), %.1f keys/s\n",
                (unsigned long long)s->hits, (unsigned long long)s->misses,
                100.0 * (double)s->hits / (double)keys,
                r->seconds > 0 ? (double)keys / r->seconds : 0.0);
    } else {
        fputc('\n', f);
    }
    fprintf(f, "  errors: %llu (connections lost: %llu, requests timed out: %llu)\n",
            (unsigned long long)s->errors,
            (unsigned long long)s->closed, (unsigned long long)s->timeouts);
}

void report_csv_header(FILE *f)
{
    fprintf(f, "label,workload,protocol,threads,conns,depth,keys,value_size,"
            "ratio,multiget,seconds,ops,ops_per_sec,keys_per_sec,avg_us,"
            "p50_us,p99_us,p999_us,max_us,hits,misses,errors,stored,closed,"
            "timeouts,queues,producers,cycles,cycles_per_sec,cycle_avg_us,"
            "cycle_p50_us,cycle_p99_us,cycle_p999_us,cycle_max_us\n");
}

void report_csv(FILE *f, const struct bench_result *r)
{
    const struct bench_opts *o = r->opts;
    const struct bench_stats *s = &r->total;
    const struct hist *h = report_all(s), *c;
    uint64_t ops = report_ops(s);
    double secs = r->seconds > 0 ? r->seconds : 1;

    fprintf(f, "%s,%s,%s,%d,%d,%d,%llu,%zu,%u:%u,%d,%.3f,%llu,%.1f,%.1f,"
            "%.1f,%.1f,%.1f,%.1f,%.1f,%llu,%llu,%llu,%llu,%llu,%llu,",
            o->label ? o->label : "", o->workload->name, report_proto(o),
            o->threads, r->nconns, o->depth, (unsigned long long)o->keyspace,
            o->value_size, o->get_weight, o->set_weight, o->multiget,
            r->seconds, (unsigned long long)ops, (double)ops / secs,
            (double)(s->hits + s->misses) / secs,
            us(hist_mean(h)), us(hist_quantile(h, 0.50)),
            us(hist_quantile(h, 0.99)), us(hist_quantile(h, 0.999)),
            us(h->max), (unsigned long long)s->hits,
            (unsigned long long)s->misses, (unsigned long long)s->errors,
            (unsigned long long)s->stored, (unsigned long long)s->closed,
            (unsigned long long)s->timeouts);
    c = &s->cycle_lat;
    fprintf(f, "%llu,%d,%llu,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f\n",
            (unsigned long long)o->queues, o->producers,
            (unsigned long long)s->cycles, (double)s->cycles / secs,
            us(hist_mean(c)), us(hist_quantile(c, 0.50)),
            us(hist_quantile(c, 0.99)), us(hist_quantile(c, 0.999)), us(c->max));
}

static void report_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", (unsigned char)*s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

void report_json(FILE *f, const struct bench_result *r)
{
    const struct bench_opts *o = r->opts;
    const struct bench_stats *s = &r->total;
    const struct hist *h = report_all(s), *c = &s->cycle_lat;
    uint64_t ops = report_ops(s);
    double secs = r->seconds > 0 ? r->seconds : 1;

    fputs("{\"label\":", f);
    report_json_string(f, o->label ? o->label : "");
    fputs(",\"workload\":", f);
    report_json_string(f, o->workload->name);
    fprintf(f, ",\"protocol\":\"%s\",\"threads\":%d,\"conns\":%d,\"depth\":%d,"
            "\"keys\":%llu,\"value_size\":%zu,\"get_weight\":%u,"
            "\"set_weight\":%u,\"multiget\":%d,\"seconds\":%.3f,\"ops\":%llu,"
            "\"ops_per_sec\":%.1f,\"keys_per_sec\":%.1f,\"avg_us\":%.1f,"
            "\"p50_us\":%.1f,\"p99_us\":%.1f,\"p999_us\":%.1f,\"max_us\":%.1f,"
            "\"hits\":%llu,\"misses\":%llu,\"errors\":%llu,\"closed\":%llu,"
            "\"stored\":%llu,\"timeouts\":%llu,",
            report_proto(o), o->threads, r->nconns, o->depth,
            (unsigned long long)o->keyspace, o->value_size, o->get_weight,
            o->set_weight, o->multiget, r->seconds, (unsigned long long)ops,
            (double)ops / secs, (double)(s->hits + s->misses) / secs,
            us(hist_mean(h)), us(hist_quantile(h, 0.50)),
            us(hist_quantile(h, 0.99)), us(hist_quantile(h, 0.999)),
            us(h->max), (unsigned long long)s->hits,
            (unsigned long long)s->misses, (unsigned long long)s->errors,
            (unsigned long long)s->closed, (unsigned long long)s->stored,
            (unsigned long long)s->timeouts);
    fprintf(f, "\"queues\":%llu,\"producers\":%d,\"cycles\":%llu,"
            "\"cycles_per_sec\":%.1f,\"cycle_avg_us\":%.1f,\"cycle_p50_us\":%.1f,"
            "\"cycle_p99_us\":%.1f,\"cycle_p999_us\":%.1f,\"cycle_max_us\":%.1f}\n",
            (unsigned long long)o->queues, o->producers,
            (unsigned long long)s->cycles, (double)s->cycles / secs,
            us(hist_mean(c)), us(hist_quantile(c, 0.50)),
            us(hist_quantile(c, 0.99)), us(hist_quantile(c, 0.999)), us(c->max));
}
