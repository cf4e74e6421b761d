/*
 * cmd: the text protocol's one command table, and the small helpers every
 * verb's handler shares (tokens, noreply, numbers and name=value options).
 *
 * Every text-protocol verb, classic, meta and extended alike, has one
 * entry in the command table: its name, its handler, how many tokens it
 * takes, and whether it may carry a data block or end in `noreply`. Each
 * family's file (verbs/verb_classic.c, verbs/verb_admin.c,
 * proto/proto_get.c, proto/proto_meta.c, verbs/verb_queue.c …) holds its
 * entries and its handlers, and verbs/verbs.c gives the tables here at
 * start-up. A request line's verb is looked up once, in a hash.
 */
#ifndef MCDS_CMD_H
#define MCDS_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/parse.h"
#include "net/conn.h"


typedef enum conn_parse_result (*cmd_fn)(conn *c, struct cmd_line *l);

enum cmd_flags {
    CMD_RAW = 1,                    /* the handler parses the line itself (no tokens) */
    CMD_DATA = 2,                   /* may be followed by a data block */
    CMD_NOREPLY = 4,                /* may end in "noreply" */
    CMD_DEBUG = 8,                  /* exists only with --debug */
    CMD_ADMIN = 16,                 /* with --admin-users, only for those users (auth.c) */
};

struct cmd_def {
    const char *name;
    cmd_fn run;
    int min_tokens, max_tokens;     /* the verb included; outside: ERROR */
    unsigned flags;
    int arg;                        /* for a handler that serves several verbs */
    const char *help;               /* one line for `help` (may be left out: NULL) */
};

/* Empties the table; once, at start-up, before the families register. */
void cmd_init(void);
/* Adds a family's entries (ended by one with a NULL name; the array must
 * outlive the server): `help` lists them in registration order. */
void cmd_register(const struct cmd_def *table);
/* Calls fn for every registered verb, in registration order. */
void cmd_each(void (*fn)(const struct cmd_def *d, void *ctx), void *ctx);
struct ahead_set;
/* The quick path of a plain set that ahead.c recognised (the storage
 * verbs' own). */
void cmd_set_quick_store(void (*fn)(conn *c, const struct ahead_set *s));
/* Runs one request line (without its "\r\n", NUL-terminated at len). */
enum conn_parse_result cmd_dispatch(conn *c, char *line, size_t len);
/* help [<verb>]: the verbs with their one-line descriptions. */
enum conn_parse_result cmd_help(conn *c, struct cmd_line *l);

/* ---- helpers for handlers ---- */

/* Whether token at is "noreply". */
bool cmd_is_noreply(const struct cmd_line *l, int at);
/* Queues r unless the command's replies are silenced (noreply). */
void cmd_reply(conn *c, enum reply_id r);
/* A refused command whose data blocks cannot be skipped (a length that
 * is not one): r is sent, noreply or not, and the connection closes after
 * it, so that no block is ever read as a command. */
enum conn_parse_result cmd_refuse_unframed(conn *c, enum reply_id r);
/* The reply of a structure's create verb for st: CREATED, EXISTS, the
 * wrong-type error, or (any other status) oom. */
void cmd_created_reply(conn *c, enum store_status st, enum reply_id oom);
/* Whether a change may be made: with --data-dir, not while the log cannot
 * be written (the reply then says so). */
bool cmd_log_ok(conn *c);
/* Queues "<v>\r\n". */
void cmd_number_line(conn *c, uint64_t v);
/* The value of a "name=value" token, or NULL if tok is not that option. */
const char *cmd_option(const char *tok, const char *name);
/* A whole decimal number in [0, max], with no truncation and no sign. */
bool cmd_parse_count(const char *s, uint32_t max, uint32_t *out);
/* "<secs>[.<fraction>]" into milliseconds, at most 100000000 s. */
bool cmd_parse_ms(const char *s, uint64_t *ms);
/* Queues "CLIENT_ERROR <text><tok>\r\n" unless silenced (noreply): tok
 * (its first ntok bytes, at most CMD_ECHO_MAX of them, each non-printable
 * byte as '?') names what is wrong. */
void cmd_client_error(conn *c, const char *text, const char *tok, size_t ntok);
#define CMD_ECHO_MAX 32
/* Replies "unknown option <name>" for tok ("<name>" or "<name>=<value>"). */
void cmd_unknown_option(conn *c, const char *tok);
/* Replies "bad value for <name>". */
void cmd_bad_value(conn *c, const char *name);
/* The reply for tokens from `from` on that a verb does not take: a
 * noreply out of place, or simply too many tokens. */
enum reply_id cmd_extra_tokens(const struct cmd_line *l, int from);
/* count=<1..max> or after=<key> of a paged listing (ctchildren, qlist):
 * false, and the reply made (bad_count, or a bad value for after, or an
 * unknown option), when tok is wrong. */
bool cmd_list_option(conn *c, const char *tok, uint32_t max, enum reply_id bad_count,
                     uint32_t *count, const char **after);
/* The longest lease or wait, in seconds. */
#define CMD_SECS_MAX 100000000ULL

#endif
