/*
 * xconn.h - the small text-protocol client behind the wrappers of
 * mcds-server's own verbs (queue.c, list.c): one connection per server,
 * calls that send one request and read its whole reply. Internal to
 * libmcds (xconn.c).
 */
#ifndef MCDS_XCONN_H
#define MCDS_XCONN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "mcds_int.h"

#define LINE_MAX_LEN 4096        /* a reply line longer than this is bogus */

struct mcds__xconn {
    char *name;       /* host name, or the socket path */
    unsigned port;    /* 0 for a UNIX socket */
    int fd;           /* -1 when closed */
    char *buf;        /* reply bytes [pos, len) not consumed yet */
    size_t cap, len, pos;
};

/* One call in progress. */
typedef struct xcall {
    mcds_t *h;
    mcds__xconn_t *c;
    int io_ms;        /* per step of I/O */
    int first_ms;     /* extra wait for the first reply byte (qpop wait=) */
    /* On a shard that names replicas (xroute.c), c stays NULL until the
     * first request is sent, which picks the member by its verb. */
    mcds__rset_t *rs;
    int primary_only; /* a read that must be the primary's (kvx.c) */
    int waiting;      /* a request sent, its first reply line not read */
    int on_replica;   /* c is a replica chosen for a read */
    int redirects;    /* redirects followed */
    int walking;      /* members tried after a failure (walk, round) */
    size_t at;        /* c is rs->m[at] */
    size_t walk, round, failed;
    size_t rpos, rtried;  /* the replicas a read tried */
    int first_saved;  /* first_ms, for a request sent again */
    int64_t deadline; /* when the call gives up retrying */
    mcds__buf_t req;  /* the request's bytes, to send again */
} xcall_t;

void mcds__x_set_detail(xcall_t *x, const char *what, const char *text,
                       size_t len);

void mcds__x_detail(xcall_t *x, const char *text);

void mcds__x_conn_close(mcds__xconn_t *c);

/* The next reply line: its offset in the buffer and length (without the
 * "\r\n"); consumed. */
mcds_status_t mcds__x_read_line(xcall_t *x, size_t *off, size_t *len);

/* Makes the n bytes at the read position available; not consumed. */
mcds_status_t mcds__x_need(xcall_t *x, size_t n);

/* Reads a data block of len bytes and its "\r\n": *off is where its
 * bytes start in the buffer; consumed. */
mcds_status_t mcds__x_data_block(xcall_t *x, size_t len, size_t *off);

/* Sends every byte of iov (which it modifies). */
mcds_status_t mcds__x_send_all(xcall_t *x, struct iovec *iov, int n);

mcds_status_t mcds__x_send_line(xcall_t *x, const char *line, size_t len);
/* Sends a command line, then one data block and its "\r\n". */
mcds_status_t mcds__x_send_block(xcall_t *x, const char *line, size_t len,
                                 const void *data, size_t dlen);

int mcds__x_line_is(const char *p, size_t len, const char *word);

int mcds__x_line_starts(const char *p, size_t len, const char *prefix);

/* A whole unsigned decimal of len bytes at p into *v: 0, or -1 (empty, a
 * sign, anything but digits, too large). */
int mcds__x_parse_u64(const char *p, size_t len, uint64_t *v);

/* The status of a reply line that is not the verb's success line. Lines a
 * verb never gets (NOT_STORED from qack, say) and garbage are protocol
 * errors; after those and after ERROR (the server does not know the verb,
 * and may read our data block as commands) the connection is closed. */
mcds_status_t mcds__x_reply_error(xcall_t *x, size_t off, size_t len,
                                 int not_found_ok, int not_stored_ok);

mcds_status_t mcds__x_check_name(const char *q, size_t *len);

/* Starts a call on queue q: checks the name, finds its server and makes
 * sure the connection is open (on a replica set: picks the member when
 * the request is sent). */
mcds_status_t mcds__x_begin(xcall_t *x, mcds_t *h, const char *q);
/* The same for a key of len bytes (no name check, no "{tag}"). */
mcds_status_t mcds__x_begin_key(xcall_t *x, mcds_t *h, const char *key,
                                size_t len);
/* Whether two calls begun are on the same server (or replica set). */
int mcds__x_same_server(const xcall_t *x, const xcall_t *y);

/* ---- the pieces xroute.c builds on ---- */

/* Makes c the call's connection, opened (and probed) if need be. */
mcds_status_t mcds__x_open(xcall_t *x, mcds__xconn_t *c);
/* Sending and reading without routing. */
mcds_status_t mcds__x_send_raw(xcall_t *x, struct iovec *iov, int n);
mcds_status_t mcds__x_read_line_raw(xcall_t *x, size_t *off, size_t *len);

/* ---- xroute.c ---- */

/* The replica set whose service address is server s, or NULL. */
mcds__rset_t *mcds__rset_of_server(mcds_t *h, const memcached_instance_st *s);

/* Sends a request of a call on a replica set: the first one picks the
 * member (and connects, trying the others when the connect fails). */
mcds_status_t mcds__xr_send(xcall_t *x, struct iovec *iov, int n);
/* Checks the first reply line of a request (at *off, *len): a refusal as
 * a replica sends the request again elsewhere, and the line returned is
 * the first of the reply that is kept. */
mcds_status_t mcds__xr_first_line(xcall_t *x, size_t *off, size_t *len);

/* Ends a call: remembers its failure for mcds_last_detail (or forgets the
 * previous one), and lets go of a large reply buffer. */
mcds_status_t mcds__x_end(xcall_t *x, mcds_status_t st);

/* Sends line and reads a one-line reply: MCDS_OK when it is ok_word
 * (exactly, or followed by a space when *arg is wanted: the number after
 * it goes to *arg), else the mapped error. */
mcds_status_t mcds__x_simple(xcall_t *x, const char *line, size_t llen,
                            const char *ok_word, uint64_t *arg,
                            int not_found_ok);

/* A parsed ITEM header: where its data sits in the reply buffer. */
typedef struct msg_at {
    uint64_t id;
    uint32_t flags, deliveries;
    size_t len, off;
} msg_at_t;

/* "ITEM <id> <flags> <bytes> <deliveries>" into m: 0, or -1 (queue.c). */
int mcds__queue_parse_item(const char *p, size_t len, msg_at_t *m);
/* A push's options as they end its line (" dedup=<id> group=<id> ttl=<s>") into
 * out (room for MCDS__PUSH_OPTS_MAX bytes and a NUL): their length, or -1
 * when one is not valid (a grouped push with a delay among them). opts
 * may be NULL (""). */
#define MCDS__PUSH_OPTS_MAX (16 + MCDS_QUEUE_DEDUP_MAX + MCDS_QUEUE_GROUP_MAX + 20)
int mcds__queue_push_opts(char *out, const mcds_push_opts_t *opts, uint32_t delay_s);

/* Copies parsed messages out of the reply buffer into one block, each
 * data NUL-terminated, that mcds_queue_msgs_free frees (queue.c). */
mcds_status_t mcds__queue_pack_msgs(const xcall_t *x, const msg_at_t *at, size_t n,
                               mcds_queue_msg_t **out);

/* Reads "ITEM <id> <flags> <bytes> <deliveries>" + data blocks up to END
 * (at most max, and MCDS_QUEUE_POP_MAX) into *msgs, one block to free
 * with mcds_queue_msgs_free (NULL and *count 0 for none); queue.c. */
mcds_status_t mcds__x_read_items(xcall_t *x, size_t max, mcds_queue_msg_t **msgs,
                                 size_t *count);

/* "<secs>.<ms>" for a duration in ms. */
void mcds__x_fmt_secs(char *out, size_t size, unsigned ms);

#endif
