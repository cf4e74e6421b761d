/*
 * table: indexed tables (doc/protocol.md, "9. Tables"): rows of typed,
 * nullable fields under a primary key, composite indexes kept in step
 * with the rows under the table's lock, selections and predicate scans
 * through server cursors. Tables have their own namespace (not keys);
 * their memory counts under -m and is never evicted.
 *
 * This header is what the verbs use: schema parsing, writes, reads,
 * cursors. Rows reach the verbs through a callback called under the
 * table's read lock.
 */
#ifndef MCDS_TABLE_H
#define MCDS_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TBL_FIELDS_MAX 64
#define TBL_KEY_MAX 8
#define TBL_INDEXES_MAX 16
#define TBL_PARTS_MAX 8
#define TBL_NAME_MAX 64
#define TBL_TABLE_NAME_MAX 250
#define TBL_COUNT_MAX 1000
#define TBL_COUNT_DEFAULT 100
#define TBL_SCAN_EXAMINE 10000
#define TBL_CURSORS_MAX 1024
#define TBL_TTL_MAX 3600
#define TBL_TTL_DEFAULT 60
#define TBL_PRED_DEPTH 16
#define TBL_BUILD_STEP 1000

enum tbl_type { TBL_INT, TBL_BYTES };

/* A field's value: NULL, an int, or bytes (p, n). */
struct tbl_val {
    bool null;
    int64_t i;
    const uint8_t *p;
    uint32_t n;
};

enum tbl_result {
    TBL_OK,
    TBL_NOT_FOUND,      /* no such table, row, index or cursor */
    TBL_EXISTS,         /* tcreate: the table exists; a version differs */
    TBL_NOT_STORED,     /* tinsert: the key exists */
    TBL_NOMEM,
    TBL_BUILDING,       /* the index is being built */
    TBL_BUSY,           /* the cursor is serving another connection */
    TBL_TOO_MANY,       /* cursors */
    TBL_BAD,            /* a bad request; the message says what */
};

struct table;
struct tbl_row;
struct tbl_pred;

/* A table's schema as tcreate gives it. */
struct tbl_part {
    int field;
    bool desc, nulls_last;
};
struct tbl_index_def {
    char name[TBL_NAME_MAX + 1];
    int nparts;
    struct tbl_part part[TBL_PARTS_MAX];
};
struct tbl_schema {
    int nf;
    char name[TBL_FIELDS_MAX][TBL_NAME_MAX + 1];
    enum tbl_type type[TBL_FIELDS_MAX];
    int nkey;
    int key[TBL_KEY_MAX];
    int nidx;               /* secondary indexes */
    struct tbl_index_def idx[TBL_INDEXES_MAX - 1];
};

/* ---- start-up, shutdown ---- */

/* room: makes room under -m for need more bytes (evicting cache values). */
void table_system_init(bool (*room)(size_t need));
void table_system_shutdown(void);
/* Registers the table records with persistence (before persist_start). */
void table_persist_init(void);

/* ---- schema (table_schema.c) ---- */

/* Parses tcreate's tokens after the table name into s: false with the
 * first wrong token in *bad. */
bool table_schema_parse(struct tbl_schema *s, char **tok, int ntok, const char **bad);
/* Parses "<name>" and "<parts>" into d against s: false when wrong. */
bool table_index_parse(const struct tbl_schema *s, const char *name, const char *parts,
                       struct tbl_index_def *d);
/* The field named n (len nn) of a table's schema, or -1. */
int table_field(const struct table *t, const char *n, size_t nn);
const struct tbl_schema *table_schema(const struct table *t);

/* ---- tables (table.c) ---- */

enum tbl_result table_create(const char *name, size_t nname, const struct tbl_schema *s);
enum tbl_result table_drop(const char *name, size_t nname);
/* A reference to the table, or NULL; table_put gives it back. */
struct table *table_get(const char *name, size_t nname);
void table_put(struct table *t);
enum tbl_result table_add_index(struct table *t, const struct tbl_index_def *d);
enum tbl_result table_drop_index(struct table *t, const char *name);

/* tinfo's lines, through a line callback, under the read lock. */
void table_info(struct table *t, void (*line)(void *arg, const char *s, size_t n), void *arg);
/* tlist: each table's name and rows. */
void table_list(void (*fn)(void *arg, const char *name, size_t nname, uint64_t rows), void *arg);

/* ---- rows (table_row.c) ---- */

enum tbl_write { TBL_INSERT, TBL_PUT, TBL_UPDATE };

/* A write of the fields given (given[f], vals[f]); ver: 0 or the version
 * the row must have (tupdate). *ver_out: the new version. */
enum tbl_result table_write(struct table *t, enum tbl_write op, const bool *given, const struct tbl_val *vals,
                            uint64_t ver, uint64_t *ver_out);
/* tdel: key values in the key's order. */
enum tbl_result table_delete(struct table *t, const struct tbl_val *key, uint64_t ver);

/* Called per row, under the table's read lock: false stops the walk. */
typedef bool (*tbl_row_fn)(void *arg, const struct table *t, uint64_t ver, const struct tbl_val *v, uint64_t mask);
/* tget: fn once when the row exists. */
enum tbl_result table_read(struct table *t, const struct tbl_val *key, uint64_t mask, tbl_row_fn fn, void *arg);

/* ---- predicates (table_pred.c) ---- */

/* Parses tok[0..ntok) against t's fields: NULL with *bad the first wrong
 * token ("end" when the predicate stops short), or *nomem. */
struct tbl_pred *table_pred_parse(const struct table *t, char **tok, int ntok, const char **bad, bool *nomem);
bool table_pred_eval(const struct tbl_pred *p, const struct tbl_val *v);
void table_pred_free(struct tbl_pred *p);

/* ---- cursors (table_cursor.c) ---- */

/* An index selection: eq values, one optional lower and upper bound. */
struct tbl_select {
    char index[TBL_NAME_MAX + 1];
    int neq;
    struct tbl_val eq[TBL_PARTS_MAX];
    bool has_lo, lo_strict, has_hi, hi_strict;
    struct tbl_val lo, hi;
    bool desc;
};

/* Copies the definition of t's index named n into d: false when there is
 * none; *building when it is not complete. */
bool table_index_lookup(struct table *t, const char *n, struct tbl_index_def *d, bool *building);

/* Opens a cursor for a selection (pred NULL) or a scan (pred, possibly
 * NULL for every row, with scan true); the cursor takes pred. */
enum tbl_result table_cursor_open(struct table *t, const struct tbl_select *sel, bool scan, struct tbl_pred *pred,
                                  uint64_t mask, uint32_t ttl_s, uint64_t *id);
/* The first page of a selection or scan, with no cursor kept. */
enum tbl_result table_select_once(struct table *t, const struct tbl_select *sel, bool scan, struct tbl_pred *pred,
                                  uint64_t mask, uint32_t count, tbl_row_fn fn, void *arg);
/* Answers a page of up to count rows through fn; *next: the cursor id to
 * continue with, 0 when the selection is complete (the cursor is then
 * closed). */
enum tbl_result table_cursor_page(uint64_t id, uint32_t count, tbl_row_fn fn, void *arg, uint64_t *next);
enum tbl_result table_cursor_close(uint64_t id);
/* tcursors: one callback per open cursor. */
void table_cursor_list(void (*fn)(void *arg, uint64_t id, const char *table, size_t ntable, const char *index,
                                  uint64_t age_ms, uint64_t left_ms), void *arg);

/* ---- values (table_enc.c) ---- */

/* Decodes a value token (doc/protocol.md "Names, types and values") in
 * place for type: false when it is wrong. "null" gives NULL. */
bool table_value_parse(char *tok, size_t n, enum tbl_type type, struct tbl_val *v);

#endif
