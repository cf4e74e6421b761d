/*
 * conn: one client connection: its read buffer, its queue of output, and
 * the state machine that reads, hands complete commands to a protocol
 * parser, and writes replies back in as few system calls as possible.
 */
#ifndef MCDS_CONN_H
#define MCDS_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/item.h"
#include "base/reply.h"
#include "store/store.h"
#include "types/queue_dedup.h"
#include "types/queue_group.h"

struct worker;
struct event;
struct conn;
struct meta_req;
struct park;
struct text_get;
struct tls_conn;

/* The read buffer's fixed size: the longest request line plus room, and
 * far more than a binary header, extras and key. */
#define CONN_RBUF_SIZE 16384
#define CONN_COPY_MAX 512       /* values up to this are copied into the
                                   output buffer, not sent from their item */
#define CONN_AHEAD_SLOTS 6      /* lines and multi-get keys noted ahead (ahead.c) */

enum conn_state {
    CONN_PARSE,     /* commands are parsed from the read buffer */
    CONN_NREAD,     /* a value is being read into c->nread.it */
    CONN_SWALLOW,   /* the data block of a refused command is skipped */
    CONN_WAITING,   /* a blocking command waits; input is buffered, not parsed */
    CONN_CLOSING,   /* close as soon as the output queue is written */
};

/* What a parser returns from its parse step. */
enum conn_parse_result {
    PARSE_DONE,     /* one command handled; call again */
    PARSE_MORE,     /* the buffer holds no complete command */
    PARSE_CLOSE,    /* close the connection (after queued output) */
};

struct conn_proto {
    const char *name;
    enum conn_parse_result (*parse)(struct conn *c);
    void (*nread_done)(struct conn *c);
    bool reply_lines;       /* an error can be told as a reply line (text, meta) */
    /* The error of a change that its replicas did not confirm in time
     * (net/conn_sync.c), told as that command's own (c->noreply,
     * c->bin_opcode and c->bin_opaque are the change's while it runs):
     * it takes the place of the change's reply in the output. */
    void (*unconfirmed)(struct conn *c);
};

/* The protocol a new connection speaks, from its first byte: what its
 * listener gives it (listener_set_protocol). */
typedef const struct conn_proto *(*conn_proto_choose_fn)(char first);

/* What a feature above the connection needs from its life, given at
 * start-up (the connection knows no feature). Either may be NULL. */
struct conn_hooks {
    const char *name;
    /* It closes: after its socket, before its memory goes. */
    void (*closed)(struct conn *c);
    /* Its unread input moved or went back to the worker: pointers into
     * the read buffer are void. */
    void (*input_moved)(struct conn *c);
};
void conn_add_hooks(const struct conn_hooks *h);

/* A piece of output: bytes in the write buffer (at offset), or in an item
 * (whose reference the segment owns). */
struct conn_seg {
    item *it;
    const char *ptr;        /* item bytes, or a side chunk's (conn_out_replace); NULL: in wbuf */
    size_t off;             /* offset in wbuf, when ptr == NULL */
    size_t len;             /* may be 0 (a reply replaced by nothing) */
};

/* Bytes of replies put in the middle of the output (conn_out_replace),
 * kept outside wbuf until the output is written. */
struct conn_side {
    struct conn_side *next;
    char bytes[];
};

/* A storage command waiting for its data block. */
struct conn_nread {
    item *it;
    size_t done;            /* bytes of it's value read so far */
    size_t want;            /* bytes to read: it->nbytes, or fewer when the
                               protocol sends no "\r\n" (binary) */
    enum store_op op;
    uint64_t cas;
    uint32_t hv;            /* hash_key() of it's key (text stores: from ahead.c) */
    bool noreply;
    /* Text protocol: what finishes the command once the block is read
     * (the verb's handler sets it). */
    void (*finish)(struct conn *c);
    uint64_t push_due_ms;   /* qpush: when the message becomes ready */
    uint64_t push_ttl_ms;   /* qpush: its time to live (0: none) */
    uint32_t push_pri;      /* qpush: its priority */
    uint8_t push_ndedup;    /* qpush: its deduplication id's length (0: none) */
    char push_dedup[QDEDUP_ID_MAX];
    uint8_t push_ngroup;    /* qpush: its FIFO group's length (0: none) */
    char push_group[QGROUP_ID_MAX];
    uint32_t opaque;        /* binary protocol */
    uint8_t opcode;         /* binary protocol */
};

/* Marks a point in the output queue so a failed command can take back
 * what it queued (a multi-get with a bad key answers only the error). */
struct conn_mark {
    int nsegs;
    size_t wlen, out_bytes;
};

/* A change whose reply waits for replicas (net/conn_sync.c): where the
 * log ended after it, the output segments of its reply, and what its
 * "not confirmed" error needs to be told as the command's own. */
struct conn_sync_change {
    uint64_t pos;
    int seg_first, seg_end;
    uint32_t bin_opaque;
    uint8_t bin_opcode;
    bool noreply;
};

typedef struct conn {
    int fd;
    struct tls_conn *tls;   /* its TLS session (tls.c), NULL for a plain one */
    struct worker *worker;
    struct event *ev;
    short ev_flags;
    enum conn_state state;
    const struct conn_proto *proto;
    conn_proto_choose_fn choose;    /* picks proto at the first byte */

    char *rbuf;             /* unparsed input is rbuf[rpos, rlen); NULL while
                               there is none (lent by the worker) */
    size_t rpos, rlen;

    char *wbuf;             /* small output bytes, referenced by segs */
    size_t wsize, wlen;
    struct conn_seg *segs;
    int nsegs, segcap;
    int wseg;               /* first segment not fully written */
    size_t wseg_off;        /* bytes of it already written */
    size_t out_bytes;       /* queued output not yet written */
    int seg_fence;          /* output is not appended to segments below this */
    struct conn_side *side; /* what segments point to outside wbuf and the items */

    struct conn_nread nread;
    size_t swallow;         /* bytes still to skip */
    bool noreply;           /* the current command's replies are dropped */
    bool drained;           /* the last read came back short: the socket is
                               empty until the next read event */
    bool eof;               /* the client closed its side */
    bool broken;            /* a buffer could not grow: close, send nothing */
    bool authenticated;     /* with --auth-file: it has authenticated (auth.c) */
    bool admin;             /* ... as one of --admin-users */
    uint8_t auth_fails;     /* its failed attempts (auth_throttle.c) */
    bool out_sent;          /* some output was written (marks are then void) */
    /* A command that paused because its output was full runs this when
     * the socket has drained, one that paused to let the worker's other
     * connections run (conn_yield_turn) in the worker's next turn; nothing
     * else runs before it. */
    void (*resume)(struct conn *c);
    bool yield_turn;        /* conn_yield_turn was called */
    int reqs;               /* commands handled in this event */
    /* An immediate flush_all taking its items out a slice per turn
     * (store_flush_reap_step): the next bucket, and what a binary answer
     * echoes. */
    struct conn_flush {
        size_t cursor;
        uint64_t gen;       /* the flush (store_flush) */
        uint32_t opaque;
        uint8_t opcode;
        bool quiet;
    } flush;
    struct meta_req *meta;  /* proto_meta's request, kept for an ms */
    struct park *park;      /* the blocking read this connection waits in */
    item *open_pin;         /* Kestrel: the queue of its open read (kestrel.c) */
    uint64_t open_id;       /* Kestrel: the open message */
    struct text_get *tget;  /* proto_text's multi-get in progress */
    /* ahead.c: lines looked at before their turn: three ([0]), two ([1])
     * and one ([2]) after the current one ([3]); [4] and [5], a
     * multi-get's next key and the one after it. line NULL: none; key
     * NULL: its key was not hashed. */
    struct conn_ahead {
        const char *line;   /* where its line starts ... */
        size_t span;        /* ... and how far the next line is */
        const char *end;    /* where it ends ("\r" or "\n") */
        const char *key;
        uint32_t hv;
        uint8_t nkey;
        bool plain_set;     /* "set <key> <flags> <exptime> <bytes>", no more */
        bool fetched;       /* its bucket's first item was prefetched */
        uint32_t num[3];    /* a set's three numbers */
    } ahead[CONN_AHEAD_SLOTS];
    struct dump *dump;      /* a key dump in progress (dump.c) */
    rel_time_t last_cmd;    /* when its last command arrived (-o idle_timeout) */
    uint64_t name_token;    /* names it as the holder of queue leases (conn_names.c) */

    /* Persistence: the log position its replies wait for (0: none); a held
     * connection sends and reads nothing until that is durable. */
    uint64_t persist_need;
    uint64_t held_since_us;     /* when it began waiting (monotonic) */
    bool held;
    struct conn *held_prev, *held_next;   /* the worker's held list */

    /* Synchronous acknowledgement (net/conn_sync.c): */
    uint64_t last_change;       /* log end of its last change (`wait`), 0: none */
    struct conn_mark sync_mark; /* the output before the current command */
    bool sync_logged;           /* the current command logged a change */
    bool sync_exempt;           /* the current command's records are the server's own */
    struct conn_sync_change *sync_changes;  /* its changes whose replies wait for replicas ... */
    int sync_nchanges;          /* ... this many (at most CONN_SYNC_BATCH) */
    int wait_n;                 /* `wait`: replicas asked for (0: no wait) */
    uint64_t wait_until_us;     /* ... until then (monotonic) */
    uint8_t bin_opcode;         /* binary protocol: the last request's opcode ... */
    uint32_t bin_opaque;        /* ... and opaque */

    struct conn *prev, *next;   /* the worker's list */
} conn;


/* tls: the socket came from a TLS listener. */
conn *conn_new(int fd, struct worker *w, bool tls, conn_proto_choose_fn choose);
void conn_close(conn *c);
/* Server shutdown: sends what the socket takes of the queued replies
 * without waiting, then closes. */
void conn_shutdown(conn *c);
void conn_set_state(conn *c, enum conn_state s);

/* Output functions never fail: when a buffer cannot grow the connection
 * is marked broken and closed with nothing more sent. A reserve is at most
 * 64 KB. */
void conn_out(conn *c, const char *s, size_t n);
void conn_out_reply(conn *c, enum reply_id r);
/* Room for n bytes at the end of the write buffer; commit what was used. */
char *conn_out_reserve(conn *c, size_t n);
void conn_out_commit(conn *c, size_t used);
/* Queues len bytes of it; the queue takes over one reference to it (a
 * small value is copied and the reference dropped at once). */
void conn_out_item(conn *c, item *it, const char *ptr, size_t len);
/* More output queued than a connection may hold: a command with a long
 * answer stops here and sets c->resume. */
bool conn_out_full(const conn *c);
/* Another thread wrote the first n bytes of the queued output to the
 * socket (a blocking read's answer, park.h): they are dropped unsent. */
void conn_out_skip(conn *c, size_t n);
/* A mark is valid until output is written (c->out_sent set after it). */
void conn_mark_out(conn *c, struct conn_mark *m);
void conn_rollback(conn *c, const struct conn_mark *m);
/* Output queued from now on starts a segment of its own. */
void conn_out_fence(conn *c);
/* The output queued since m becomes whole segments of its own (one at
 * least, empty if nothing was queued), and output queued after it
 * starts another: the index of its first segment (it ends at c->nsegs),
 * -1 if the connection broke. Segment indexes stay valid until output is
 * written or taken back. */
int conn_out_isolate(conn *c, const struct conn_mark *m);
/* A reply replaced in the middle of the output: segments [first, end)
 * (from conn_out_isolate) now hold what was queued since m instead (a
 * few bytes in wbuf, queued after a conn_out_fence), which leaves the
 * end of the queue. The number of segments and wbuf's bytes do not
 * change, so marks taken before stay valid. */
void conn_out_replace(conn *c, int first, int end, const struct conn_mark *m);

/* Starts reading a value of it->nbytes bytes into it (taking over the
 * caller's reference); nread_done runs when it is complete. */
void conn_start_nread(conn *c, item *it, enum store_op op, uint64_t cas, bool noreply);
void conn_start_swallow(conn *c, size_t n);
/* The running command set c->resume to go on later: the worker serves its
 * other ready connections first. */
void conn_yield_turn(conn *c);
/* A waiting connection got its answer: back to parsing, on its thread. */
void conn_resume(conn *c);
/* Output was queued from outside a command (watch): writes it, on c's thread. */
void conn_kick(conn *c);
/* Its records are durable now: its replies go out, it reads again. */
void conn_unhold(conn *c);
/* Its replies waited --log-stall-timeout for a log that cannot be
 * written: they are dropped, a text client gets one SERVER_ERROR line,
 * and the connection is closed (its changes stay, logged later). */
void conn_fail_stalled(conn *c);

/* Consumes n bytes of parsed input. */
static inline void conn_consume(conn *c, size_t n) { c->rpos += n; }

#endif
