/*
 * proto_get: the text protocol's retrieval verbs (get gets gat gats),
 * including multi-gets that outlive one event: a reply that fills the
 * connection's output pauses and resumes as the client reads, and a line
 * longer than the read buffer is answered as it arrives.
 */
#ifndef MCDS_PROTO_GET_H
#define MCDS_PROTO_GET_H

#include <stdbool.h>
#include <stddef.h>

#include "proto/cmd.h"

/* get/gets and gat/gats (arg 1: with CAS), entries of the command table
 * (the keys are walked in place, not tokenized). */
enum conn_parse_result get_cmd_get(conn *c, struct cmd_line *l);
/* A line "get <key>" or "gets <key>" (with_cas), its key's hash known
 * (ahead.c): answered at once when the key is no Kestrel read and holds a
 * cache value or nothing, as get_cmd_get would answer it. False, with
 * nothing done, when the line needs get_cmd_get's whole walk (a queue, a
 * structure, a '/' in the key, output full). */
bool get_quick(conn *c, const char *key, size_t nkey, uint32_t hv, bool with_cas);
enum conn_parse_result get_cmd_gat(conn *c, struct cmd_line *l);

/* A get line longer than the read buffer: line[0..avail) is its start
 * (no "\n" yet), beginning with "get " or "gets ". Answers the keys it
 * holds and keeps reading the line. */
enum conn_parse_result get_stream_start(conn *c, char *line, size_t avail);
/* Whether the connection is inside such a line (the parser hands it its
 * input until the line ends). */
bool get_streaming(const conn *c);
enum conn_parse_result get_stream_more(conn *c);

/* A closing connection's multi-get in progress goes (net/conn.h). */
extern const struct conn_hooks get_conn_hooks;

/* What a `get` of a key that holds or names a queue does: Kestrel's
 * dialect (verbs/kestrel.h), given at start-up. Without it, such a key
 * reads as a miss. */
enum get_queue_result {
    GETQ_NOT_QUEUE,         /* the key is not a queue read: a plain miss */
    GETQ_DONE,              /* answered (a VALUE queued, or nothing) */
    GETQ_WAIT,              /* a /t= read waits; the wait writes END */
};
struct get_queue_reads {
    /* Before a line runs: REPLY_COUNT, or the error to answer instead. */
    enum reply_id (*check)(conn *c, const char *key, size_t nkey, bool single);
    enum get_queue_result (*get)(conn *c, const char *key, size_t nkey, item *q, bool single,
                                 bool with_cas);
};
void get_set_queue_reads(const struct get_queue_reads *r);

/* This file's entries of the command table, ended by one with no name. */
extern const struct cmd_def get_cmds[];

#endif
