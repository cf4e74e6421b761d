/*
 * verb_table: the table verbs (doc/protocol.md, "9. Tables"): their
 * command table entries, and what the files of table verbs share.
 */
#ifndef MCDS_VERB_TABLE_H
#define MCDS_VERB_TABLE_H

#include "proto/cmd.h"
#include "types/table.h"

#define TVERB_TOKENS 200

extern const struct cmd_def tverb_cmds[];

/* A table verb's line, split by its own tokenizer (more tokens than the
 * command table's). */
struct tverb_line {
    char *v[TVERB_TOKENS + 1];
    size_t vlen[TVERB_TOKENS + 1];
    int n;
};

/* Splits l into t: false, the reply made (ERROR under min tokens, too
 * many tokens), when it does not fit. */
bool tverb_tokenize(conn *c, struct cmd_line *l, struct tverb_line *t, int min);
/* The table named by token i, referenced; NULL with the reply made. */
struct table *tverb_table(conn *c, const struct tverb_line *t, int i);
/* fields=<f>[,<f>…] into a mask of t's fields: false, the reply made. */
bool tverb_fields(conn *c, const struct table *t, const char *list, uint64_t *mask);
/* The row callback of tget, tselect, tscan, tnext: ROW and F lines. */
bool tverb_out_row(void *arg, const struct table *t, uint64_t ver, const struct tbl_val *v, uint64_t mask);
/* The reply for a table function's result r (TBL_OK replies nothing). */
void tverb_result(conn *c, enum tbl_result r);

enum conn_parse_result tverb_select(conn *c, struct cmd_line *l);
enum conn_parse_result tverb_scan(conn *c, struct cmd_line *l);
enum conn_parse_result tverb_next(conn *c, struct cmd_line *l);
enum conn_parse_result tverb_close(conn *c, struct cmd_line *l);
enum conn_parse_result tverb_cursors(conn *c, struct cmd_line *l);

#endif
