/*
 * test_eventlog.c - the event log: fetch returns exactly the events of
 * [first, last] (across chunk and ring boundaries), binary payloads, the
 * incremental reader (no loss, no repetition, late events included),
 * several writer processes with a reader running at the same time, and how
 * long events live: at the edges by moving the server's clock (debugtime,
 * mcds-server --debug), or in real time on a server without it.
 */
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

#define CHUNK_S 2
#define CHUNKS 10
#define WRITERS 4
#define PER_WRITER 2000

typedef struct ev {
    int64_t t;
    char data[32];
} ev_t;

static char log_name[128];

/* Checks that the fetched events are exactly those of want in [lo, hi]. */
static void expect_range(mcds_log_t *log, const ev_t *want, int n, int64_t lo,
                         int64_t hi)
{
    mcds_event_t *got;
    size_t count, k = 0;
    int i;

    CHECK_ST(mcds_log_fetch(log, lo, hi, &got, &count), MCDS_OK);
    for (i = 0; i < n; i++) {
        if (want[i].t < lo || want[i].t > hi)
            continue;
        CHECK(k < count);
        CHECK(got[k].time_ms == want[i].t);
        CHECK(got[k].len == strlen(want[i].data));
        CHECK(memcmp(got[k].data, want[i].data, got[k].len) == 0);
        k++;
    }
    CHECK(k == count);
    mcds_events_free(got);
}

/* Puts at the edges of the accepted window: the current chunk and the
 * n-2 before it, nothing older and nothing after the current chunk. Tries
 * again when the clock moved to the next chunk meanwhile. */
static void check_window(mcds_log_t *log, unsigned chunk_s, unsigned n)
{
    int64_t c = (int64_t)chunk_s * 1000;
    int attempt;

    for (attempt = 0; attempt < 5; attempt++) {
        int64_t q = tu_now_ms() / c, first = (q - (int64_t)n + 2) * c;
        mcds_status_t oldest, too_old, last, next;

        oldest = mcds_log_put(log, first, "oldest", 6);
        too_old = mcds_log_put(log, first - 1, "too old", 7);
        last = mcds_log_put(log, (q + 1) * c - 1, "last", 4);
        next = mcds_log_put(log, (q + 1) * c, "next", 4);
        if (tu_now_ms() / c != q)
            continue;
        CHECK_ST(oldest, MCDS_OK);
        CHECK_ST(too_old, MCDS_INVALID);
        CHECK_ST(last, MCDS_OK);
        CHECK_ST(next, MCDS_INVALID);
        return;
    }
    CHECK(!"the clock crossed a chunk boundary during every attempt");
}

/* An event one chunk ahead of the clock is refused. "Ahead" is read from
 * the clock at the put: an attempt during which the clock crossed into the
 * next chunk proves nothing and is made again. */
static void put_next_chunk_refused(mcds_log_t *log)
{
    const int64_t c = CHUNK_S * 1000;
    int tries;

    for (tries = 0; tries < 5; tries++) {
        int64_t t = tu_now_ms();
        mcds_status_t st = mcds_log_put(log, t + c, "next", 4);
        if (tu_now_ms() / c != t / c)
            continue;
        CHECK_ST(st, MCDS_INVALID);
        return;
    }
    CHECK(!"the clock crossed a chunk boundary during every attempt");
}

static void test_fetch_ranges(mcds_t *h)
{
    static ev_t want[200];
    mcds_log_t *log;
    int64_t now = tu_now_ms(), base = now - 15000;
    int i;

    CHECK_ST(mcds_log_new(h, tu_name("log"), CHUNK_S, CHUNKS, &log), MCDS_OK);
    for (i = 0; i < 150; i++) { /* 15 s of events, 100 ms apart */
        want[i].t = base + i * 100;
        snprintf(want[i].data, sizeof want[i].data, "event %d", i);
        CHECK_ST(mcds_log_put(log, want[i].t, want[i].data,
                              strlen(want[i].data)),
                 MCDS_OK);
    }
    expect_range(log, want, 150, base, now);
    expect_range(log, want, 150, base + 1, base + 100);
    expect_range(log, want, 150, base + 2000, base + 2000);
    expect_range(log, want, 150, base + 2001, base + 2099);
    expect_range(log, want, 150, base + 3950, base + 9050);
    expect_range(log, want, 150, 0, now + 60000);
    expect_range(log, want, 150, base - 100000, base - 1);
    tu_ok("fetch returns exactly the events in [first, last]");

    CHECK_ST(mcds_log_put(log, now - 60000, "old", 3), MCDS_INVALID);
    CHECK_ST(mcds_log_put(log, now + 60000, "future", 6), MCDS_INVALID);
    put_next_chunk_refused(log);
    check_window(log, CHUNK_S, CHUNKS);
    CHECK_ST(mcds_log_fetch(log, 10, 5, NULL, NULL), MCDS_INVALID);
    tu_ok("events outside the window are refused");

    CHECK_ST(mcds_log_clear(log), MCDS_OK);
    expect_range(log, want, 0, 0, now + 60000);
    mcds_log_free(log);
}

static void test_binary(mcds_t *h)
{
    mcds_log_t *log;
    mcds_event_t *got;
    size_t count;
    int64_t now = tu_now_ms();
    static const char bin[] = {'a', 0, '\r', '\n', 'E', 'N', 'D', 0, (char)0xE1};

    CHECK_ST(mcds_log_new(h, tu_name("bin log"), CHUNK_S, CHUNKS, &log),
             MCDS_OK);
    CHECK_ST(mcds_log_put(log, now - 1, bin, sizeof bin), MCDS_OK);
    CHECK_ST(mcds_log_put(log, now, "", 0), MCDS_OK);
    CHECK_ST(mcds_log_fetch(log, now - 1, now, &got, &count), MCDS_OK);
    CHECK(count == 2);
    CHECK(got[0].len == sizeof bin && memcmp(got[0].data, bin, sizeof bin) == 0);
    CHECK(got[1].len == 0 && got[1].data[0] == '\0');
    mcds_events_free(got);
    mcds_log_free(log);
    tu_ok("binary and empty payloads round-trip");
}

/* Reads once and appends what it returned to seen[]. */
static size_t read_into(mcds_log_reader_t *r, char (*seen)[32], size_t n,
                        size_t cap)
{
    mcds_event_t *got;
    size_t count, i;

    CHECK_ST(mcds_log_read(r, &got, &count), MCDS_OK);
    for (i = 0; i < count; i++) {
        CHECK(n < cap && got[i].len < 32);
        memcpy(seen[n], got[i].data, got[i].len);
        seen[n][got[i].len] = '\0';
        n++;
    }
    mcds_events_free(got);
    return n;
}

static void test_reader(mcds_t *h)
{
    static char seen[64][32];
    mcds_log_t *log;
    mcds_log_reader_t *r;
    int64_t now = tu_now_ms();
    size_t n = 0;

    CHECK_ST(mcds_log_new(h, tu_name("rlog"), CHUNK_S, CHUNKS, &log), MCDS_OK);
    CHECK_ST(mcds_log_put(log, now - 5000, "before", 6), MCDS_OK);
    CHECK_ST(mcds_log_put(log, now - 1000, "a", 1), MCDS_OK);
    CHECK_ST(mcds_log_reader_new(log, now - 2000, &r), MCDS_OK);
    n = read_into(r, seen, n, 64);
    CHECK(n == 1 && strcmp(seen[0], "a") == 0);
    n = read_into(r, seen, n, 64);
    CHECK(n == 1);
    CHECK_ST(mcds_log_put(log, now - 1000, "b", 1), MCDS_OK); /* same time */
    CHECK_ST(mcds_log_put(log, now, "c", 1), MCDS_OK);
    CHECK_ST(mcds_log_put(log, now - 1500, "late", 4), MCDS_OK);
    n = read_into(r, seen, n, 64);
    CHECK(n == 4 && strcmp(seen[1], "late") == 0 && strcmp(seen[2], "b") == 0 &&
          strcmp(seen[3], "c") == 0);
    tu_ok("reader: new events once, late ones too, none repeated");

    CHECK_ST(mcds_log_clear(log), MCDS_OK);
    CHECK_ST(mcds_log_put(log, now - 1000, "d", 1), MCDS_OK);
    n = read_into(r, seen, n, 64);
    CHECK(n == 5 && strcmp(seen[4], "d") == 0);
    tu_ok("reader: a recreated chunk is read from its start");
    mcds_log_reader_free(r);
    mcds_log_free(log);
}

/* ---- lifetimes: how long an accepted event stays readable ----
 *
 * The guarantee (mcds.h): an event of chunk p (time in [p*C, (p+1)*C)) is
 * readable from its put until at least keep = (p + n) * C, the end of its
 * chunk plus n-1 chunks, and gone 3 s after keep. The server's clock counts
 * whole seconds, so presence is required up to keep - 1 s. */

#define LIFE_EVENTS 6

typedef struct life_ev {
    const char *name;
    int64_t t;      /* event time */
    int64_t put_ms; /* this clock when its put started */
    int64_t keep;   /* (chunk + n) * C */
} life_ev_t;

typedef struct life_log {
    mcds_log_t *log;
    int64_t c;
    unsigned n;
    life_ev_t ev[LIFE_EVENTS];
    int count;
} life_log_t;

static void life_new(mcds_t *h, life_log_t *l, unsigned chunk_s, unsigned n)
{
    memset(l, 0, sizeof *l);
    CHECK_ST(mcds_log_new(h, tu_name("life"), chunk_s, n, &l->log), MCDS_OK);
    l->c = (int64_t)chunk_s * 1000;
    l->n = n;
}

/* Puts an event; MCDS_INVALID only when the clock moved to the next chunk
 * after q was read (the caller starts again). */
static int life_put(life_log_t *l, const char *name, int64_t t, int64_t q)
{
    life_ev_t *e = &l->ev[l->count];
    mcds_status_t st;

    e->name = name;
    e->t = t;
    e->put_ms = tu_now_ms();
    e->keep = (t / l->c + l->n) * l->c;
    st = mcds_log_put(l->log, t, name, strlen(name));
    if (st == MCDS_INVALID && tu_now_ms() / l->c != q)
        return 0;
    CHECK_ST(st, MCDS_OK);
    CHECK(e->keep - e->put_ms > l->c); /* more than a chunk to live */
    l->count++;
    return 1;
}

static int life_found(const mcds_event_t *got, size_t count, const char *name)
{
    size_t i;

    for (i = 0; i < count; i++)
        if (got[i].len == strlen(name) && memcmp(got[i].data, name, got[i].len) == 0)
            return 1;
    return 0;
}

static void life_fail(const life_ev_t *e, int shift, const char *what)
{
    char more[200];

    snprintf(more, sizeof more,
             "event '%s' (time %lld, put at %lld, keep until %lld) %s with "
             "the server clock %d s ahead, at %lld",
             e->name, (long long)e->t, (long long)e->put_ms,
             (long long)e->keep, what, shift, (long long)tu_now_ms());
    tu_fail(__FILE__, __LINE__, "event lifetime", more);
}

/* Fetches the log with the server clock shift seconds ahead of real time
 * and checks every event against the guarantee. Returns how many events
 * had to be there. */
static int life_check(life_log_t *l, int shift)
{
    mcds_event_t *got;
    size_t count;
    int64_t after, ahead = (int64_t)shift * 1000;
    int i, required = 0;

    CHECK_ST(mcds_log_fetch(l->log, 0, INT64_MAX / 2, &got, &count), MCDS_OK);
    after = tu_now_ms();
    for (i = 0; i < l->count; i++) {
        const life_ev_t *e = &l->ev[i];
        int found = life_found(got, count, e->name);

        if (after + ahead <= e->keep - 1000) {
            required++;
            if (!found)
                life_fail(e, shift, "missing");
        }
        if (e->put_ms + ahead >= e->keep + 3000 && found)
            life_fail(e, shift, "still there");
    }
    mcds_events_free(got);
    return required;
}

/* Puts events at the edges of the window of one log: the first and last
 * ms of the current chunk, now, 1.5 s late, and the first and last ms of
 * the oldest chunk accepted. */
static void life_put_edges(life_log_t *l)
{
    int attempt;

    for (attempt = 0; attempt < 5; attempt++) {
        int64_t now = tu_now_ms(), q = now / l->c;
        int64_t oldest = (q - (int64_t)l->n + 2) * l->c;

        l->count = 0;
        if (life_put(l, "oldest chunk, first ms", oldest, q) &&
            life_put(l, "oldest chunk, last ms", oldest + l->c - 1, q) &&
            life_put(l, "1.5 s late", now - 1500, q) &&
            life_put(l, "current chunk, first ms", q * l->c, q) &&
            life_put(l, "now", now, q) &&
            life_put(l, "current chunk, last ms", (q + 1) * l->c - 1, q))
            return;
        CHECK_ST(mcds_log_clear(l->log), MCDS_OK);
    }
    CHECK(!"the clock crossed a chunk boundary during every attempt");
}

/* With debugtime: moves the server clock one second at a time until every
 * event must be gone, checking presence and absence at each step. */
static void life_walk(life_log_t *l, const char *servers)
{
    int64_t last = 0;
    int shift, i, required = 0;

    for (i = 0; i < l->count; i++) {
        int64_t end = l->ev[i].keep + 3000 - l->ev[i].put_ms;
        if (end > last)
            last = end;
    }
    for (shift = 0; (int64_t)shift * 1000 <= last + 1000; shift++) {
        if (shift > 0)
            CHECK(tu_debugtime(servers, 1));
        required += life_check(l, shift);
    }
    CHECK(required > 0);
}

static void test_lifetimes_debugtime(mcds_t *h, const char *servers)
{
    static const unsigned conf[][2] = {{1, 5}, {2, 3}, {2, 5}, {5, 3}};
    life_log_t l;
    size_t i;

    for (i = 0; i < sizeof conf / sizeof conf[0]; i++) {
        life_new(h, &l, conf[i][0], conf[i][1]);
        life_put_edges(&l);
        life_walk(&l, servers);
        CHECK_ST(mcds_log_clear(l.log), MCDS_OK);
        mcds_log_free(l.log);
    }
    tu_ok("lifetimes (debugtime, 1 s x 5, 2 s x 3, 2 s x 5, 5 s x 3): every "
          "event readable until its chunk's end + n-1 chunks, gone 3 s later");
    tu_ok("lifetimes (debugtime): every accepted event, the oldest late "
          "ones included, has more than one chunk to live after its put");
}

/* Without debugtime (stock memcached), in real time: a log of 1 s x 5
 * (4 s), an event on time and one 1.5 s late, both put just after a chunk
 * began; the late one must still be there 1.3 s later, the other 3.2 s
 * later. */
static void test_lifetimes_real_time(mcds_t *h)
{
    life_log_t l;
    int attempt, late_checked = 0, on_time_checked = 0;

    for (attempt = 0; attempt < 3 && !(late_checked && on_time_checked);
         attempt++) {
        int64_t start;

        life_new(h, &l, 1, 5);
        tu_sleep_until((tu_now_ms() / 1000 + 1) * 1000 + 20);
        start = tu_now_ms();
        if (life_put(&l, "on time", start, start / 1000) &&
            life_put(&l, "1.5 s late", start - 1500, start / 1000)) {
            tu_sleep_until(start + 1300);
            late_checked = life_check(&l, 0) == 2;
            tu_sleep_until(start + 3200);
            on_time_checked = life_check(&l, 0) == 1;
        }
        CHECK_ST(mcds_log_clear(l.log), MCDS_OK);
        mcds_log_free(l.log);
    }
    CHECK(late_checked && on_time_checked);
    tu_ok("lifetimes (real time): an event 1.5 s late in a log of 1 s x 5 "
          "is still there 1.3 s after its put");
    tu_ok("lifetimes (real time): an event on time in a log of 1 s x 5 is "
          "still there 3.2 s after its put");
}

static void writer(int i, const char *servers, void *arg)
{
    mcds_t *h = tu_open(servers);
    mcds_log_t *log;
    char buf[32];
    int k;
    (void)arg;

    CHECK_ST(mcds_log_new(h, log_name, CHUNK_S, CHUNKS, &log), MCDS_OK);
    for (k = 0; k < PER_WRITER; k++) {
        int len = snprintf(buf, sizeof buf, "w%d-%d", i, k);
        /* Writers' clocks disagree a little: some events arrive late. */
        CHECK_ST(mcds_log_put(log, tu_now_ms() - (k % 7) * 150, buf,
                              (size_t)len),
                 MCDS_OK);
    }
    mcds_log_free(log);
    mcds_close(h);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

static void check_all_once(char (*seen)[32], size_t n)
{
    size_t k;

    CHECK(n == (size_t)WRITERS * PER_WRITER);
    qsort(seen, n, 32, cmp_str);
    for (k = 1; k < n; k++)
        CHECK(strcmp(seen[k], seen[k - 1]) != 0);
}

static void test_concurrent(mcds_t *h, const char *servers)
{
    static char seen[WRITERS * PER_WRITER + 1][32];
    mcds_log_t *log;
    mcds_log_reader_t *r;
    mcds_event_t *got;
    size_t n = 0, count, k;
    pid_t pid;
    int status, reads = 0;
    int64_t start = tu_now_ms();

    snprintf(log_name, sizeof log_name, "%s", tu_name("clog"));
    CHECK_ST(mcds_log_new(h, log_name, CHUNK_S, CHUNKS, &log), MCDS_OK);
    CHECK_ST(mcds_log_reader_new(log, start - 10000, &r), MCDS_OK);
    fflush(NULL);
    pid = fork();
    CHECK(pid >= 0);
    if (pid == 0)
        _exit(tu_run_workers(WRITERS, writer, servers, NULL) ? 1 : 0);
    while (waitpid(pid, &status, WNOHANG) == 0) {
        n = read_into(r, seen, n, WRITERS * PER_WRITER + 1);
        reads++;
        usleep(2000);
    }
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    n = read_into(r, seen, n, WRITERS * PER_WRITER + 1);
    printf("# %d reads while %d writers appended\n", reads, WRITERS);
    check_all_once(seen, n);
    tu_ok("reader during 4 writers: every event exactly once");

    CHECK_ST(mcds_log_fetch(log, start - 10000, tu_now_ms(), &got, &count),
             MCDS_OK);
    CHECK(count == (size_t)WRITERS * PER_WRITER);
    for (k = 0; k < count; k++) {
        CHECK(k == 0 || got[k].time_ms >= got[k - 1].time_ms);
        memcpy(seen[k], got[k].data, got[k].len);
        seen[k][got[k].len] = '\0';
    }
    mcds_events_free(got);
    check_all_once(seen, count);
    tu_ok("fetch after 4 writers: every event once, in time order");
    mcds_log_reader_free(r);
    mcds_log_free(log);
}

int main(int argc, char **argv)
{
    const char *servers = tu_init(argc, argv, 120);
    mcds_t *h = tu_open(servers);
    mcds_log_t *bad = NULL;

    CHECK_ST(mcds_log_new(h, "x", 2, 1, &bad), MCDS_INVALID);
    CHECK_ST(mcds_log_new(h, "x", 0, 10, &bad), MCDS_INVALID);
    CHECK_ST(mcds_log_new(h, "x", 1, 4, &bad), MCDS_INVALID); /* keeps 3 s */
    /* the longest chunk TTL, num_chunks * time_chunk_s + 2, within 30 days */
    CHECK_ST(mcds_log_new(h, "x", 1296000, 2, &bad), MCDS_INVALID);
    CHECK(bad == NULL);
    CHECK_ST(mcds_log_new(h, "x", 1295999, 2, &bad), MCDS_OK);
    mcds_log_free(bad);
    CHECK_ST(mcds_log_new(h, "x", 1, 5, &bad), MCDS_OK);
    mcds_log_free(bad);
    bad = NULL;
    test_fetch_ranges(h);
    test_binary(h);
    test_reader(h);
    test_concurrent(h, servers);
    /* last: debugtime moves the server's clock for good */
    if (tu_debugtime(servers, 0))
        test_lifetimes_debugtime(h, servers);
    else
        test_lifetimes_real_time(h);
    mcds_close(h);
    return 0;
}
