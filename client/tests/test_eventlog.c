/*
 * test_eventlog.c - the event log: fetch returns exactly the events of
 * [first, last] (across chunk and ring boundaries), binary payloads, the
 * incremental reader (no loss, no repetition, late events included) and
 * several writer processes with a reader running at the same time.
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
    CHECK_ST(mcds_log_put(log, now - 17000, "too late", 8), MCDS_INVALID);
    CHECK_ST(mcds_log_put(log, now + 60000, "future", 6), MCDS_INVALID);
    /* the next chunk's slot may still hold the previous round's chunk */
    CHECK_ST(mcds_log_put(log, now + CHUNK_S * 1000, "next", 4), MCDS_INVALID);
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
    CHECK(bad == NULL);
    test_fetch_ranges(h);
    test_binary(h);
    test_reader(h);
    test_concurrent(h, servers);
    mcds_close(h);
    return 0;
}
