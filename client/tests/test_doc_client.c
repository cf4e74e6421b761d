/*
 * test_doc_client.c - black-box checks of libmcds written only from the
 * contract in client/mcds.h (its comments). Unlike the other programs it
 * does not stop at the first failure: every check prints "ok - ..." or
 * "not ok - ... (file:line: got X, want Y)" and the exit status is the
 * number of failed checks (capped at 100).
 *
 * Usage: test_doc_client SERVERS [mode]
 *   mode "mcds" (default): a mcds-server (with --debug);
 *   mode "memcached": a stock memcached (extended verbs: MCDS_UNSUPPORTED);
 *   mode "down": SERVERS is a list of addresses where nothing listens.
 */
#include <errno.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

static int nfail, nok;
static const char *servers;
static int down_mode;

static void soft(int cond, const char *file, int line, const char *what,
                 const char *more)
{
    if (cond) {
        nok++;
        printf("ok - %s\n", what);
    } else {
        nfail++;
        printf("not ok - %s (%s:%d%s%s)\n", what, file, line, more ? ": " : "",
               more ? more : "");
    }
    fflush(stdout);
}

#define T(cond) soft((cond), __FILE__, __LINE__, #cond, NULL)
#define TS(expr, want)                                                       \
    do {                                                                     \
        mcds_status_t ts_ = (expr);                                          \
        char ts_buf_[200];                                                   \
        snprintf(ts_buf_, sizeof ts_buf_, "got %s, want %s",                 \
                 mcds_status_name(ts_), mcds_status_name(want));             \
        soft(ts_ == (want), __FILE__, __LINE__, #expr " == " #want, ts_buf_); \
    } while (0)

static char *longname(size_t n, char c)
{
    char *s = malloc(n + 1);
    memset(s, c, n);
    s[n] = 0;
    return s;
}

/* ---- status ---- */
static void t_status(void)
{
    T(strcmp(mcds_status_name(MCDS_NOT_FOUND), "NOT_FOUND") == 0);
    T(strcmp(mcds_status_name(MCDS_LIMIT), "LIMIT") == 0);
    T(strcmp(mcds_strerror(MCDS_OK), "success") == 0);
    T(mcds_strerror((mcds_status_t)9999) != NULL);
    T(mcds_status_name((mcds_status_t)9999) != NULL);
    T(mcds_strerror((mcds_status_t)-1) != NULL);
    T(mcds_status_name(MCDS_STATUS_COUNT) != NULL);
    mcds_items_free(NULL);
    mcds_events_free(NULL);
    mcds_value_free(NULL);
    mcds_queue_msgs_free(NULL);
    mcds_queue_entries_free(NULL);
    mcds_ctree_values_free(NULL);
    T(1);
}

/* ---- server lists ---- */
static void t_open(void)
{
    static const char *bad[] = {
        "", " ", ",", "127.0.0.1", "127.0.0.1:", "127.0.0.1:0",
        "127.0.0.1:65536", "127.0.0.1:-1", "127.0.0.1:11211,",
        "127.0.0.1:11211,,127.0.0.1:11212", "127.0.0.1:11211:0",
        "127.0.0.1:11211:4294967296", "127.0.0.1:abc", "[::1]",
        "[::1]:0", ":11211", "127.0.0.1:11211:1:1", "127.0.0.1:11211x",
        NULL};
    static const char *good[] = {
        "127.0.0.1:11211", " 127.0.0.1:11211 , 127.0.0.1:11212 ",
        "127.0.0.1:65535", "127.0.0.1:1:4294967295", "[::1]:11211",
        "[::1]:11211:3", "/tmp/mcds-doc.sock", "localhost:11211",
        "--SERVER=127.0.0.1:11211", NULL};
    char msg[300];
    for (int i = 0; bad[i]; i++) {
        mcds_t *h = NULL;
        mcds_status_t st = mcds_open(&h, bad[i]);
        snprintf(msg, sizeof msg, "mcds_open(\"%s\") is INVALID (got %s)",
                 bad[i], mcds_status_name(st));
        soft(st == MCDS_INVALID, __FILE__, __LINE__, msg, NULL);
        if (st == MCDS_OK)
            mcds_close(h);
    }
    for (int i = 0; good[i]; i++) {
        mcds_t *h = NULL;
        mcds_status_t st = mcds_open(&h, good[i]);
        snprintf(msg, sizeof msg, "mcds_open(\"%s\") is OK (got %s)", good[i],
                 mcds_status_name(st));
        soft(st == MCDS_OK, __FILE__, __LINE__, msg, NULL);
        if (st == MCDS_OK)
            mcds_close(h);
    }
    if (down_mode)
        return;
    mcds_t *h = tu_open(servers);
    TS(mcds_set_reconnect_delay(h, 86400), MCDS_OK);
    TS(mcds_set_reconnect_delay(h, 86401), MCDS_INVALID);
    TS(mcds_set_reconnect_delay(h, 2), MCDS_OK);
    mcds_t *c = NULL;
    TS(mcds_clone(&c, h), MCDS_OK);
    if (c) {
        int64_t v;
        const char *n = tu_name("clone");
        TS(mcds_counter_incr(c, n, 5, &v), MCDS_OK);
        TS(mcds_counter_get(h, n, &v), MCDS_OK);
        T(v == 5);
        mcds_close(c);
    }
    T(mcds_memcached(h) != NULL);
    mcds_close(h);
    mcds_close(NULL);
}

/* ---- locks ---- */
static void t_lock(void)
{
    mcds_t *h = tu_open(servers), *h2 = tu_open(servers);
    mcds_lock_t *a = NULL, *b = NULL, *x = NULL;
    const char *name = tu_name("lock");
    TS(mcds_lock_new(h, name, 1, &x), MCDS_INVALID);
    TS(mcds_lock_new(h, name, 0, &x), MCDS_INVALID);
    TS(mcds_lock_new(h, "", 5, &x), MCDS_INVALID);
    char *ln = longname(300, 'l');
    mcds_status_t st = mcds_lock_new(h, ln, 5, &x);
    if (st == MCDS_OK) {
        TS(mcds_lock_try(x), MCDS_KEY_TOO_LONG);
        mcds_lock_free(x);
    } else
        TS(st, MCDS_KEY_TOO_LONG);
    free(ln);
    TS(mcds_lock_new(h, name, 3, &a), MCDS_OK);
    TS(mcds_lock_new(h2, name, 3, &b), MCDS_OK);
    if (!a || !b)
        return;
    T(strcmp(mcds_lock_token(a), "") == 0);
    TS(mcds_lock_release(a), MCDS_NOT_OWNER);
    TS(mcds_lock_extend(a, 5), MCDS_NOT_OWNER);
    TS(mcds_lock_try(a), MCDS_OK);
    T(strlen(mcds_lock_token(a)) > 0);
    TS(mcds_lock_try(a), MCDS_BUSY); /* not recursive */
    TS(mcds_lock_try(b), MCDS_BUSY);
    T(strcmp(mcds_lock_token(b), "") == 0);
    int64_t t0 = tu_now_ms();
    TS(mcds_lock_acquire(b, 300), MCDS_TIMEOUT);
    int64_t el = tu_now_ms() - t0;
    T(el >= 290 && el < 1500);
    TS(mcds_lock_release(b), MCDS_NOT_OWNER);
    TS(mcds_lock_extend(a, 2), MCDS_OK);
    TS(mcds_lock_extend(a, 1), MCDS_INVALID);
    TS(mcds_lock_release(a), MCDS_OK);
    T(strcmp(mcds_lock_token(a), "") == 0);
    TS(mcds_lock_release(a), MCDS_NOT_OWNER);
    TS(mcds_lock_acquire(b, 300), MCDS_OK);
    char tokb[200];
    snprintf(tokb, sizeof tokb, "%s", mcds_lock_token(b));
    TS(mcds_lock_try(a), MCDS_BUSY);
    /* a holder that lets its TTL run out loses the lock */
    if (tu_debugtime(servers, 4)) {
        TS(mcds_lock_acquire(a, 2000), MCDS_OK);
        T(strcmp(mcds_lock_token(a), tokb) != 0);
        TS(mcds_lock_release(b), MCDS_NOT_OWNER);
        TS(mcds_lock_extend(b, 10), MCDS_NOT_OWNER);
        TS(mcds_lock_try(b), MCDS_BUSY);
        TS(mcds_lock_release(a), MCDS_OK);
    }
    /* acquire waits for a release by the other client */
    TS(mcds_lock_try(b), MCDS_OK);
    pid_t p = fork();
    if (p == 0) {
        usleep(200000);
        _exit(mcds_lock_release(b) == MCDS_OK ? 0 : 1);
    }
    t0 = tu_now_ms();
    TS(mcds_lock_acquire(a, 3000), MCDS_OK);
    el = tu_now_ms() - t0;
    T(el >= 150 && el < 2000);
    int ws;
    waitpid(p, &ws, 0);
    T(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    TS(mcds_lock_release(a), MCDS_OK);
    /* lock_free does not release */
    TS(mcds_lock_try(b), MCDS_OK);
    mcds_lock_free(b);
    TS(mcds_lock_try(a), MCDS_BUSY);
    mcds_lock_free(a);
    mcds_lock_free(NULL);
    mcds_close(h);
    mcds_close(h2);
}

/* ---- counters ---- */
static void t_counter(void)
{
    mcds_t *h = tu_open(servers);
    const char *n = tu_name("ctr");
    int64_t v = 77;
    TS(mcds_counter_get(h, n, &v), MCDS_NOT_FOUND);
    TS(mcds_counter_incr(h, n, -5, &v), MCDS_OK);
    T(v == -5);
    TS(mcds_counter_incr(h, n, 12, &v), MCDS_OK);
    T(v == 7);
    TS(mcds_counter_incr(h, n, 0, &v), MCDS_OK);
    T(v == 7);
    TS(mcds_counter_get(h, n, &v), MCDS_OK);
    T(v == 7);
    TS(mcds_counter_set(h, n, MCDS_COUNTER_MAX + 1), MCDS_OUT_OF_RANGE);
    TS(mcds_counter_set(h, n, MCDS_COUNTER_MIN - 1), MCDS_OUT_OF_RANGE);
    TS(mcds_counter_set(h, n, INT64_MIN), MCDS_OUT_OF_RANGE);
    TS(mcds_counter_get(h, n, &v), MCDS_OK);
    T(v == 7);
    TS(mcds_counter_set(h, n, MCDS_COUNTER_MAX), MCDS_OK);
    TS(mcds_counter_incr(h, n, 1, &v), MCDS_OUT_OF_RANGE);
    TS(mcds_counter_get(h, n, &v), MCDS_OK);
    T(v == MCDS_COUNTER_MAX);
    TS(mcds_counter_incr(h, n, INT64_MAX, &v), MCDS_OUT_OF_RANGE);
    TS(mcds_counter_get(h, n, &v), MCDS_OK);
    T(v == MCDS_COUNTER_MAX);
    TS(mcds_counter_incr(h, n, -1, &v), MCDS_OK);
    T(v == MCDS_COUNTER_MAX - 1);
    TS(mcds_counter_set(h, n, MCDS_COUNTER_MIN), MCDS_OK);
    TS(mcds_counter_incr(h, n, -1, &v), MCDS_OK);
    T(v == MCDS_COUNTER_MIN);
    TS(mcds_counter_incr(h, n, INT64_MIN, &v), MCDS_OK);
    T(v == MCDS_COUNTER_MIN);
    TS(mcds_counter_set(h, n, -3), MCDS_OK);
    TS(mcds_counter_incr(h, n, INT64_MIN, &v), MCDS_OK);
    T(v == MCDS_COUNTER_MIN);
    TS(mcds_counter_set(h, n, 0), MCDS_OK);
    TS(mcds_counter_get(h, n, &v), MCDS_OK);
    T(v == 0);
    TS(mcds_counter_delete(h, n), MCDS_OK);
    TS(mcds_counter_get(h, n, &v), MCDS_NOT_FOUND);
    TS(mcds_counter_delete(h, n), MCDS_NOT_FOUND);
    char *ln = longname(300, 'c');
    TS(mcds_counter_incr(h, ln, 1, &v), MCDS_KEY_TOO_LONG);
    TS(mcds_counter_get(h, ln, &v), MCDS_KEY_TOO_LONG);
    free(ln);
    /* a cache value that is not a counter */
    const char *n2 = tu_name("ctr");
    char key[300];
    snprintf(key, sizeof key, "mcds:counter:%s", n2);
    mcds_close(h);
}

/* ---- sequences ---- */
static void seq_worker(int i, const char *srv, void *arg)
{
    const char *name = arg;
    mcds_t *h = tu_open(srv);
    mcds_seq_t *s;
    CHECK_ST(mcds_seq_new(h, name, (uint32_t)(7 + i * 3), &s), MCDS_OK);
    char path[100];
    snprintf(path, sizeof path, "/tmp/bbc-seq-%d-%d", (int)getppid(), i);
    FILE *f = fopen(path, "w");
    for (int k = 0; k < 5000; k++) {
        uint64_t id;
        CHECK_ST(mcds_seq_next(s, &id), MCDS_OK);
        fprintf(f, "%llu\n", (unsigned long long)id);
    }
    fclose(f);
    mcds_seq_free(s);
    mcds_close(h);
}

static void t_seq(void)
{
    mcds_t *h = tu_open(servers);
    mcds_seq_t *s = NULL;
    const char *n = tu_name("seq");
    TS(mcds_seq_new(h, n, 0, &s), MCDS_INVALID);
    TS(mcds_seq_new(h, n, 1000001, &s), MCDS_INVALID);
    TS(mcds_seq_new(h, n, 1000000, &s), MCDS_OK);
    mcds_seq_free(s);
    s = NULL;
    TS(mcds_seq_new(h, n, 1, &s), MCDS_OK);
    uint64_t id = 0;
    TS(mcds_seq_next(s, &id), MCDS_OK);
    T(id == 1);
    TS(mcds_seq_next(s, &id), MCDS_OK);
    T(id == 2);
    mcds_seq_free(s);
    TS(mcds_seq_raise(h, n, 1000), MCDS_OK);
    TS(mcds_seq_raise(h, n, 10), MCDS_OK); /* never lowers */
    TS(mcds_seq_new(h, n, 5, &s), MCDS_OK);
    TS(mcds_seq_next(s, &id), MCDS_OK);
    T(id > 1000);
    mcds_seq_free(s);
    /* raising a sequence that does not exist yet */
    const char *n3 = tu_name("seq");
    TS(mcds_seq_raise(h, n3, 50), MCDS_OK);
    TS(mcds_seq_new(h, n3, 3, &s), MCDS_OK);
    TS(mcds_seq_next(s, &id), MCDS_OK);
    T(id > 50);
    mcds_seq_free(s);
    /* uniqueness under two concurrent processes */
    const char *n2 = tu_name("seq");
    char *arg = strdup(n2);
    T(tu_run_workers(2, seq_worker, servers, arg) == 0);
    uint64_t *all = malloc(sizeof(uint64_t) * 10000);
    size_t cnt = 0;
    for (int i = 0; i < 2; i++) {
        char path[100];
        snprintf(path, sizeof path, "/tmp/bbc-seq-%d-%d", (int)getpid(), i);
        FILE *f = fopen(path, "r");
        unsigned long long x;
        while (f && cnt < 10000 && fscanf(f, "%llu", &x) == 1)
            all[cnt++] = x;
        if (f)
            fclose(f);
        unlink(path);
    }
    T(cnt == 10000);
    qsort(all, cnt, sizeof *all, tu_cmp_u64);
    size_t dups = 0;
    for (size_t i = 1; i < cnt; i++)
        dups += all[i] == all[i - 1];
    T(dups == 0);
    T(cnt && all[0] >= 1);
    free(all);
    free(arg);
    mcds_close(h);
}

/* ---- event log ---- */
static void t_log(void)
{
    mcds_t *h = tu_open(servers);
    mcds_log_t *log = NULL;
    const char *n = tu_name("log");
    TS(mcds_log_new(h, n, 10, 1, &log), MCDS_INVALID);
    TS(mcds_log_new(h, n, 10, 1001, &log), MCDS_INVALID);
    TS(mcds_log_new(h, n, 1, 4, &log), MCDS_INVALID);   /* retention 3 s */
    TS(mcds_log_new(h, n, 0, 10, &log), MCDS_INVALID);
    TS(mcds_log_new(h, n, 1, 5, &log), MCDS_OK);        /* retention 4 s */
    mcds_log_free(log);
    TS(mcds_log_new(h, n, 1295999, 2, &log), MCDS_OK);  /* 2591998 s */
    mcds_log_free(log);
    TS(mcds_log_new(h, n, 1296000, 2, &log), MCDS_INVALID);
    TS(mcds_log_new(h, n, 2591, 1000, &log), MCDS_OK);  /* 2591000 */
    mcds_log_free(log);
    TS(mcds_log_new(h, n, 2592, 1000, &log), MCDS_INVALID);
    log = NULL;
    TS(mcds_log_new(h, n, 60, 5, &log), MCDS_OK);
    if (!log)
        return;
    int64_t now = tu_now_ms();
    int64_t p = now / 60000;
    TS(mcds_log_put(log, (p + 1) * 60000 + 1, "future", 6), MCDS_INVALID);
    TS(mcds_log_put(log, (p - 4) * 60000 + 5, "too old", 7), MCDS_INVALID);
    TS(mcds_log_put(log, (p - 3) * 60000, "late3", 5), MCDS_OK); /* n-2 before */
    TS(mcds_log_put(log, now, "b", 1), MCDS_OK);
    TS(mcds_log_put(log, now, "c", 1), MCDS_OK);
    TS(mcds_log_put(log, now - 1, "a", 1), MCDS_OK);
    TS(mcds_log_put(log, now, "", 0), MCDS_OK);
    mcds_event_t *ev = NULL;
    size_t cnt = 0;
    TS(mcds_log_fetch(log, now - 1, now, &ev, &cnt), MCDS_OK);
    T(cnt == 4);
    if (cnt == 4) {
        T(ev[0].time_ms == now - 1 && ev[0].len == 1 && ev[0].data[0] == 'a');
        T(ev[1].len == 1 && ev[1].data[0] == 'b');
        T(ev[2].len == 1 && ev[2].data[0] == 'c');
        T(ev[3].len == 0 && ev[3].data[0] == 0);
    }
    mcds_events_free(ev);
    TS(mcds_log_fetch(log, now, now, &ev, &cnt), MCDS_OK);
    T(cnt == 3);
    mcds_events_free(ev);
    TS(mcds_log_fetch(log, now + 1, now + 100000, &ev, &cnt), MCDS_OK);
    T(cnt == 0);
    mcds_events_free(ev);
    TS(mcds_log_fetch(log, 0, now + 100000, &ev, &cnt), MCDS_OK);
    T(cnt == 5);
    if (cnt == 5)
        T(ev[0].time_ms == (p - 3) * 60000 && ev[0].len == 5);
    mcds_events_free(ev);
    /* binary data with NUL bytes */
    char bin[5] = {'x', 0, 'y', '\r', '\n'};
    TS(mcds_log_put(log, now + 1, bin, 5), MCDS_OK);
    TS(mcds_log_fetch(log, now + 1, now + 1, &ev, &cnt), MCDS_OK);
    T(cnt == 1 && ev && ev[0].len == 5 && memcmp(ev[0].data, bin, 5) == 0);
    mcds_events_free(ev);
    /* reader: each event exactly once */
    mcds_log_reader_t *r = NULL;
    TS(mcds_log_reader_new(log, now - 1, &r), MCDS_OK);
    if (r) {
        TS(mcds_log_read(r, &ev, &cnt), MCDS_OK);
        T(cnt == 5);
        mcds_events_free(ev);
        TS(mcds_log_read(r, &ev, &cnt), MCDS_OK);
        T(cnt == 0);
        mcds_events_free(ev);
        TS(mcds_log_put(log, now + 2, "d", 1), MCDS_OK);
        TS(mcds_log_put(log, now - 5000, "before since", 12), MCDS_OK);
        TS(mcds_log_put(log, (p - 2) * 60000 + 1, "late2", 5), MCDS_OK);
        TS(mcds_log_read(r, &ev, &cnt), MCDS_OK);
        T(cnt == 1 && ev && ev[0].len == 1 && ev[0].data[0] == 'd');
        mcds_events_free(ev);
        TS(mcds_log_read(r, &ev, &cnt), MCDS_OK);
        T(cnt == 0);
        mcds_events_free(ev);
        mcds_log_reader_free(r);
    }
    r = NULL;
    TS(mcds_log_reader_new(log, 0, &r), MCDS_OK);
    if (r) {
        TS(mcds_log_read(r, &ev, &cnt), MCDS_OK);
        T(cnt == 9);
        mcds_events_free(ev);
        /* late events (n-2 chunks back, and in the current chunk before
         * events already read) come in the next read, exactly once */
        TS(mcds_log_put(log, (p - 3) * 60000 + 7, "late-a", 6), MCDS_OK);
        TS(mcds_log_put(log, now - 2, "late-b", 6), MCDS_OK);
        TS(mcds_log_read(r, &ev, &cnt), MCDS_OK);
        T(cnt == 2);
        mcds_events_free(ev);
        TS(mcds_log_read(r, &ev, &cnt), MCDS_OK);
        T(cnt == 0);
        mcds_events_free(ev);
        mcds_log_reader_free(r);
    }
    /* too large */
    size_t big = 2 * 1024 * 1024;
    char *bb = calloc(1, big);
    TS(mcds_log_put(log, now, bb, big), MCDS_TOO_LARGE);
    free(bb);
    TS(mcds_log_fetch(log, 0, now + 100000, &ev, &cnt), MCDS_OK);
    T(cnt == 11);
    mcds_events_free(ev);
    TS(mcds_log_clear(log), MCDS_OK);
    TS(mcds_log_fetch(log, 0, now + 100000, &ev, &cnt), MCDS_OK);
    T(cnt == 0);
    mcds_events_free(ev);
    mcds_log_free(log);
    mcds_log_free(NULL);
    char *ln = longname(300, 'g');
    log = NULL;
    mcds_status_t st = mcds_log_new(h, ln, 60, 5, &log);
    if (st == MCDS_OK) {
        TS(mcds_log_put(log, tu_now_ms(), "x", 1), MCDS_KEY_TOO_LONG);
        mcds_log_free(log);
    } else
        TS(st, MCDS_KEY_TOO_LONG);
    free(ln);
    mcds_close(h);
}

/* ---- arrays ---- */
static void t_array(void)
{
    mcds_t *h = tu_open(servers);
    const char *n = tu_name("arr");
    mcds_item_t *items = (mcds_item_t *)1;
    size_t cnt = 99;
    TS(mcds_array_fetch(h, n, &items, &cnt), MCDS_OK);
    T(cnt == 0);
    mcds_items_free(cnt ? items : NULL);
    mcds_item_t add[] = {{"a", 1}, {"b", 1}, {"a", 1}, {"", 0}, {"x\0y", 3}};
    TS(mcds_array_change(h, n, add, 5, NULL, 0), MCDS_OK);
    TS(mcds_array_fetch(h, n, &items, &cnt), MCDS_OK);
    T(cnt == 5);
    if (cnt == 5)
        T(items[4].len == 3 && memcmp(items[4].data, "x\0y", 3) == 0 &&
          items[2].len == 1 && items[2].data[0] == 'a');
    mcds_items_free(items);
    mcds_item_t del[] = {{"a", 1}};
    mcds_item_t add2[] = {{"a", 1}};
    TS(mcds_array_change(h, n, add2, 1, del, 1), MCDS_OK);
    TS(mcds_array_fetch(h, n, &items, &cnt), MCDS_OK);
    T(cnt == 4);
    if (cnt == 4)
        T(items[0].data[0] == 'b' && items[3].data[0] == 'a');
    mcds_items_free(items);
    TS(mcds_array_delete(h, n), MCDS_OK);
    TS(mcds_array_fetch(h, n, &items, &cnt), MCDS_OK);
    T(cnt == 0);
    char *ln = longname(300, 'a');
    TS(mcds_array_fetch(h, ln, &items, &cnt), MCDS_KEY_TOO_LONG);
    free(ln);
    mcds_close(h);
}

static void t_oparray(void)
{
    mcds_t *h = tu_open(servers);
    mcds_oparray_t *a = NULL;
    const char *n = tu_name("opa");
    TS(mcds_oparray_new(h, n, 0, &a), MCDS_INVALID);
    TS(mcds_oparray_new(h, n, 257, &a), MCDS_INVALID);
    TS(mcds_oparray_new(h, n, 256, &a), MCDS_OK);
    mcds_oparray_free(a);
    a = NULL;
    TS(mcds_oparray_new(h, n, 1, &a), MCDS_OK);
    if (!a)
        return;
    mcds_item_t *items;
    size_t cnt = 9;
    TS(mcds_oparray_fetch(a, &items, &cnt), MCDS_OK);
    T(cnt == 0);
    TS(mcds_oparray_add(a, "x", 1), MCDS_OK);
    TS(mcds_oparray_add(a, "y", 1), MCDS_OK);
    TS(mcds_oparray_add(a, "x", 1), MCDS_OK);
    TS(mcds_oparray_add(a, "a b\r\n+-", 7), MCDS_OK);
    TS(mcds_oparray_remove(a, "x", 1), MCDS_OK);
    TS(mcds_oparray_add(a, "x", 1), MCDS_OK);
    TS(mcds_oparray_add(a, "", 0), MCDS_OK);
    TS(mcds_oparray_fetch(a, &items, &cnt), MCDS_OK);
    T(cnt == 4);
    if (cnt == 4) {
        T(items[0].len == 1 && items[0].data[0] == 'y');
        T(items[1].len == 7 && memcmp(items[1].data, "a b\r\n+-", 7) == 0);
        T(items[2].len == 1 && items[2].data[0] == 'x');
        T(items[3].len == 0);
    }
    mcds_items_free(items);
    TS(mcds_oparray_compact(a), MCDS_OK);
    TS(mcds_oparray_fetch(a, &items, &cnt), MCDS_OK);
    T(cnt == 4);
    mcds_items_free(items);
    /* remove of something not there; compaction by threshold */
    TS(mcds_oparray_remove(a, "nothere", 7), MCDS_OK);
    mcds_oparray_set_compact_threshold(a, 10);
    for (int i = 0; i < 20; i++) {
        TS(mcds_oparray_add(a, "tmp", 3), MCDS_OK);
        TS(mcds_oparray_remove(a, "tmp", 3), MCDS_OK);
    }
    TS(mcds_oparray_fetch(a, &items, &cnt), MCDS_OK);
    T(cnt == 4);
    mcds_items_free(items);
    TS(mcds_oparray_delete(a), MCDS_OK);
    TS(mcds_oparray_fetch(a, &items, &cnt), MCDS_OK);
    T(cnt == 0);
    mcds_oparray_free(a);
    mcds_oparray_free(NULL);
    mcds_close(h);
}

/* ---- tables and hashes ---- */
static void t_table(void)
{
    mcds_t *h = tu_open(servers);
    const char *n = tu_name("tbl");
    mcds_item_t *items;
    size_t cnt = 9;
    TS(mcds_table_fetch(h, n, &items, &cnt), MCDS_OK);
    T(cnt == 0);
    TS(mcds_table_has(h, n, "m", 1), MCDS_NOT_FOUND);
    TS(mcds_table_delete(h, n, "m", 1), MCDS_NOT_FOUND);
    TS(mcds_table_add(h, n, "m", 1), MCDS_OK);
    TS(mcds_table_add(h, n, "m", 1), MCDS_EXISTS);
    TS(mcds_table_add(h, n, "with space\r\n", 12), MCDS_OK);
    TS(mcds_table_add(h, n, "n\0z", 3), MCDS_OK);
    TS(mcds_table_has(h, n, "m", 1), MCDS_OK);
    TS(mcds_table_has(h, n, "with space\r\n", 12), MCDS_OK);
    TS(mcds_table_has(h, n, "n\0z", 3), MCDS_OK);
    TS(mcds_table_has(h, n, "n", 1), MCDS_NOT_FOUND);
    TS(mcds_table_fetch(h, n, &items, &cnt), MCDS_OK);
    T(cnt == 3);
    mcds_items_free(items);
    TS(mcds_table_delete(h, n, "m", 1), MCDS_OK);
    TS(mcds_table_has(h, n, "m", 1), MCDS_NOT_FOUND);
    TS(mcds_table_delete(h, n, "m", 1), MCDS_NOT_FOUND);
    /* a member as long as the key limit allows or longer */
    char *lm = longname(1000, 'm');
    mcds_status_t st = mcds_table_add(h, n, lm, 1000);
    T(st == MCDS_OK || st == MCDS_KEY_TOO_LONG);
    if (st == MCDS_OK)
        TS(mcds_table_has(h, n, lm, 1000), MCDS_OK);
    free(lm);
    TS(mcds_table_drop(h, n), MCDS_OK);
    TS(mcds_table_fetch(h, n, &items, &cnt), MCDS_OK);
    T(cnt == 0);
    TS(mcds_table_has(h, n, "with space\r\n", 12), MCDS_NOT_FOUND);
    TS(mcds_table_add(h, n, "m", 1), MCDS_OK); /* usable after a drop */
    TS(mcds_table_has(h, n, "m", 1), MCDS_OK);
    TS(mcds_table_drop(h, n), MCDS_OK);

    const char *hn = tu_name("hash");
    char *val;
    size_t vlen;
    TS(mcds_hash_get(h, hn, "f", 1, &val, &vlen), MCDS_NOT_FOUND);
    TS(mcds_hash_set(h, hn, "f", 1, "v1", 2), MCDS_OK);
    TS(mcds_hash_set(h, hn, "f", 1, "v2\0x", 4), MCDS_OK);
    TS(mcds_hash_set(h, hn, "g", 1, "", 0), MCDS_OK);
    TS(mcds_hash_get(h, hn, "f", 1, &val, &vlen), MCDS_OK);
    T(vlen == 4 && memcmp(val, "v2\0x", 5) == 0);
    mcds_value_free(val);
    TS(mcds_hash_get(h, hn, "g", 1, &val, &vlen), MCDS_OK);
    T(vlen == 0 && val && val[0] == 0);
    mcds_value_free(val);
    TS(mcds_hash_fields(h, hn, &items, &cnt), MCDS_OK);
    T(cnt == 2);
    mcds_items_free(items);
    TS(mcds_hash_fetch(h, hn, &items, &cnt), MCDS_OK);
    T(cnt == 2);
    if (cnt == 2) {
        int fi = items[0].data[0] == 'f' ? 0 : 2;
        T(items[fi + 1].len == 4);
    }
    mcds_items_free(items);
    TS(mcds_hash_delete(h, hn, "f", 1), MCDS_OK);
    TS(mcds_hash_delete(h, hn, "f", 1), MCDS_NOT_FOUND);
    TS(mcds_hash_get(h, hn, "f", 1, &val, &vlen), MCDS_NOT_FOUND);
    TS(mcds_hash_fetch(h, hn, &items, &cnt), MCDS_OK);
    T(cnt == 1);
    mcds_items_free(items);
    TS(mcds_hash_drop(h, hn), MCDS_OK);
    TS(mcds_hash_fields(h, hn, &items, &cnt), MCDS_OK);
    T(cnt == 0);
    char *ln = longname(300, 't');
    TS(mcds_table_add(h, ln, "m", 1), MCDS_KEY_TOO_LONG);
    TS(mcds_hash_set(h, ln, "f", 1, "v", 1), MCDS_KEY_TOO_LONG);
    free(ln);
    mcds_close(h);
}

/* A thread that, after 300 ms, pushes one element to a queue (kind 0) or
 * a list (kind 1) with its own handle. */
struct waker {
    int kind;
    const char *key;
    mcds_status_t st;
    pthread_t th;
};

static void *waker_main(void *arg)
{
    struct waker *w = arg;
    mcds_t *hc = tu_open(servers);
    usleep(300000);
    if (w->kind == 0)
        w->st = mcds_queue_push(hc, w->key, "w", 1, 0, 0, 0, NULL);
    else
        w->st = mcds_list_push(hc, w->key, MCDS_LIST_TAIL,
                               &(mcds_item_t){"w", 1}, 1, NULL);
    mcds_close(hc);
    return NULL;
}

static void waker_start(struct waker *w, int kind, const char *key)
{
    w->kind = kind;
    w->key = key;
    w->st = MCDS_FAILURE;
    pthread_create(&w->th, NULL, waker_main, w);
}

/* ---- queues ---- */
static void t_queue(void)
{
    mcds_t *h = tu_open(servers);
    const char *q = tu_name("q");
    mcds_queue_msg_t *m = NULL;
    size_t cnt = 9;
    uint64_t id1 = 0, id2 = 0, x;
    TS(mcds_queue_push(h, "", "x", 1, 0, 0, 0, NULL), MCDS_INVALID);
    TS(mcds_queue_push(h, "a b", "x", 1, 0, 0, 0, NULL), MCDS_INVALID);
    TS(mcds_queue_push(h, "a\nb", "x", 1, 0, 0, 0, NULL), MCDS_INVALID);
    char *ln = longname(251, 'q');
    TS(mcds_queue_push(h, ln, "x", 1, 0, 0, 0, NULL), MCDS_KEY_TOO_LONG);
    TS(mcds_queue_stats(h, ln, &(mcds_queue_stats_t){0}), MCDS_KEY_TOO_LONG);
    ln[250] = 0;
    TS(mcds_queue_push(h, ln, "x", 1, 0, 0, 0, &x), MCDS_OK);
    TS(mcds_queue_delete(h, ln), MCDS_OK);
    free(ln);
    TS(mcds_queue_pop(h, q, 1, 0, 0, &m, &cnt), MCDS_OK);
    T(cnt == 0);
    mcds_queue_msgs_free(m);
    /* mcds.h: "Calls that fail before sending anything leave it [the
     * detail] as it was" -- after a success it is "" */
    T(strcmp(mcds_last_detail(h), "") == 0);
    TS(mcds_queue_push(h, "bad name", "x", 1, 0, 0, 0, NULL), MCDS_INVALID);
    T(strcmp(mcds_last_detail(h), "") == 0);
    TS(mcds_queue_pop(h, q, 1, 0, 0, &m, &cnt), MCDS_OK);
    mcds_queue_msgs_free(m);
    char *tl = longname(300, 'Q');
    TS(mcds_queue_push(h, tl, "x", 1, 0, 0, 0, NULL), MCDS_KEY_TOO_LONG);
    T(strcmp(mcds_last_detail(h), "") == 0);
    TS(mcds_queue_pop(h, q, 1, 0, 0, &m, &cnt), MCDS_OK);
    mcds_queue_msgs_free(m);
    uint64_t tlen;
    TS(mcds_list_len(h, tl, &tlen), MCDS_KEY_TOO_LONG);
    T(strcmp(mcds_last_detail(h), "") == 0);
    free(tl);
    mcds_queue_stats_t s;
    TS(mcds_queue_stats(h, q, &s), MCDS_NOT_FOUND);
    TS(mcds_queue_ack(h, q, 1), MCDS_NOT_FOUND);
    TS(mcds_queue_pop(h, q, 0, 0, 0, &m, &cnt), MCDS_INVALID);
    TS(mcds_queue_pop(h, q, MCDS_QUEUE_POP_MAX + 1, 0, 0, &m, &cnt),
       MCDS_INVALID);
    mcds_queue_opts_t o = {.max_length = 2, .lease_ms = 5000};
    TS(mcds_queue_create(h, q, &o), MCDS_OK);
    TS(mcds_queue_create(h, q, NULL), MCDS_EXISTS);
    TS(mcds_queue_push(h, q, "one", 3, 7, 0, 10, &id1), MCDS_OK);
    TS(mcds_queue_push(h, q, "two\0", 4, 8, 0, 1, &id2), MCDS_OK);
    TS(mcds_queue_push(h, q, "three", 5, 0, 0, 0, NULL), MCDS_FULL);
    T(id1 && id2 && id1 != id2);
    TS(mcds_queue_stats(h, q, &s), MCDS_OK);
    T(s.ready == 2 && s.max_length == 2 && s.lease_ms == 5000);
    TS(mcds_queue_pop(h, q, 5, 0, 0, &m, &cnt), MCDS_OK);
    T(cnt == 2);
    if (cnt == 2) {
        T(m[0].id == id2 && m[0].len == 4 && m[0].flags == 8 &&
          m[0].deliveries == 1);
        T(m[1].id == id1 && m[1].len == 3 && m[1].data[3] == 0);
    }
    TS(mcds_queue_ack(h, q, id2), MCDS_OK);
    TS(mcds_queue_ack(h, q, id2), MCDS_NOT_FOUND);
    TS(mcds_queue_touch(h, q, id1, 10000), MCDS_OK);
    TS(mcds_queue_release(h, q, id1, 0), MCDS_OK);
    TS(mcds_queue_ack(h, q, id1), MCDS_NOT_FOUND); /* not leased now */
    mcds_queue_msgs_free(m);
    /* receipts: an old delivery answers NOT_FOUND */
    TS(mcds_queue_pop(h, q, 1, 1000, 0, &m, &cnt), MCDS_OK);
    T(cnt == 1);
    if (cnt == 1 && tu_debugtime(servers, 2)) {
        mcds_queue_msg_t *m2 = NULL;
        size_t c2 = 0;
        TS(mcds_queue_pop(h, q, 1, 0, 0, &m2, &c2), MCDS_OK);
        T(c2 == 1 && m2 && m2[0].id == id1 && m2[0].deliveries == 3);
        TS(mcds_queue_ack_msg(h, q, &m[0]), MCDS_NOT_FOUND);
        TS(mcds_queue_touch_msg(h, q, &m[0], 0), MCDS_NOT_FOUND);
        TS(mcds_queue_release_msg(h, q, &m[0], 0), MCDS_NOT_FOUND);
        if (c2 == 1)
            TS(mcds_queue_ack_msg(h, q, &m2[0]), MCDS_OK);
        mcds_queue_msgs_free(m2);
    }
    mcds_queue_msgs_free(m);
    TS(mcds_queue_ack_msg(h, q, NULL), MCDS_INVALID);
    TS(mcds_queue_release_msg(h, q, NULL, 0), MCDS_INVALID);
    TS(mcds_queue_touch_msg(h, q, NULL, 0), MCDS_INVALID);
    /* batches */
    uint64_t ids[3];
    mcds_status_t res[3];
    const void *data[3] = {"a", "b", "c"};
    size_t lens[3] = {1, 1, 1};
    const char *q2 = tu_name("q");
    TS(mcds_queue_push_many(h, q2, data, lens, 0, 0, 0, 0, ids), MCDS_INVALID);
    TS(mcds_queue_push_many(h, q2, data, lens, 3, 0, 0, 0, ids), MCDS_OK);
    TS(mcds_queue_pop(h, q2, 3, 0, 0, &m, &cnt), MCDS_OK);
    T(cnt == 3);
    mcds_queue_msgs_free(m);
    uint64_t two[3] = {ids[0], ids[0], ids[1]};
    TS(mcds_queue_ack_many(h, q2, two, 3, res), MCDS_OK);
    T(res[0] == MCDS_OK && res[1] == MCDS_NOT_FOUND && res[2] == MCDS_OK);
    TS(mcds_queue_ack_many(h, q2, two, 0, res), MCDS_INVALID);
    uint64_t many[MCDS_QUEUE_BATCH_MAX + 1];
    mcds_status_t mres[MCDS_QUEUE_BATCH_MAX + 1];
    for (int i = 0; i <= MCDS_QUEUE_BATCH_MAX; i++)
        many[i] = ids[2];
    TS(mcds_queue_ack_many(h, q2, many, MCDS_QUEUE_BATCH_MAX + 1, mres),
       MCDS_INVALID);
    TS(mcds_queue_touch_many(h, q2, many, MCDS_QUEUE_BATCH_MAX, 0, mres),
       MCDS_OK);
    T(mres[0] == MCDS_OK && mres[1] == MCDS_OK);
    TS(mcds_queue_release_many(h, q2, &ids[2], 1, 0, res), MCDS_OK);
    T(res[0] == MCDS_OK);
    uint64_t purged = 99;
    TS(mcds_queue_purge(h, q2, &purged), MCDS_OK);
    T(purged == 1);
    /* pop_ack and pop_any */
    const char *qa[2] = {"{bbq}a", "{bbq}b"};
    mcds_queue_delete(h, qa[0]);
    mcds_queue_delete(h, qa[1]);
    TS(mcds_queue_push(h, qa[1], "B", 1, 0, 0, 0, NULL), MCDS_OK);
    size_t which = 9;
    TS(mcds_queue_pop_any(h, qa, 0, 1, 0, 0, &m, &cnt, &which), MCDS_INVALID);
    const char *qs[MCDS_QUEUE_ANY_MAX + 1];
    for (int i = 0; i <= MCDS_QUEUE_ANY_MAX; i++)
        qs[i] = qa[0];
    TS(mcds_queue_pop_any(h, qs, MCDS_QUEUE_ANY_MAX + 1, 1, 0, 0, &m, &cnt,
                          &which),
       MCDS_INVALID);
    TS(mcds_queue_pop_any(h, qa, 2, 1, 0, 0, &m, &cnt, &which), MCDS_OK);
    T(cnt == 1 && which == 1);
    if (cnt == 1) {
        mcds_status_t acked = MCDS_FAILURE;
        mcds_queue_msg_t *m3 = NULL;
        size_t c3 = 9;
        TS(mcds_queue_pop_ack(h, qa[1], &m[0], &acked, 1, 0, 0, &m3, &c3),
           MCDS_OK);
        T(acked == MCDS_OK && c3 == 0);
        mcds_queue_msgs_free(m3);
    }
    mcds_queue_msgs_free(m);
    /* waiting pop: woken by a push from another process */
    const char *qw = tu_name("q");
    struct waker wk;
    waker_start(&wk, 0, qw);
    int64_t t0 = tu_now_ms();
    TS(mcds_queue_pop(h, qw, 1, 0, 3000, &m, &cnt), MCDS_OK);
    T(cnt == 1 && tu_now_ms() - t0 < 2500);
    mcds_queue_msgs_free(m);
    pthread_join(wk.th, NULL);
    TS(wk.st, MCDS_OK);
    t0 = tu_now_ms();
    TS(mcds_queue_pop(h, qw, 1, 0, 500, &m, &cnt), MCDS_OK);
    T(cnt == 0 && tu_now_ms() - t0 >= 450);
    mcds_queue_msgs_free(m);
    /* info, peek, list */
    mcds_queue_msg_info_t info;
    uint64_t idd;
    TS(mcds_queue_push(h, qw, "later", 5, 3, 100, 5, &idd), MCDS_OK);
    TS(mcds_queue_info(h, qw, idd, &info), MCDS_OK);
    T(info.id == idd && info.state == MCDS_QUEUE_DELAYED && info.bytes == 5 &&
      info.priority == 5 && info.flags == 3 && info.delay_ms_left > 90000 &&
      strcmp(info.holder, "-") == 0);
    TS(mcds_queue_info(h, qw, idd + 100000, &info), MCDS_NOT_FOUND);
    TS(mcds_queue_peek_id(h, qw, idd, &m), MCDS_OK);
    T(m && m[0].len == 5 && memcmp(m[0].data, "later", 5) == 0);
    mcds_queue_msgs_free(m);
    TS(mcds_queue_peek_delayed(h, qw, 10, &m, &cnt), MCDS_OK);
    T(cnt == 1);
    mcds_queue_msgs_free(m);
    TS(mcds_queue_peek_delayed(h, qw, 0, &m, &cnt), MCDS_INVALID);
    mcds_queue_entry_t *qe = NULL;
    char next[MCDS_QUEUE_NAME_MAX + 1];
    TS(mcds_queue_list(h, qw, NULL, 0, &qe, &cnt, next), MCDS_INVALID);
    TS(mcds_queue_list(h, qw, NULL, MCDS_QUEUE_LIST_MAX + 1, &qe, &cnt, next),
       MCDS_INVALID);
    TS(mcds_queue_list(h, qw, NULL, MCDS_QUEUE_LIST_MAX, &qe, &cnt, next),
       MCDS_OK);
    int seen = 0;
    for (size_t i = 0; i < cnt; i++)
        if (strcmp(qe[i].name, qw) == 0)
            seen = qe[i].delayed == 1;
    T(seen);
    mcds_queue_entries_free(qe);
    /* dead letters, redrive, kick */
    const char *qd = tu_name("{dq}");
    mcds_queue_opts_t od = {.max_deliveries = 1, .lease_ms = 1000};
    TS(mcds_queue_create(h, qd, &od), MCDS_OK);
    TS(mcds_queue_push(h, qd, "d", 1, 0, 0, 0, &idd), MCDS_OK);
    TS(mcds_queue_pop(h, qd, 1, 0, 0, &m, &cnt), MCDS_OK);
    mcds_queue_msgs_free(m);
    if (tu_debugtime(servers, 2)) {
        char dlq[300];
        snprintf(dlq, sizeof dlq, "%s:dead", qd);
        TS(mcds_queue_stats(h, dlq, &s), MCDS_OK);
        T(s.ready == 1);
        uint64_t moved = 9, left = 9;
        TS(mcds_queue_redrive(h, dlq, MCDS_QUEUE_MOVE_MAX + 1, &moved, &left),
           MCDS_INVALID);
        TS(mcds_queue_redrive(h, dlq, 0, &moved, &left), MCDS_OK);
        T(moved == 1 && left == 0);
        TS(mcds_queue_info(h, qd, idd, &info), MCDS_OK);
        T(info.state == MCDS_QUEUE_READY && info.deliveries == 0);
        uint64_t kicked = 9;
        TS(mcds_queue_kick(h, qd, 0, &kicked), MCDS_OK);
        T(kicked == 0);
        TS(mcds_queue_redrive(h, "no-such-dlq-bbc", 0, &moved, &left),
           MCDS_NOT_FOUND);
    }
    /* wrong type: a cache value under the queue's key */
    const char *qk = tu_name("qk");
    mcds_list_push(h, qk, MCDS_LIST_TAIL, &(mcds_item_t){"v", 1}, 1, NULL);
    TS(mcds_queue_push(h, qk, "x", 1, 0, 0, 0, NULL), MCDS_WRONG_TYPE);
    TS(mcds_queue_delete(h, qk), MCDS_OK);
    TS(mcds_queue_delete(h, qk), MCDS_NOT_FOUND);
    /* too large */
    size_t big = 2 * 1024 * 1024;
    char *bb = calloc(1, big);
    TS(mcds_queue_push(h, qw, bb, big, 0, 0, 0, NULL), MCDS_TOO_LARGE);
    free(bb);
    TS(mcds_queue_delete(h, qw), MCDS_OK);
    TS(mcds_queue_delete(h, q), MCDS_OK);
    mcds_close(h);
}

/* ---- lists ---- */
static void t_list(void)
{
    mcds_t *h = tu_open(servers);
    const char *l = tu_name("l");
    mcds_item_t *it = NULL;
    size_t cnt = 9;
    uint64_t len = 0, rem = 0;
    int found = 7;
    TS(mcds_list_len(h, l, &len), MCDS_NOT_FOUND);
    TS(mcds_list_pop(h, l, MCDS_LIST_HEAD, 1, 0, &it, &cnt), MCDS_OK);
    T(cnt == 0);
    mcds_items_free(it);
    TS(mcds_list_contains(h, l, "a", 1, &found), MCDS_NOT_FOUND);
    TS(mcds_list_index(h, l, 0, &it), MCDS_NOT_FOUND);
    TS(mcds_list_delete(h, l), MCDS_NOT_FOUND);
    TS(mcds_list_create(h, l, 3), MCDS_OK);
    TS(mcds_list_create(h, l, 10), MCDS_EXISTS);
    mcds_item_t v[3] = {{"a", 1}, {"b", 1}, {"c", 1}};
    TS(mcds_list_push(h, l, MCDS_LIST_TAIL, v, 0, &len), MCDS_INVALID);
    mcds_item_t vm[MCDS_LIST_PUSH_MAX + 1];
    for (int i = 0; i <= MCDS_LIST_PUSH_MAX; i++)
        vm[i] = (mcds_item_t){"z", 1};
    TS(mcds_list_push(h, l, MCDS_LIST_TAIL, vm, MCDS_LIST_PUSH_MAX + 1, &len),
       MCDS_INVALID);
    TS(mcds_list_push(h, l, MCDS_LIST_TAIL, v, 2, &len), MCDS_OK);
    T(len == 2);
    TS(mcds_list_push(h, l, MCDS_LIST_HEAD, v, 2, &len), MCDS_FULL);
    TS(mcds_list_len(h, l, &len), MCDS_OK);
    T(len == 2);
    TS(mcds_list_push(h, l, MCDS_LIST_HEAD, &v[2], 1, &len), MCDS_OK);
    T(len == 3);
    /* c a b */
    TS(mcds_list_range(h, l, 0, 10, &it, &cnt), MCDS_OK);
    T(cnt == 3 && it[0].data[0] == 'c' && it[2].data[0] == 'b');
    mcds_items_free(it);
    TS(mcds_list_range(h, l, -100, 2, &it, &cnt), MCDS_OK);
    T(cnt == 2 && it[0].data[0] == 'c');
    mcds_items_free(it);
    TS(mcds_list_range(h, l, 5, 2, &it, &cnt), MCDS_OK);
    T(cnt == 0);
    mcds_items_free(it);
    TS(mcds_list_range(h, l, 0, MCDS_LIST_READ_MAX + 1, &it, &cnt),
       MCDS_INVALID);
    TS(mcds_list_range(h, l, 0, 0, &it, &cnt), MCDS_OK);
    T(cnt == 0);
    mcds_items_free(it);
    TS(mcds_list_index(h, l, -1, &it), MCDS_OK);
    T(it && it[0].data[0] == 'b');
    mcds_items_free(it);
    TS(mcds_list_index(h, l, 3, &it), MCDS_NOT_FOUND);
    TS(mcds_list_index(h, l, -4, &it), MCDS_NOT_FOUND);
    TS(mcds_list_set(h, l, 3, "q", 1), MCDS_NOT_FOUND);
    TS(mcds_list_set(h, l, -1, "B", 1), MCDS_OK);
    TS(mcds_list_insert(h, l, 0, "a", 1, "x", 1, &len), MCDS_FULL);
    TS(mcds_list_contains(h, l, "B", 1, &found), MCDS_OK);
    T(found == 1);
    TS(mcds_list_contains(h, l, "b", 1, &found), MCDS_OK);
    T(found == 0);
    TS(mcds_list_trim(h, l, 1, 10, &rem), MCDS_OK); /* a B */
    T(rem == 1);
    TS(mcds_list_insert(h, l, 0, "nope", 4, "x", 1, &len), MCDS_NOT_FOUND);
    TS(mcds_list_insert(h, l, 1, "a", 1, "x", 1, &len), MCDS_OK); /* a x B */
    T(len == 3);
    TS(mcds_list_range(h, l, 0, 10, &it, &cnt), MCDS_OK);
    T(cnt == 3 && it[1].data[0] == 'x' && it[2].data[0] == 'B');
    mcds_items_free(it);
    TS(mcds_list_remove(h, l, 0, "x", 1, &rem), MCDS_OK);
    T(rem == 1);
    TS(mcds_list_remove(h, l, -1, "zz", 2, &rem), MCDS_OK);
    T(rem == 0);
    TS(mcds_list_pop(h, l, MCDS_LIST_TAIL, 5, 0, &it, &cnt), MCDS_OK);
    T(cnt == 2 && it[0].data[0] == 'B' && it[1].data[0] == 'a');
    mcds_items_free(it);
    TS(mcds_list_pop(h, l, MCDS_LIST_TAIL, 0, 0, &it, &cnt), MCDS_INVALID);
    TS(mcds_list_pop(h, l, MCDS_LIST_TAIL, MCDS_LIST_READ_MAX + 1, 0, &it,
                     &cnt),
       MCDS_INVALID);
    TS(mcds_list_len(h, l, &len), MCDS_OK);
    T(len == 0);
    /* binary values */
    mcds_item_t bv = {"a\0b\r\n", 5};
    TS(mcds_list_push(h, l, MCDS_LIST_TAIL, &bv, 1, NULL), MCDS_OK);
    TS(mcds_list_index(h, l, 0, &it), MCDS_OK);
    T(it && it[0].len == 5 && memcmp(it[0].data, "a\0b\r\n", 5) == 0);
    mcds_items_free(it);
    /* waiting pop woken by a push */
    struct waker wk;
    waker_start(&wk, 1, l);
    TS(mcds_list_pop(h, l, MCDS_LIST_HEAD, 5, 0, &it, &cnt), MCDS_OK);
    mcds_items_free(it);
    int64_t t0 = tu_now_ms();
    TS(mcds_list_pop(h, l, MCDS_LIST_HEAD, 5, 3000, &it, &cnt), MCDS_OK);
    T(cnt == 1 && tu_now_ms() - t0 < 2500);
    mcds_items_free(it);
    pthread_join(wk.th, NULL);
    TS(wk.st, MCDS_OK);
    /* wrong type */
    const char *qk = tu_name("lq");
    TS(mcds_queue_push(h, qk, "x", 1, 0, 0, 0, NULL), MCDS_OK);
    TS(mcds_list_push(h, qk, MCDS_LIST_TAIL, v, 1, NULL), MCDS_WRONG_TYPE);
    TS(mcds_list_len(h, qk, &len), MCDS_WRONG_TYPE);
    mcds_queue_delete(h, qk);
    char *ln = longname(251, 'L');
    TS(mcds_list_push(h, ln, MCDS_LIST_TAIL, v, 1, NULL), MCDS_KEY_TOO_LONG);
    free(ln);
    TS(mcds_list_push(h, "bad key", MCDS_LIST_TAIL, v, 1, NULL), MCDS_INVALID);
    TS(mcds_list_push(h, "", MCDS_LIST_TAIL, v, 1, NULL), MCDS_INVALID);
    TS(mcds_list_delete(h, l), MCDS_OK);
    TS(mcds_list_len(h, l, &len), MCDS_NOT_FOUND);
    mcds_close(h);
}

/* ---- tree counters ---- */
static void t_ctree(void)
{
    mcds_t *h = tu_open(servers);
    uint32_t cid = 100 + (uint32_t)(getpid() % 100000);
    mcds_ctree_type_t types[2] = {{304, 0, 0}, {107, 0, 0}};
    TS(mcds_ctree_define(h, cid, types, 2, 1, 1), MCDS_OK);
    TS(mcds_ctree_define(h, cid, types, 2, 1, 1), MCDS_EXISTS);
    TS(mcds_ctree_define(h, cid + 1, NULL, 0, 1, 1), MCDS_INVALID);
    const char *root = tu_name("ctroot");
    char child[300];
    snprintf(child, sizeof child, "%s:c", root);
    mcds_ctree_limit_t lim = {cid, 107, 10};
    TS(mcds_ctree_create(h, root, root, NULL, 0, NULL, 0), MCDS_OK);
    TS(mcds_ctree_create(h, root, root, NULL, 0, NULL, 0), MCDS_EXISTS);
    TS(mcds_ctree_create(h, root, child, "nosuchparent-bbc", 0, NULL, 0),
       MCDS_NOT_FOUND);
    TS(mcds_ctree_create(h, root, child, root, 0, &lim, 1), MCDS_OK);
    mcds_ctree_value_t *vals = NULL;
    size_t cnt = 0;
    mcds_ctree_refusal_t ref;
    TS(mcds_ctree_incr(h, root, child, cid, 304, "@1700000000", 4, &ref,
                       &vals, &cnt),
       MCDS_OK);
    T(cnt == 2);
    mcds_ctree_values_free(vals);
    TS(mcds_ctree_incr(h, root, child, cid, 304, "@1700000000", 7, &ref,
                       NULL, NULL),
       MCDS_LIMIT);
    T(strcmp(ref.key, child) == 0 && ref.code == 107);
    int64_t v = -1, f = -1;
    TS(mcds_ctree_get(h, root, root, cid, 107, "1", &v, &f), MCDS_OK);
    T(v == 4 && f == 0);
    TS(mcds_ctree_get(h, root, child, cid, 304, "@1700000000", &v, &f),
       MCDS_OK);
    T(v == 4);
    mcds_ctree_info_t info;
    mcds_ctree_limit_t *lims = NULL;
    size_t nl = 0;
    TS(mcds_ctree_info(h, root, child, &info, &lims, &nl), MCDS_OK);
    T(strcmp(info.parent, root) == 0 && nl == 1 && lims &&
      lims[0].max == 10);
    free(lims);
    mcds_ctree_limit_t raise = {cid, 107, 5};
    TS(mcds_ctree_limits(h, root, child, 1, &raise, 1, -1), MCDS_OK);
    TS(mcds_ctree_incr(h, root, child, cid, 304, "@1700000000", 7, &ref,
                       NULL, NULL),
       MCDS_OK);
    mcds_item_t *ch = NULL;
    int more = 9;
    TS(mcds_ctree_children(h, root, root, NULL, 10, &ch, &cnt, &more), MCDS_OK);
    T(cnt == 1 && more == 0);
    mcds_items_free(ch);
    TS(mcds_ctree_children(h, root, root, NULL, 0, &ch, &cnt, &more),
       MCDS_INVALID);
    TS(mcds_ctree_children(h, root, root, NULL, 10001, &ch, &cnt, &more),
       MCDS_INVALID);
    char cursor[MCDS_CTREE_CURSOR_MAX];
    TS(mcds_ctree_values(h, root, root, NULL, &vals, &cnt, cursor), MCDS_OK);
    T(cnt == 2 && cursor[0] == 0);
    mcds_ctree_values_free(vals);
    TS(mcds_ctree_undefine(h, cid), MCDS_SERVER_ERROR);
    TS(mcds_ctree_delete(h, root, child), MCDS_OK);
    TS(mcds_ctree_delete(h, root, child), MCDS_NOT_FOUND);
    TS(mcds_ctree_get(h, root, root, cid, 107, "1", &v, &f), MCDS_OK);
    T(v == 0);
    TS(mcds_ctree_delete(h, root, root), MCDS_OK);
    TS(mcds_ctree_undefine(h, cid), MCDS_OK);
    TS(mcds_ctree_undefine(h, cid), MCDS_NOT_FOUND);
    mcds_close(h);
}

/* ---- stock memcached: extended verbs are MCDS_UNSUPPORTED ---- */
static void t_unsupported(void)
{
    mcds_t *h = tu_open(servers);
    mcds_queue_msg_t *m;
    mcds_item_t *it;
    size_t cnt;
    uint64_t len;
    mcds_queue_stats_t s;
    mcds_ctree_type_t types[1] = {{107, 0, 0}};
    TS(mcds_queue_push(h, "q", "x", 1, 0, 0, 0, NULL), MCDS_UNSUPPORTED);
    TS(mcds_queue_pop(h, "q", 1, 0, 0, &m, &cnt), MCDS_UNSUPPORTED);
    TS(mcds_queue_stats(h, "q", &s), MCDS_UNSUPPORTED);
    TS(mcds_queue_create(h, "q", NULL), MCDS_UNSUPPORTED);
    TS(mcds_list_push(h, "l", MCDS_LIST_TAIL, &(mcds_item_t){"v", 1}, 1, &len),
       MCDS_UNSUPPORTED);
    TS(mcds_list_len(h, "l", &len), MCDS_UNSUPPORTED);
    TS(mcds_list_range(h, "l", 0, 5, &it, &cnt), MCDS_UNSUPPORTED);
    TS(mcds_ctree_define(h, 5, types, 1, 1, 1), MCDS_UNSUPPORTED);
    TS(mcds_ctree_create(h, "r", "r", NULL, 0, NULL, 0), MCDS_UNSUPPORTED);
    /* and the connection still works afterwards for classic structures */
    int64_t v;
    const char *n = tu_name("ctr");
    TS(mcds_counter_incr(h, n, 3, &v), MCDS_OK);
    T(v == 3);
    TS(mcds_table_add(h, n, "m", 1), MCDS_OK);
    TS(mcds_table_has(h, n, "m", 1), MCDS_OK);
    mcds_close(h);
}

/* ---- nothing listens ---- */
static void t_down(void)
{
    mcds_t *h = tu_open(servers);
    int64_t v, t0 = tu_now_ms();
    TS(mcds_counter_incr(h, "c", 1, &v), MCDS_SERVER_DOWN);
    const char *d = mcds_last_detail(h);
    printf("# detail: %s\n", d);
    T(strstr(d, "127.0.0.1:") == d && strstr(d, ": ") != NULL);
    TS(mcds_queue_push(h, "q", "x", 1, 0, 0, 0, NULL), MCDS_SERVER_DOWN);
    mcds_queue_msg_t *m = NULL;
    size_t cnt = 9;
    TS(mcds_queue_pop(h, "q", 1, 0, 500, &m, &cnt), MCDS_SERVER_DOWN);
    uint64_t len;
    TS(mcds_list_len(h, "l", &len), MCDS_SERVER_DOWN);
    mcds_ctree_type_t types[1] = {{107, 0, 0}};
    TS(mcds_ctree_define(h, 5, types, 1, 1, 1), MCDS_SERVER_DOWN);
    int64_t cv, cf;
    TS(mcds_ctree_get(h, "g", "g", 5, 107, "1", &cv, &cf), MCDS_SERVER_DOWN);
    mcds_lock_t *l;
    TS(mcds_lock_new(h, "lk", 5, &l), MCDS_OK);
    TS(mcds_lock_acquire(l, 500), MCDS_SERVER_DOWN);
    mcds_lock_free(l);
    /* an argument error leaves the detail as it was */
    char before[512];
    snprintf(before, sizeof before, "%s", mcds_last_detail(h));
    TS(mcds_queue_push(h, "bad key", "x", 1, 0, 0, 0, NULL), MCDS_INVALID);
    T(strcmp(before, mcds_last_detail(h)) == 0);
    T(tu_now_ms() - t0 < 8000);
    mcds_close(h);
}

/* ---- a pool of a live server and a dead one: each key's calls go to one
 * server, so a key is either always usable or always MCDS_SERVER_DOWN ---- */
static void t_pool(void)
{
    mcds_t *h = tu_open(servers);
    int ok = 0, down = 0, other = 0, unstable = 0;
    for (int i = 0; i < 40; i++) {
        char n[64];
        int64_t v;
        snprintf(n, sizeof n, "bbcpool-%d-%d", (int)getpid(), i);
        mcds_status_t a = mcds_counter_incr(h, n, 1, &v);
        mcds_status_t q = mcds_queue_push(h, n, "x", 1, 0, 0, 0, NULL);
        mcds_status_t b = mcds_counter_incr(h, n, 1, &v);
        mcds_status_t q2 = mcds_queue_stats(h, n, &(mcds_queue_stats_t){0});
        if (a == MCDS_OK)
            ok++;
        else if (a == MCDS_SERVER_DOWN)
            down++;
        else
            other++;
        if (a != b || (a == MCDS_OK && v != 2))
            unstable++;
        if (q != q2 || (q != MCDS_OK && q != MCDS_SERVER_DOWN))
            other++;
    }
    printf("# pool: %d keys ok, %d down\n", ok, down);
    T(ok > 0 && down > 0 && other == 0 && unstable == 0);
    mcds_close(h);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 2 ? argv[2] : "mcds";
    char *av[2] = {argv[0], argv[1]};
    servers = tu_init(2, av, 60);
    if (strcmp(mode, "down") == 0) {
        down_mode = 1;
        t_status();
        t_open();
        t_down();
    } else if (strcmp(mode, "pool") == 0) {
        t_pool();
    } else if (strcmp(mode, "memcached") == 0) {
        t_unsupported();
    } else {
        t_status();
        t_open();
        t_lock();
        t_counter();
        t_seq();
        t_log();
        t_array();
        t_oparray();
        t_table();
        t_queue();
        t_list();
        t_ctree();
    }
    printf("# %d ok, %d not ok\n", nok, nfail);
    return nfail > 100 ? 100 : nfail;
}
