/*
 * eventlog.c - libmcds example: the events of the last minute.
 *
 *   ./eventlog [host:port[,host:port...]]  (default 127.0.0.1:11211)
 *
 * The log "example-log" keeps 60 s of events in 13 chunks of 5 s. The
 * example reads what is already there, puts three events, fetches the
 * last 10 s, then reads incrementally: only the new events come back.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <mcds.h>

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void print_events(const char *title, mcds_event_t *ev, size_t n)
{
    size_t i;

    printf("%s: %zu event(s)\n", title, n);
    for (i = 0; i < n; i++)
        printf("  %" PRId64 " %s\n", ev[i].time_ms, ev[i].data);
    mcds_events_free(ev);
}

int main(int argc, char **argv)
{
    const char *servers = argc > 1 ? argv[1] : "127.0.0.1:11211";
    const char *msgs[] = {"user 7 logged in", "order 42 paid", "disk 80%"};
    mcds_t *h;
    mcds_log_t *log;
    mcds_log_reader_t *reader;
    mcds_event_t *ev;
    size_t n, i;
    mcds_status_t st;
    int64_t t = now_ms();

    st = mcds_open(&h, servers);
    if (st == MCDS_OK)
        st = mcds_log_new(h, "example-log", 5, 13, &log);
    if (st != MCDS_OK) {
        fprintf(stderr, "eventlog: %s\n", mcds_strerror(st));
        mcds_close(h);
        return 1;
    }
    st = mcds_log_reader_new(log, t - 60000, &reader);
    if (st == MCDS_OK)
        st = mcds_log_read(reader, &ev, &n); /* whatever is there already */
    if (st == MCDS_OK)
        mcds_events_free(ev);
    for (i = 0; st == MCDS_OK && i < 3; i++)
        st = mcds_log_put(log, t - 2 + (int64_t)i, msgs[i], strlen(msgs[i]));
    if (st == MCDS_OK)
        st = mcds_log_fetch(log, t - 10000, now_ms(), &ev, &n);
    if (st == MCDS_OK)
        print_events("fetch of the last 10 s", ev, n);
    if (st == MCDS_OK)
        st = mcds_log_read(reader, &ev, &n);
    if (st == MCDS_OK)
        print_events("new since the previous read", ev, n);
    if (st != MCDS_OK)
        fprintf(stderr, "eventlog: %s\n", mcds_strerror(st));
    mcds_log_reader_free(reader);
    mcds_log_free(log);
    mcds_close(h);
    return st == MCDS_OK ? 0 : 1;
}
