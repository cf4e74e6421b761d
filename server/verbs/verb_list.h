/*
 * verb_list: the list verbs (lcreate lpush rpush lpushx rpushx lpop rpop
 * llen lrange lindex lset linsert ltrim lrem lexists lpos), as entries of
 * cmd.c's table.
 */
#ifndef MCDS_VERB_LIST_H
#define MCDS_VERB_LIST_H

#include "proto/cmd.h"

#define LVERB_VALUES_MAX 64         /* most values one push carries */

/* The table's arg of the verbs that share a handler. */
enum lverb_id {
    LVERB_LPUSH, LVERB_RPUSH, LVERB_SET, LVERB_INSERT, LVERB_REM, LVERB_EXISTS,
    LVERB_LPOP, LVERB_RPOP, LVERB_LPUSHX, LVERB_RPUSHX, LVERB_POS,
};

enum conn_parse_result lverb_create(conn *c, struct cmd_line *t);
enum conn_parse_result lverb_push(conn *c, struct cmd_line *l);
enum conn_parse_result lverb_pop(conn *c, struct cmd_line *t);
enum conn_parse_result lverb_len(conn *c, struct cmd_line *t);
enum conn_parse_result lverb_range(conn *c, struct cmd_line *t);
enum conn_parse_result lverb_index(conn *c, struct cmd_line *t);
enum conn_parse_result lverb_num_block(conn *c, struct cmd_line *t);
enum conn_parse_result lverb_insert(conn *c, struct cmd_line *t);
enum conn_parse_result lverb_trim(conn *c, struct cmd_line *t);
enum conn_parse_result lverb_exists(conn *c, struct cmd_line *t);
enum conn_parse_result lverb_pos(conn *c, struct cmd_line *t);

/* "VALUE <key> 0 <n>\r\n<p>\r\n". */
void lverb_out_value(conn *c, const char *key, size_t nkey, const char *p, size_t n);
#define LVERB_HEAD_MAX (ITEM_KEY_MAX + 40)
/* "VALUE <key> 0 <n>\r\n" into buf (LVERB_HEAD_MAX bytes); its length. */
size_t lverb_value_head(char *buf, const char *key, size_t nkey, size_t n);

/* The list under a command's key, pinned; replies (missing: what a
 * missing list answers) and returns NULL when there is none, the key
 * holds something else, or is too long. */
item *lverb_list(conn *c, const char *key, size_t nkey, bool create, enum reply_id missing);

/* Where lverb_out_one writes elements: VALUE lines naming key. */
struct lverb_out {
    conn *c;
    const char *key;
    size_t nkey;
};
/* A list_each_fn: writes one element; false (stop) at the output limit. */
bool lverb_out_one(const char *p, size_t n, void *arg);

#define LVERB_COUNT_MAX 1000        /* most elements one pop or range returns */

/* This file's entries of the command table, ended by one with no name. */
extern const struct cmd_def lverb_cmds[];

#endif
