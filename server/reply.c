/*
 * reply: the fixed reply lines, byte for byte as memcached 1.6 sends them.
 */
#include "reply.h"

#define REPLY(s) { s, sizeof(s) - 1 }

const struct reply_line reply_lines[REPLY_COUNT] = {
    [REPLY_STORED] = REPLY("STORED\r\n"),
    [REPLY_NOT_STORED] = REPLY("NOT_STORED\r\n"),
    [REPLY_EXISTS] = REPLY("EXISTS\r\n"),
    [REPLY_NOT_FOUND] = REPLY("NOT_FOUND\r\n"),
    [REPLY_DELETED] = REPLY("DELETED\r\n"),
    [REPLY_TOUCHED] = REPLY("TOUCHED\r\n"),
    [REPLY_END] = REPLY("END\r\n"),
    [REPLY_OK] = REPLY("OK\r\n"),
    [REPLY_RESET] = REPLY("RESET\r\n"),
    [REPLY_ERROR] = REPLY("ERROR\r\n"),
    [REPLY_BAD_FORMAT] = REPLY("CLIENT_ERROR bad command line format\r\n"),
    [REPLY_BAD_CHUNK] = REPLY("CLIENT_ERROR bad data chunk\r\n"),
    [REPLY_NON_NUMERIC] = REPLY("CLIENT_ERROR cannot increment or decrement non-numeric value\r\n"),
    [REPLY_BAD_DELTA] = REPLY("CLIENT_ERROR invalid numeric delta argument\r\n"),
    [REPLY_BAD_EXPTIME] = REPLY("CLIENT_ERROR invalid exptime argument\r\n"),
    [REPLY_DELETE_USAGE] = REPLY("CLIENT_ERROR bad command line format.  Usage: delete <key> [noreply]\r\n"),
    [REPLY_TOO_LARGE] = REPLY("SERVER_ERROR object too large for cache\r\n"),
    [REPLY_OOM_STORE] = REPLY("SERVER_ERROR out of memory storing object\r\n"),
    [REPLY_OOM] = REPLY("SERVER_ERROR out of memory\r\n"),
    [REPLY_TOO_MANY_CONNS] = REPLY("ERROR Too many open connections\r\n"),
    [REPLY_SHUTDOWN_DISABLED] = REPLY("ERROR: shutdown not enabled\r\n"),
    [REPLY_BAD_SHUTDOWN_MODE] = REPLY("CLIENT_ERROR invalid shutdown mode\r\n"),
    [REPLY_FLUSH_DISABLED] = REPLY("CLIENT_ERROR flush_all not allowed\r\n"),
    [REPLY_MEMLIMIT_TOO_SMALL] = REPLY("MEMLIMIT_TOO_SMALL cannot set maxbytes to less than 8m\r\n"),
    [REPLY_META_NOOP] = REPLY("MN\r\n"),
    [REPLY_META_MISS] = REPLY("EN\r\n"),
    [REPLY_META_INVALID_FLAG] = REPLY("CLIENT_ERROR invalid flag\r\n"),
    [REPLY_META_DUP_FLAG] = REPLY("CLIENT_ERROR duplicate flag\r\n"),
    [REPLY_META_BAD_FLAG] = REPLY("CLIENT_ERROR invalid or duplicate flag\r\n"),
    [REPLY_META_BAD_TOKEN] = REPLY("CLIENT_ERROR bad token in command line format\r\n"),
    [REPLY_META_OPAQUE_LONG] = REPLY("CLIENT_ERROR opaque token too long\r\n"),
    [REPLY_META_BAD_KEY] = REPLY("CLIENT_ERROR error decoding key\r\n"),
    [REPLY_META_MS_MODE] = REPLY("CLIENT_ERROR invalid mode for ms M token\r\n"),
    [REPLY_META_MA_MODE] = REPLY("CLIENT_ERROR invalid mode for ma M token\r\n"),
    [REPLY_META_MG_TOO_LONG] = REPLY("CLIENT_ERROR options flags are too long\r\n"),
    [REPLY_META_TOO_LONG] = REPLY("CLIENT_ERROR options flags too long\r\n"),
    [REPLY_WRONG_TYPE] = REPLY("CLIENT_ERROR key holds another type of value\r\n"),
    [REPLY_CREATED] = REPLY("CREATED\r\n"),
    [REPLY_ACKED] = REPLY("ACKED\r\n"),
    [REPLY_RELEASED] = REPLY("RELEASED\r\n"),
};
