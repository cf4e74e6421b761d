/*
 * park: a connection parked in a blocking read (qpop wait=, get <q>/t=,
 * and any later structure's blocking pop). The connection stops parsing,
 * its waiter is queued on the structure, and whichever comes first ends
 * the wait: the structure serves it (on any thread: the answer is posted
 * to the connection's own worker), the wait times out, the client hangs
 * up, or the connection closes. A struct park outlives whichever of
 * "connection" and "posted wake" ends last (two references).
 *
 * Each structure embeds a struct park in its own waiter and supplies the
 * ops that know its waiter: take it off the structure, write what it got,
 * give back what it got when nobody can receive it, free it.
 *
 * Served from another thread, the answer would wait for the waiter's
 * worker to wake up. So once that worker has written everything the
 * connection had queued (park_idle), the serving thread may write the
 * answer to the socket itself, under the structure's lock (park_direct_fd,
 * park_send): the worker's close takes the waiter off the structure under
 * that lock before it closes the socket, so the socket is still this
 * connection's while the waiter is on the structure. The posted wake then
 * only ends the wait; the worker writes whatever part of the answer the
 * socket did not take.
 */
#ifndef MCDS_PARK_H
#define MCDS_PARK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "net/conn.h"
#include "net/worker.h"

struct event;
struct park;

struct park_ops {
    /* Takes the waiter off its structure: false when it was served already
     * (its wake is then on its way). */
    bool (*unwait)(struct park *p);
    /* Writes what the wait got (maybe nothing) to its connection. */
    void (*answer)(conn *c, struct park *p);
    /* The connection went before the answer could be written: what the
     * wait got goes back, its delivery not counted. */
    void (*give_back)(struct park *p);
    /* Frees the waiter (the last reference went). */
    void (*release)(struct park *p);
    /* The answer is owed even to a client that has shut its side down
     * (a report such as stats conns, whose wait is short and bounded): a
     * hang-up does not end the wait, the answer is written, then the
     * connection closes. Otherwise (a blocking pop) a hang-up ends the
     * wait at once with its empty answer. */
    bool owed;
};

struct park {
    const struct park_ops *ops;
    struct worker_call call;
    conn *c;                    /* NULL once the connection is gone */
    struct worker *worker;
    struct event *timer;
    int refs;                   /* the connection, the posted wake */
    int fd;                     /* the socket, -1 with TLS */
    int idle;                   /* atomic: nothing queued to write (park_idle) */
    size_t sent;                /* answer bytes the serving thread wrote */
};

/* Prepares p for c: false (p unusable, nothing to undo) without memory. */
bool park_init(struct park *p, conn *c, const struct park_ops *ops);
/* The waiter could not be queued (its structure is gone): answers END,
 * releases p. */
void park_refused(struct park *p);
/* The waiter is queued: c waits up to wait_ms for park_wake. */
void park_start(struct park *p, uint64_t wait_ms);
/* Called by the structure once the waiter is served (any thread, the
 * structure's lock may be held): posts the answer to c's worker. */
void park_wake(struct park *p);

/* c's worker: c waits with nothing left to write, so its answer may be
 * written by the thread that serves it. */
void park_idle(conn *c);
/* The serving thread, under the structure's lock, after the structure put
 * what p got in its waiter: the socket to write p's answer to, or -1 when
 * the worker must (p's own worker serves it, TLS, output not yet written
 * by the worker or not yet acknowledged by the client's kernel, or the
 * client has closed its side). */
int park_direct_fd(struct park *p);
#define PARK_DIRECT_MAX 4        /* messages or elements in one answer */
#define PARK_DIRECT_BYTES 4096   /* bytes in one answer */
/* The serving thread writes p's answer, iov[0..n) (total bytes, at most
 * PARK_DIRECT_BYTES, else nothing is written) to fd, in one sendmsg;
 * what the socket took is counted in park_wakes_direct and
 * bytes_written, and dropped from the worker's answer (park_skip_sent).
 * If the client refuses the bytes with a reset (it had closed before they
 * came), the worker sees it when it ends the wait (park_undelivered, or
 * when it closes the connection): the answer then counts as never written
 * and what the wait got goes back, as it would have. A client that read
 * the answer and then closed sends no reset: its messages stay leased, as
 * with an answer the worker wrote. (The check is left to the worker,
 * which ends the wait moments later, off the structure's lock.) */
void park_send(struct park *p, int fd, struct iovec *iov, int n, size_t total);
/* On c's worker, from the answer op: whether what the wait got never
 * reached the client, so that it goes back. Nothing was written and the
 * client is gone (park_peer_gone), or what the serving thread wrote was
 * refused with a reset (the client had closed before it came), which then
 * counts as never written. */
bool park_undelivered(conn *c, struct park *p);
/* On c's worker, from the answer op: drops the bytes of the answer just
 * queued that the serving thread wrote already. */
void park_skip_sent(conn *c, struct park *p);

/* Whether c's client closed its side (a read would see the end) or reset
 * the connection: what a wait got then goes back rather than into an
 * answer nobody reads. */
bool park_peer_gone(const conn *c);
/* The client hung up while parked: ends the wait now with its empty answer,
 * without resuming c. False when the answer is already on its way. */
bool park_abandon(conn *c);
/* Whether c waits for an answer owed even after a hang-up (ops->owed). */
bool park_owed(const conn *c);
/* The connection is closing: forget its wait. */
void park_conn_closed(conn *c);

#endif
