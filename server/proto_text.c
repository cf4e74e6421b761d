/*
 * proto_text: the text protocol's framing, byte for byte as memcached 1.6.
 *
 * A request is one line ("\r\n" or bare "\n"), for storage verbs followed
 * by a data block. This file finds the line in the read buffer and hands
 * it to the command table (cmd.c), which runs the verb's handler; a data
 * block, once read, goes to the handler that asked for it (c->nread.finish).
 * A NUL ends a command line, as in memcached; lines are at most 2048 bytes,
 * multi-gets excepted (proto_get.c answers them as they arrive). With
 * --auth-file, lines go to auth.c until the connection has authenticated.
 */
#include <string.h>

#include "auth.h"
#include "cmd.h"
#include "log.h"
#include "proto_bin.h"
#include "proto_get.h"
#include "proto_text.h"
#include "settings.h"

#define TEXT_LINE_MAX 2048      /* longest line without "\n" (except get) */

static void text_nread_done(conn *c) {
    c->nread.finish(c);
}

/* No "\n" yet: only a multi-get may be longer than TEXT_LINE_MAX. */
static bool text_may_grow(const char *p, size_t avail) {
    size_t i = 0;

    while (i < avail && p[i] == ' ')
        i++;
    if (i > 100)
        return false;
    return (avail - i > 4 && memcmp(p + i, "get ", 4) == 0) ||
           (avail - i > 5 && memcmp(p + i, "gets ", 5) == 0);
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
    if (nl == NULL) {
        if (avail <= TEXT_LINE_MAX)
            return PARSE_MORE;
        /* Only a multi-get may be longer: it is answered as it arrives. */
        return text_may_grow(line, avail) ? get_stream_start(c, line, avail) : PARSE_CLOSE;
    }
    conn_consume(c, (size_t)(nl - line) + 1);
    len = (size_t)(nl - line);
    if (len > 0 && line[len - 1] == '\r')
        len--;
    line[len] = '\0';
    len = strlen(line);     /* like memcached, a NUL ends the command line */
    if (log_level() >= 2)
        log_msg(2, "<%d %.*s", c->fd, (int)(len > 200 ? 200 : len), line);
    return cmd_dispatch(c, line, len);
}

const struct conn_proto proto_text = {
    .name = "ascii",
    .parse = text_parse,
    .nread_done = text_nread_done,
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
