/*
 * repl/stream: what both ends of a replication link share
 * (doc/replication.md, "The protocol"): reading the log files of a data
 * directory from a position on, in whole records; and a link's bytes,
 * plain or TLS (repl/link_tls.h), read as lines and blocks, written whole.
 */
#ifndef MCDS_REPL_STREAM_H
#define MCDS_REPL_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define STREAM_CHUNK (256 * 1024)       /* log bytes per LOG frame, at most (unless one record is more) */

/* The log of a data directory, read from a position on. */
struct stream_log {
    const char *dir;
    int fd;                 /* the file holding pos */
    uint64_t file_lsn;      /* its first position */
    uint64_t pos;           /* the next byte to read */
    uint8_t *buf;
    size_t cap;
};

/* From pos on: 0, or -1 when no log file holds pos any more. */
int stream_log_open(struct stream_log *l, const char *dir, uint64_t pos);
void stream_log_close(struct stream_log *l);
/* The whole records from l->pos up to limit (at most STREAM_CHUNK bytes,
 * or one record): their bytes (in l->buf, 0 when none is whole yet), and
 * *records their number; l->pos moves past them. -1 when the next file
 * is gone or the bytes are not records. Their framing is checked, not
 * their checksums: the replica checks those. */
ssize_t stream_log_read(struct stream_log *l, uint64_t limit, uint64_t *records);
/* Whether a whole valid record (its checksum too) starts at pos (dir's log). */
bool stream_log_record_at(const char *dir, uint64_t pos);

/* One end of a link: a socket, and its TLS session when the link has one. */
struct stream_sock {
    int fd;
    struct link_tls *tls;       /* NULL: plain TCP */
};

/* Whether bytes wait in s's TLS session, which no poll of the socket sees. */
bool stream_sock_pending(const struct stream_sock *s);

/* A link's input, buffered. */
struct stream_in {
    struct stream_sock sock;
    uint8_t *buf;
    size_t cap, start, end;     /* buf[start, end) unread */
};

void stream_in_init(struct stream_in *in, const struct stream_sock *s);
void stream_in_free(struct stream_in *in);
/* Reads what the link has (waiting up to timeout_ms): bytes read, 0 at
 * its end, -1 on an error, -2 when nothing came in time. */
ssize_t stream_in_fill(struct stream_in *in, int timeout_ms);
/* A whole line in the buffer (without "\r\n", NUL-terminated; consumed),
 * or NULL. A line longer than 1 KB sets *bad. */
char *stream_in_line(struct stream_in *in, bool *bad);
/* n bytes in the buffer (consumed), or NULL while fewer are there (the
 * buffer grows to hold them). */
const uint8_t *stream_in_block(struct stream_in *in, size_t n);

/* Writes all n bytes, waiting up to timeout_ms for the link to take
 * each part: 0, or -1. */
int stream_write(const struct stream_sock *s, const void *p, size_t n, int timeout_ms);
/* printf-like, one line. */
int stream_printf(const struct stream_sock *s, int timeout_ms, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

uint64_t stream_now_ms(void);

#endif
