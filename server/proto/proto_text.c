/*
 * proto_text: the text protocol's framing, byte for byte as memcached 1.6.
 *
 * A request is one line ("\r\n" or bare "\n"), for storage verbs followed
 * by a data block. This file finds the line in the read buffer and hands
 * it to the command table (cmd.c), which runs the verb's handler; a data
 * block, once read, goes to the handler that asked for it (c->nread.finish).
 * A NUL ends a command line, as in memcached; lines are at most 2048 bytes,
 * those of verbs taking lists at most the read buffer, multi-gets
 * excepted (proto_get.c answers them as they arrive). With
 * --auth-file, lines go to auth.c until the connection has authenticated.
 */
#include <string.h>

#include "proto/ahead.h"
#include "proto/auth.h"
#include "proto/cmd.h"
#include "base/log.h"
#include "proto/proto_bin.h"
#include "proto/proto_get.h"
#include "proto/proto_text.h"
#include "base/settings.h"

#define TEXT_LINE_MAX 2048      /* longest line, "\r\n" not counted (see text_long_verbs) */

static void text_nread_done(conn *c) {
    c->nread.finish(c);
}

/* Verbs whose lines may be longer than TEXT_LINE_MAX, up to the read
 * buffer: lists of keys, receipts, lengths, queues, limits, counters or
 * periods. The first two, the multi-gets, may be longer still: they are
 * answered as they arrive. */
static const char *const text_long_verbs[] = {
    "get", "gets", "gat", "gats", "bget", "qack", "qrelease", "qtouch", "lpush", "rpush", "lpushx", "rpushx",
    "qpopany", "ctobj", "ctlimits", "ctraise", "ctvalues", "ctperiods", "ctincrn", "lmpop",
    "tcreate", "tinsert", "tput", "tupdate", "tdel", "tget", "tselect", "tscan", NULL
};

/* The index in text_long_verbs of the line's verb, or -1. */
static int text_long_verb(const char *p, size_t n) {
    size_t i = 0, end;
    int v;

    while (i < n && p[i] == ' ')
        i++;
    if (i > 100)
        return -1;
    for (end = i; end < n && p[end] != ' '; end++)
        ;
    if (end == n)
        return -1;      /* no key after the verb */
    for (v = 0; text_long_verbs[v] != NULL; v++)
        if (strlen(text_long_verbs[v]) == end - i && memcmp(p + i, text_long_verbs[v], end - i) == 0)
            return v;
    return -1;
}

/* No "\n" yet. The answer must not depend on how the network cut the
 * line into reads: a line holding more than TEXT_LINE_MAX bytes (a last
 * "\r" may be its end) closes the connection, as it does with its
 * newline, unless its verb may have long lines: those wait for their
 * newline while the read buffer has room (a line that fits is read whole);
 * past that a multi-get is answered as it arrives, any other closes. */
static enum conn_parse_result text_partial(conn *c, char *line, size_t avail) {
    size_t len = avail > 0 && line[avail - 1] == '\r' ? avail - 1 : avail;
    int verb;

    if (len <= TEXT_LINE_MAX)
        return PARSE_MORE;
    verb = text_long_verb(line, avail);
    if (verb < 0)
        return PARSE_CLOSE;
    if (avail < CONN_RBUF_SIZE)
        return PARSE_MORE;
    return verb <= 1 ? get_stream_start(c, line, avail) : PARSE_CLOSE;
}

static enum conn_parse_result text_parse(conn *c) {
    char *line = c->rbuf + c->rpos;
    size_t avail = c->rlen - c->rpos, len;
    char *nl;

    if (get_streaming(c))
        return get_stream_more(c);
    nl = memchr(line, '\n', avail);
    if (!c->authenticated && auth_on()) {
        if (nl == NULL)
            return avail <= TEXT_LINE_MAX ? PARSE_MORE : PARSE_CLOSE;
        return auth_text(c, line, (size_t)(nl - line), avail);
    }
    if (nl == NULL)
        return text_partial(c, line, avail);
    len = (size_t)(nl - line);
    if (len > 0 && line[len - 1] == '\r')
        len--;
    if (len > TEXT_LINE_MAX && text_long_verb(line, len) < 0)
        return PARSE_CLOSE;
    ahead_lines(c, line, avail);
    conn_consume(c, (size_t)(nl - line) + 1);
    line[len] = '\0';
    len = strlen(line);     /* like memcached, a NUL ends the command line */
    if (log_level() >= 2)
        log_msg(2, "<%d %.*s", c->fd, (int)(len > 200 ? 200 : len), line);
    return cmd_dispatch(c, line, len);
}

/* A change its replicas did not confirm in time: the error, unless the
 * command said noreply (meta's q does not hide errors). */
static void text_unconfirmed(conn *c) {
    cmd_reply(c, REPLY_UNCONFIRMED);
}

const struct conn_proto proto_text = {
    .name = "ascii",
    .parse = text_parse,
    .nread_done = text_nread_done,
    .reply_lines = true,
    .unconfirmed = text_unconfirmed,
};

/* Like memcached: with -B auto, a first byte of 0x80 (the binary request
 * magic) makes the connection binary. */
const struct conn_proto *proto_choose(char first) {
    if (settings.protocol == PROTO_BINARY)
        return &proto_bin;
    if (settings.protocol == PROTO_AUTO && (unsigned char)first == BIN_REQ_MAGIC)
        return &proto_bin;
    return &proto_text;
}
