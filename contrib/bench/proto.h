/*
 * What conn.c shares with the protocol modules resp.c (Redis) and
 * beanstalk.c (beanstalkd): building a request into the connection's output
 * and framing its reply.  Each module has an encoder, called once per
 * request, and a reply-line handler, called for each line of the reply to
 * the oldest request in flight (conn->pend[conn->pend_head]); a handler ends
 * that request with conn_finish(), or announces a data block with
 * conn_expect_value() (conn.c skips it, keeps its first bytes, and ends the
 * request after it when asked to).  A handler returns -1 when the stream can
 * no longer be trusted; the connection is then dropped.
 */
#ifndef MCDS_BENCH_PROTO_H
#define MCDS_BENCH_PROTO_H

#include "conn.h"

#define CONN_KEY_MAX (BENCH_MAX_PREFIX + 21)   /* PREFIX<n> */

/* ---- output ---- */
void   conn_out_bytes(struct conn *c, const char *p, size_t n);
void   conn_out_ref(struct conn *c, const char *p, size_t n);
/* A pushed message (stamp set) or the value of an acked one (its tag):
 * BENCH_TAG_LEN bytes of tag, then the rest of the shared value buffer. */
void   conn_out_message(struct conn *c, const char *tag);
size_t conn_fmt_u64(char *dst, uint64_t v);
size_t conn_fmt_key(const struct conn *c, char *dst, uint64_t k);

/* ---- replies ---- */
void conn_finish(struct conn *c, int error, uint64_t now);
void conn_expect_value(struct conn *c, uint64_t size, int ends_request, int hit);
int  conn_line_is(const char *line, size_t len, const char *word);
int  conn_token_u64(const char *line, size_t len, int nth, uint64_t *out);

/* ---- the protocols ---- */
void resp_encode(struct conn *c, const struct bench_op *op);
int  resp_reply_line(struct conn *c, const char *line, size_t len, uint64_t now);
void bs_encode(struct conn *c, const struct bench_op *op);
int  bs_reply_line(struct conn *c, const char *line, size_t len, uint64_t now);

#endif
