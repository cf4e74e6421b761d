/*
 * types/queue_pack: a queue's ready messages in their simplest form — no
 * delay, the default priority, never delivered — packed in push order
 * into chunks of a few KB: per message a few varints (id, seq and push
 * time as deltas from the message before, flags, length) and its bytes,
 * no per-message allocation. A chunk holds 4 KB, or room for a whole
 * number of messages of the size that opens it when they are larger: 16,
 * or as many as fit in 64 KB, and no more than the pack already holds
 * (a short queue keeps short chunks); at least one. A FIFO: messages are added at the tail and
 * taken from the head; ids and seqs increase along it, so a look-up by id
 * skips whole chunks. The queue (queue.c) decides what goes in and builds
 * a full message (struct qmsg) from the head when it delivers one.
 * Chunks count toward -m by their allocated size. Not locked: the
 * queue's lock covers it.
 */
#ifndef MCDS_QUEUE_PACK_H
#define MCDS_QUEUE_PACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define QPACK_CHUNK 4096            /* bytes of a chunk, header included */
#define QPACK_CHUNK_MAX 65536       /* the most a chunk takes for larger messages */
#define QPACK_PER_CHUNK 16          /* messages a chunk is sized for, up to that */

struct qpack_chunk;

/* One packed message, as read (data points into its chunk). */
struct qpack_entry {
    uint64_t id, seq, pushed_ms;
    uint32_t flags, len;
    const uint8_t *data;
};

struct qpack {
    struct qpack_chunk *head, *tail;
    size_t n;                       /* messages */
    size_t bytes;                   /* their packed bytes */
    uint64_t last_id, last_seq, last_ms;    /* the newest message's, for deltas */
};

/* Where the tail is: qpack_rollback drops everything added after it. */
struct qpack_mark {
    struct qpack_chunk *tail;
    uint32_t used, count;
    uint64_t tail_last_id;
    size_t n, bytes;
    uint64_t last_id, last_seq, last_ms;
};

void qpack_init(struct qpack *p);
/* Frees every chunk (the messages go with them). */
void qpack_clear(struct qpack *p);
/* Adds e at the tail (id and seq above the tail's): 0, or -1 without
 * memory (nothing changed). */
int qpack_push(struct qpack *p, const struct qpack_entry *e);
void qpack_mark(const struct qpack *p, struct qpack_mark *m);
void qpack_rollback(struct qpack *p, const struct qpack_mark *m);
/* The head message: false when there is none. */
bool qpack_head(const struct qpack *p, struct qpack_entry *e);
/* Drops the head message. */
void qpack_pop(struct qpack *p);
/* The message id: false when it is not there. */
bool qpack_find(const struct qpack *p, uint64_t id, struct qpack_entry *e);

/* Reads the messages in order, without changing anything. */
struct qpack_iter {
    const struct qpack_chunk *c;
    uint32_t off;
    uint64_t id, seq, ms;
};
void qpack_iter_start(const struct qpack *p, struct qpack_iter *it);
bool qpack_iter_next(struct qpack_iter *it, struct qpack_entry *e);

/* A copy of p's chunks in out (initialized): 0, or -1 without memory. */
int qpack_copy(const struct qpack *p, struct qpack *out);

#endif
