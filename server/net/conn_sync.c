/*
 * net/conn_sync: what a held connection waits for from the replicas, and
 * what it answers when they do not confirm in time.
 */
#include "base/clock.h"
#include "base/parse.h"
#include "base/settings.h"
#include "net/conn_sync.h"
#include "persist/persist.h"
#include "repl/sync.h"

void conn_sync_begin(conn *c) {
    if (!sync_on())
        return;
    conn_mark_out(c, &c->sync_mark);
    c->sync_logged = false;
}

bool conn_sync_stop(conn *c, uint64_t step_mark) {
    bool logged = persist_thread_end() != step_mark, exempt = c->sync_exempt;

    c->sync_exempt = false;
    if (logged && exempt)
        return false;       /* a promotion's own records: its reply does not wait */
    if (logged)
        c->last_change = persist_thread_end();
    if (c->wait_n > 0)
        return true;
    if (!sync_on())
        return false;
    if (logged)
        c->sync_logged = true;
    if (!c->sync_logged || c->state != CONN_PARSE || c->resume != NULL)
        return false;
    c->sync_logged = false;
    c->sync_change = true;
    sync_note_waiting(1);
    return true;
}

void conn_sync_exempt(conn *c) {
    c->sync_exempt = true;
}

bool conn_sync_pending(const conn *c) {
    return c->sync_change || c->wait_n > 0;
}

/* The answer of a `wait`: the number of replicas, a line. */
static void conn_sync_answer_wait(conn *c, int n) {
    char *p = conn_out_reserve(c, 24);
    size_t len = parse_format_u64(p, (uint64_t)n);

    p[len] = '\r';
    p[len + 1] = '\n';
    conn_out_commit(c, len + 2);
    c->wait_n = 0;
    sync_note_waiting(-1);
}

bool conn_sync_ready(conn *c) {
    if (c->wait_n > 0) {
        int n = sync_count(c->last_change);
        if (n < c->wait_n)
            return false;
        conn_sync_answer_wait(c, n);
        return true;
    }
    if (c->sync_change) {
        if (!sync_confirmed(c->last_change))
            return false;
        c->sync_change = false;
        sync_note_waiting(-1);
    }
    return true;
}

uint64_t conn_sync_deadline(const conn *c) {
    if (c->wait_n > 0)
        return c->wait_until_us;
    if (c->sync_change)
        return c->held_since_us + (uint64_t)settings.min_replicas_timeout * 1000;
    return 0;
}

/* The change's reply goes, replaced by the error. */
static void conn_sync_unconfirmed(conn *c) {
    conn_rollback(c, &c->sync_mark);
    if (c->proto != NULL && c->proto->unconfirmed != NULL)
        c->proto->unconfirmed(c);
    c->sync_change = false;
    sync_note_waiting(-1);
    sync_note_timeout();
}

bool conn_sync_expire(conn *c, uint64_t now) {
    if (c->wait_n > 0) {
        if (now < c->wait_until_us && !sync_stopping())
            return false;
        conn_sync_answer_wait(c, sync_count(c->last_change));
        return true;
    }
    if (!c->sync_change || (now < conn_sync_deadline(c) && !sync_hopeless()))
        return false;
    conn_sync_unconfirmed(c);
    return true;
}

void conn_sync_forget(conn *c) {
    if (c->wait_n > 0 || c->sync_change)
        sync_note_waiting(-1);
    c->wait_n = 0;
    c->sync_change = false;
}

void conn_sync_wait(conn *c, int n, uint64_t timeout_ms) {
    sync_note_waiting(1);       /* before the count: an acknowledgement after it wakes the worker */
    c->wait_n = n;
    c->wait_until_us = clock_mono_us() + timeout_ms * 1000;
    if (n <= 0 || timeout_ms == 0)
        conn_sync_answer_wait(c, sync_count(c->last_change));
    else
        conn_sync_ready(c);     /* answered now if enough have it */
}
