/*
 * reply: the one table of fixed protocol reply lines. Every fixed line the
 * server sends is here, with its "\r\n", so the wording of each reply is
 * decided in one place.
 */
#ifndef MCDS_REPLY_H
#define MCDS_REPLY_H

#include <stddef.h>

enum reply_id {
    REPLY_STORED,
    REPLY_NOT_STORED,
    REPLY_EXISTS,
    REPLY_NOT_FOUND,
    REPLY_DELETED,
    REPLY_TOUCHED,
    REPLY_END,
    REPLY_OK,
    REPLY_RESET,
    REPLY_ERROR,
    REPLY_BAD_FORMAT,
    REPLY_BAD_CHUNK,
    REPLY_NON_NUMERIC,
    REPLY_BAD_DELTA,
    REPLY_BAD_EXPTIME,
    REPLY_DELETE_USAGE,
    REPLY_TOO_LARGE,
    REPLY_OOM_STORE,
    REPLY_OOM,
    REPLY_OOM_READING,
    REPLY_TOO_MANY_CONNS,
    REPLY_SHUTDOWN_DISABLED,
    REPLY_BAD_SHUTDOWN_MODE,
    REPLY_FLUSH_DISABLED,
    REPLY_MEMLIMIT_TOO_SMALL,
    REPLY_META_NOOP,
    REPLY_META_MISS,
    REPLY_META_INVALID_FLAG,
    REPLY_META_DUP_FLAG,
    REPLY_META_BAD_FLAG,
    REPLY_META_BAD_TOKEN,
    REPLY_META_OPAQUE_LONG,
    REPLY_META_BAD_KEY,
    REPLY_META_MS_MODE,
    REPLY_META_MA_MODE,
    REPLY_META_MG_TOO_LONG,
    REPLY_META_TOO_LONG,
    REPLY_WRONG_TYPE,
    REPLY_CREATED,
    REPLY_ACKED,
    REPLY_RELEASED,
    REPLY_DLQ_WRONG_TYPE,
    REPLY_DLQ_SELF,
    REPLY_DLQ_NEEDED,
    REPLY_KESTREL_PEEK_MIX,
    REPLY_KESTREL_ALONE,
    REPLY_KESTREL_OPEN_TWICE,
    REPLY_KESTREL_READ_OPEN,
    REPLY_COUNT
};

struct reply_line {
    const char *text;
    size_t len;
};

extern const struct reply_line reply_lines[REPLY_COUNT];

#endif
