/*
 * net/conn_sync: what a held connection waits for from the replicas, and
 * what it answers when they do not confirm in time.
 */
#include <stdlib.h>

#include "base/clock.h"
#include "base/log.h"
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

/* The command that just ended changed something: its reply (the output
 * since sync_mark) waits with the others. False if the connection broke. */
static bool conn_sync_add(conn *c) {
    struct conn_sync_change *ch;
    int first;

    if (c->sync_changes == NULL &&
        (c->sync_changes = malloc(sizeof(struct conn_sync_change) * CONN_SYNC_BATCH)) == NULL) {
        log_msg(1, "<%d no memory for its changes that wait for replicas, closing", c->fd);
        return false;
    }
    if ((first = conn_out_isolate(c, &c->sync_mark)) < 0)
        return false;
    if (c->sync_nchanges == 0)
        sync_note_waiting(1);
    ch = &c->sync_changes[c->sync_nchanges++];
    ch->pos = c->last_change;
    ch->seg_first = first;
    ch->seg_end = c->nsegs;
    ch->bin_opaque = c->bin_opaque;
    ch->bin_opcode = c->bin_opcode;
    ch->noreply = c->noreply;
    return true;
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
    if (!conn_sync_add(c)) {
        c->broken = true;   /* conn_drive closes it, nothing more sent */
        return true;
    }
    return c->sync_nchanges == CONN_SYNC_BATCH;
}

void conn_sync_exempt(conn *c) {
    c->sync_exempt = true;
}

bool conn_sync_pending(const conn *c) {
    return c->sync_nchanges > 0 || c->wait_n > 0;
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

static void conn_sync_done(conn *c) {
    c->sync_nchanges = 0;
    sync_note_waiting(-1);
}

bool conn_sync_ready(conn *c) {
    if (c->sync_nchanges > 0) {
        if (!sync_confirmed(c->sync_changes[c->sync_nchanges - 1].pos))
            return false;
        conn_sync_done(c);
    }
    if (c->wait_n > 0) {
        int n = sync_count(c->last_change);
        if (n < c->wait_n)
            return false;
        conn_sync_answer_wait(c, n);
    }
    return true;
}

static uint64_t conn_sync_changes_deadline(const conn *c) {
    return c->held_since_us + (uint64_t)settings.min_replicas_timeout * 1000;
}

uint64_t conn_sync_deadline(const conn *c) {
    uint64_t d = c->sync_nchanges > 0 ? conn_sync_changes_deadline(c) : 0;

    if (c->wait_n > 0 && (d == 0 || c->wait_until_us < d))
        d = c->wait_until_us;
    return d;
}

/* A change's reply is replaced by the error, told as its command's own
 * (its noreply, its binary opcode and opaque). */
static void conn_sync_unconfirmed(conn *c, const struct conn_sync_change *ch) {
    bool noreply = c->noreply;
    uint32_t opaque = c->bin_opaque;
    uint8_t opcode = c->bin_opcode;
    struct conn_mark m;

    c->noreply = ch->noreply;
    c->bin_opaque = ch->bin_opaque;
    c->bin_opcode = ch->bin_opcode;
    conn_out_fence(c);
    conn_mark_out(c, &m);
    if (c->proto != NULL && c->proto->unconfirmed != NULL)
        c->proto->unconfirmed(c);
    conn_out_replace(c, ch->seg_first, ch->seg_end, &m);
    c->noreply = noreply;
    c->bin_opaque = opaque;
    c->bin_opcode = opcode;
    sync_note_timeout();
}

/* From the last change back: those the replicas have not confirmed say
 * so; once one is confirmed, every change before it is too. */
static void conn_sync_give_up(conn *c) {
    int i;

    for (i = c->sync_nchanges - 1; i >= 0; i--) {
        if (sync_confirmed(c->sync_changes[i].pos))
            break;
        conn_sync_unconfirmed(c, &c->sync_changes[i]);
    }
    conn_sync_done(c);
}

bool conn_sync_expire(conn *c, uint64_t now) {
    bool ended = false;

    if (c->sync_nchanges > 0 && (now >= conn_sync_changes_deadline(c) || sync_hopeless())) {
        conn_sync_give_up(c);
        ended = true;
    }
    if (c->wait_n > 0 && (now >= c->wait_until_us || sync_stopping())) {
        conn_sync_answer_wait(c, sync_count(c->last_change));
        ended = true;
    }
    return ended;
}

void conn_sync_forget(conn *c) {
    if (c->wait_n > 0)
        sync_note_waiting(-1);
    if (c->sync_nchanges > 0)
        sync_note_waiting(-1);
    c->wait_n = 0;
    c->sync_nchanges = 0;
    free(c->sync_changes);
    c->sync_changes = NULL;
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
