/*
 * table_int: what the table's files share: the table, its indexes and
 * rows, the order-preserving encoding, memory accounting.
 */
#ifndef MCDS_TABLE_INT_H
#define MCDS_TABLE_INT_H

#include <pthread.h>

#include "types/table.h"
#include "types/table_skip.h"

/* A row: its version and its values (one block: the values, then the
 * bytes they point to). Index entries point to the row, which stays put
 * while its values are replaced. */
struct tbl_row {
    uint64_t ver;
    size_t vsize;
    struct tbl_val *v;
};

struct tbl_index {
    struct tbl_index_def def;
    uint64_t id;                /* unique on the server: cursors check it */
    struct tskip sl;            /* entry -> row */
    bool building;
    uint8_t *built;             /* building: the last primary key entry indexed (NULL: none) */
    size_t nbuilt;
};

struct table {
    char name[TBL_TABLE_NAME_MAX + 1];
    size_t nname;
    uint64_t id;
    int refs;                   /* under the registry's lock */
    bool dropped;
    struct table *hnext;
    pthread_rwlock_t lock;
    struct tbl_schema s;
    int nidx;                   /* idx[0]: primary */
    struct tbl_index *idx[TBL_INDEXES_MAX];
    uint64_t ver;               /* the last version given */
    size_t mem;                 /* under -m */
};

/* ---- table.c ---- */
uint64_t table_new_id(void);
/* One more reference to t (table_put gives it back). */
void table_ref(struct table *t);
bool table_room(size_t need);
/* Adds bytes (negative: gives back) to t's memory and -m's. */
void table_charge(struct table *t, long bytes);
void table_stat_rows(long d);
void table_stat_entries(long d);
void table_stat_cursors(long d);
void table_stat_expired(void);
void table_stat_build_failed(void);
struct tbl_index *table_index_new(struct table *t, const struct tbl_index_def *d);
void table_index_free(struct table *t, struct tbl_index *ix);

/* ---- table_enc.c ---- */
/* The encoded size of ix's entry for row values v (the primary key
 * appended unless ix is the primary index). */
size_t table_entry_size(const struct table *t, const struct tbl_index *ix, const struct tbl_val *v);
/* Writes it at out (table_entry_size bytes). */
void table_entry_write(const struct table *t, const struct tbl_index *ix, const struct tbl_val *v, uint8_t *out);
/* One part's encoding of v (a tag, then the value) at out (NULL: only the
 * size): its size. */
size_t table_part_encode(enum tbl_type type, const struct tbl_part *p, const struct tbl_val *v, uint8_t *out);
/* Whether a row is covered by a building index (its primary key entry at
 * or before the build's position). */
bool table_index_covers(const struct tbl_index *ix, const uint8_t *pk, size_t npk);

/* ---- table_row.c ---- */
/* The size of a values block holding v. */
size_t table_vals_size(const struct table *t, const struct tbl_val *v);
/* A new entry node of ix for row r (values v); NULL when no memory. */
struct tskip_node *table_entry_node(struct table *t, struct tbl_index *ix, const struct tbl_val *v, struct tbl_row *r);
void table_row_free(struct table *t, struct tbl_row *r);

/* Replay: the row with values v gets version ver, and the table's version
 * becomes the larger of before and ver. 0, or -1 when there is no row. */
int table_restore_version(struct table *t, const struct tbl_val *v, uint64_t ver, uint64_t before);

/* ---- table_persist.c: records (no-ops without --data-dir), under the
 * lock that orders the change ---- */
void table_persist_create(const struct table *t);
void table_persist_drop(const struct table *t);
void table_persist_index(const struct table *t, const struct tbl_index_def *d, bool add);
void table_persist_put(const struct table *t, uint64_t ver, const struct tbl_val *v);
void table_persist_del(const struct table *t, const struct tbl_val *key);

/* Calls fn on every table (a snapshot's child): the first non-zero return. */
int table_each(int (*fn)(void *arg, struct table *t), void *arg);

/* ---- table_build.c ---- */
/* Queues a background build of ix (t referenced by the builder). */
void table_build_start(struct table *t, struct tbl_index *ix);
/* Builds ix whole now (replay), under t's write lock. */
void table_build_now(struct table *t, struct tbl_index *ix);
void table_build_shutdown(void);

/* ---- table_cursor.c ---- */
void table_cursor_shutdown(void);
uint64_t table_cursor_count(void);

#endif
