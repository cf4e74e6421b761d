/*
 * fuzz_server: the server as the fuzz targets drive it, in one thread and
 * with no listener: the server's own conn.c on the harness's event loop
 * (fuzz_worker.c stands in for server/net/worker.c), each client a socketpair
 * whose server end is a connection and whose other end the harness writes
 * into and reads replies from.
 *
 * One input is one run: fuzz_server_start() builds a fresh small keyspace,
 * the target drives clients, fuzz_server_stop() hangs every client up,
 * checks the invariants (any broken one aborts, so libFuzzer reports it)
 * and frees everything.
 */
#ifndef MCDS_FUZZ_SERVER_H
#define MCDS_FUZZ_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct event_base;

/* What a run may change from the harness's defaults. */
struct fuzz_limits {
    size_t output_max;      /* --conn-output-max */
    size_t buffer_limit;    /* --conn-buffer-limit */
    int reqs_per_event;     /* -R */
};

/* One client: the harness's end of a socketpair. */
struct fuzz_client {
    int fd;                 /* -1: not connected (or hung up) */
    char *replies;          /* every byte the server sent it */
    size_t nreplies, cap;
    size_t read_chunk;      /* 0: read everything; else at most this per pass */
};

void fuzz_server_start(const struct fuzz_limits *l);
void fuzz_server_stop(void);
struct event_base *fuzz_base(void);

/* Connects c (its socket buffers as small as sockbuf allows, 0: the
 * system's default); false if no socketpair could be had. */
bool fuzz_client_open(struct fuzz_client *c, int sockbuf);
/* Writes data to the server, running the server while the socket is
 * full; stops early if the server takes no more. */
void fuzz_client_write(struct fuzz_client *c, const uint8_t *data, size_t n);
/* Closes the harness's end (the server sees EOF); replies kept. */
void fuzz_client_hangup(struct fuzz_client *c);
void fuzz_client_free(struct fuzz_client *c);

/* Runs the server until nothing more happens; reads every open client. */
void fuzz_run(struct fuzz_client **clients, int n);

/* Aborts with a message: a broken invariant. */
void fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* The fuzz targets: one input each. */
int fuzz_text(const uint8_t *data, size_t size);
int fuzz_bin(const uint8_t *data, size_t size);
int fuzz_stream(const uint8_t *data, size_t size);
int fuzz_multi(const uint8_t *data, size_t size);

/* Posted calls (park wakes, stats conns) of the stand-in worker:
 * runs them, returns how many ran. */
int fuzz_worker_run_calls(void);
/* Its connections, and the end of a run: no connection may be left;
 * frees its cache of read buffers. */
int fuzz_worker_nconns(void);
void fuzz_worker_add(int fd);
void fuzz_worker_finish(void);

#endif
