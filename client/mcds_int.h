/*
 * mcds_int.h - private declarations shared by the files of libmcds.
 *
 * Not installed. Internal functions are named mcds__* (two underscores) and
 * are not exported from the shared library (see -export-symbols-regex in
 * Makefile.am). The handle's layout lives here, never in mcds.h.
 */
#ifndef MCDS_INT_H
#define MCDS_INT_H

#include <libmemcached/memcached.h>

#include "mcds.h"

/* memcached's key limit, in bytes. */
#define MCDS_KEY_MAX 250

/* A connection of the extended-verb client (queue.c), one per server. */
typedef struct mcds__xconn mcds__xconn_t;

/* An entry of the server list that names replicas ("P=R1=R2",
 * serverlist.c): a shard whose requests xroute.c routes. m[0] is the
 * service address (libmemcached places the entry's keys by it), m[1..n-1]
 * the replicas, m[n] a primary outside the list that a refusal named (NULL
 * until one did). Each member has its own connection. */
#define MCDS__RSET_MAX 8
typedef struct mcds__rset {
    mcds__xconn_t *m[MCDS__RSET_MAX + 1];
    size_t n;
    size_t primary;     /* index in m of the current primary */
    size_t next_read;   /* the member the next replica read tries first */
    /* members marked down (xroute.c): replica reads leave member i alone
     * until down_until[i] (monotonic ms); down_ms[i] is the length of its
     * last mark, 0 when it is not marked */
    int64_t down_until[MCDS__RSET_MAX + 1];
    unsigned down_ms[MCDS__RSET_MAX + 1];
} mcds__rset_t;

/* The handle. */
struct mcds {
    memcached_st *mc;
    int owned;          /* mcds_close frees mc */
    unsigned retry_ms;  /* bound on cas retry loops and internal lock waits */
    uint64_t rng;       /* xorshift state for backoff jitter */
    /* xconn.c: its connections, one per server (not shared by clones);
     * each allocated alone, so that a call's pointer to one stays valid
     * while another is added */
    mcds__xconn_t **xconns;
    size_t nxconns;
    /* the entries of the server list that name replicas (xroute.c) */
    mcds__rset_t *rsets;
    size_t nrsets;
    int read_replicas;  /* reads may go to the replicas */
    /* mcds_last_detail: "<host>:<port>: <what happened>" for the last
     * request libmcds sent on h, "" when it succeeded (detail.c for
     * requests through libmemcached, queue.c for its own). */
    char detail[320];
};

/* ---- status.c ---- */

/* Maps a libmemcached result to a status (success codes map to MCDS_OK). */
mcds_status_t mcds__from_memcached(memcached_return_t rc);

/* ---- serverlist.c ---- */

/* Checks a plain server list ("host:port[:weight][=replica...],...") entry
 * by entry and adds its servers to mc (each entry by its first address):
 * MCDS_INVALID for a malformed list. The entries that name replicas go to
 * *rsets (*nrsets of them; malloc'd, NULL when none). */
mcds_status_t mcds__servers_add(memcached_st *mc, const char *list,
                                mcds__rset_t **rsets, size_t *nrsets);
/* An address "host:port" or "[IPv6]:port" of len bytes (a redirect's):
 * 0 with host (room for MCDS__HOST_MAX + 1 bytes) and port, or -1. */
#define MCDS__HOST_MAX 1024
int mcds__address_parse(const char *s, size_t len, char *host,
                        unsigned *port);

/* ---- clock.c: time, sleeping and randomness ---- */

int64_t mcds__now_ms(void);   /* wall clock, ms since the Unix epoch */
int64_t mcds__mono_ms(void);  /* monotonic clock, ms */
void mcds__sleep_ms(unsigned ms);
/* Fills buf with unpredictable bytes (getrandom, else /dev/urandom, else
 * time and pid mixed). */
void mcds__random_bytes(void *buf, size_t len);
uint64_t mcds__rand(mcds_t *h);
/* A wait between retries: sleeps a random time in [delay/2, delay] but not
 * past deadline (monotonic ms), then doubles *delay_ms up to cap_ms. Returns
 * 0 if the deadline has already passed. */
int mcds__backoff(mcds_t *h, unsigned *delay_ms, unsigned cap_ms,
                  int64_t deadline);

/* ---- keys.c: key building ---- */

typedef struct mcds__key {
    char s[MCDS_KEY_MAX + 1];
    size_t len;
} mcds__key_t;

/* "mcds:<kind>:<name>" with name escaped; MCDS_INVALID for an empty or NULL
 * name, MCDS_KEY_TOO_LONG when over 250 bytes. */
mcds_status_t mcds__key_base(mcds__key_t *k, const char *kind,
                             const char *name);
/* Appends plain text (no escaping). */
mcds_status_t mcds__key_add(mcds__key_t *k, const char *text);
/* Appends arbitrary bytes, escaping all but printable ASCII as %XX. */
mcds_status_t mcds__key_add_escaped(mcds__key_t *k, const void *data,
                                    size_t len);
mcds_status_t mcds__key_add_uint(mcds__key_t *k, unsigned long long n);

/* ---- codec.c: growable buffers, varints, item lists ---- */

typedef struct mcds__buf {
    char *p;
    size_t len;
    size_t cap;
} mcds__buf_t;

void mcds__buf_init(mcds__buf_t *b);
void mcds__buf_free(mcds__buf_t *b);
mcds_status_t mcds__buf_put(mcds__buf_t *b, const void *data, size_t len);
mcds_status_t mcds__buf_put_varint(mcds__buf_t *b, uint64_t v);
/* Appends varint(len) then the bytes. */
mcds_status_t mcds__buf_put_blob(mcds__buf_t *b, const void *data, size_t len);

/* Reads a varint at *pos (advanced); 0 on success, -1 on truncation. */
int mcds__get_varint(const char *p, size_t len, size_t *pos, uint64_t *v);
/* Reads varint(len)+bytes at *pos; *data points into p. 0 or -1. */
int mcds__get_blob(const char *p, size_t len, size_t *pos, const char **data,
                   size_t *dlen);
uint64_t mcds__zigzag(int64_t v);
int64_t mcds__unzigzag(uint64_t v);

/* A growing array of items that point into someone else's memory. */
typedef struct mcds__list {
    mcds_item_t *v;
    size_t n;
    size_t cap;
} mcds__list_t;

void mcds__list_init(mcds__list_t *l);
void mcds__list_free(mcds__list_t *l);
mcds_status_t mcds__list_push(mcds__list_t *l, const char *data, size_t len);
/* Parses a value made of blobs (the array and table format). */
mcds_status_t mcds__list_parse(mcds__list_t *l, const char *p, size_t len);
/* Serializes items as blobs into b. */
mcds_status_t mcds__list_encode(const mcds_item_t *v, size_t n,
                                mcds__buf_t *b);
/* Index of the first item equal to (data, len), or -1. */
long mcds__list_find(const mcds__list_t *l, const void *data, size_t len);
/* Copies items and their bytes into one allocation (*out NULL when n is 0). */
mcds_status_t mcds__items_pack(const mcds_item_t *v, size_t n,
                               mcds_item_t **out);
/* Parses a list value and packs its items into one allocation. */
mcds_status_t mcds__items_unpack(const char *p, size_t len,
                                 mcds_item_t **items, size_t *count);

/* ---- strset.c: a set of byte strings, for replaying operation logs ---- */

typedef struct mcds__strset mcds__strset_t;

/* FNV-1a, 64 bits: the set's hash, also used to pick an array shard. */
uint64_t mcds__hash(const void *data, size_t len);

mcds__strset_t *mcds__strset_new(size_t expected);
void mcds__strset_free(mcds__strset_t *s);
/* Adds (data, len) (the bytes must outlive the set): 0, or -1 on no memory. */
int mcds__strset_add(mcds__strset_t *s, const char *data, size_t len);
int mcds__strset_has(const mcds__strset_t *s, const char *data, size_t len);

/* ---- kv.c: single requests through libmemcached, on the group's server ---- */

/* A fetched value: malloc'd, NUL-terminated. */
typedef struct mcds__val {
    char *data;
    size_t len;
    uint64_t cas;
    int found;
} mcds__val_t;

void mcds__val_free(mcds__val_t *v);
/* MCDS_OK (v->found = 1) or MCDS_NOT_FOUND (v->found = 0). */
mcds_status_t mcds__get(mcds_t *h, const mcds__key_t *group,
                        const mcds__key_t *key, mcds__val_t *v);
/* One multi-get of n keys; out[i] matches keys[i]. Misses are not errors. */
mcds_status_t mcds__mget(mcds_t *h, const mcds__key_t *group,
                         const mcds__key_t *keys, size_t n, mcds__val_t *out);
/* The same for a read that a replica may answer (mcds_set_read_replicas):
 * one whose value goes to the application and to no later write. */
mcds_status_t mcds__get_read(mcds_t *h, const mcds__key_t *group,
                             const mcds__key_t *key, mcds__val_t *v);
mcds_status_t mcds__mget_read(mcds_t *h, const mcds__key_t *group,
                              const mcds__key_t *keys, size_t n,
                              mcds__val_t *out);
/* add: MCDS_OK or MCDS_EXISTS. */
mcds_status_t mcds__add(mcds_t *h, const mcds__key_t *group,
                        const mcds__key_t *key, const void *data, size_t len,
                        time_t ttl);
mcds_status_t mcds__set(mcds_t *h, const mcds__key_t *group,
                        const mcds__key_t *key, const void *data, size_t len,
                        time_t ttl);
/* append: MCDS_OK or MCDS_NOT_FOUND (memcached also answers NOT_STORED when
 * the result would be too large; callers sort that out). */
mcds_status_t mcds__append(mcds_t *h, const mcds__key_t *group,
                           const mcds__key_t *key, const void *data,
                           size_t len);
/* cas: MCDS_OK, MCDS_EXISTS (changed since read) or MCDS_NOT_FOUND. */
mcds_status_t mcds__cas(mcds_t *h, const mcds__key_t *group,
                        const mcds__key_t *key, const void *data, size_t len,
                        time_t ttl, uint64_t cas);
/* delete: MCDS_OK or MCDS_NOT_FOUND. */
mcds_status_t mcds__delete(mcds_t *h, const mcds__key_t *group,
                           const mcds__key_t *key);
/* incr/decr: MCDS_OK or MCDS_NOT_FOUND. */
mcds_status_t mcds__incr(mcds_t *h, const mcds__key_t *group,
                         const mcds__key_t *key, uint64_t delta,
                         uint64_t *value);
mcds_status_t mcds__decr(mcds_t *h, const mcds__key_t *group,
                         const mcds__key_t *key, uint64_t delta,
                         uint64_t *value);

/* ---- kvx.c: kv.c's requests on a replica set, through xconn.c ---- */

/* gets of n keys (replica_ok: a replica may answer). */
mcds_status_t mcds__kvx_mget(mcds_t *h, const mcds__key_t *group,
                             const mcds__key_t *keys, size_t n,
                             mcds__val_t *out, int replica_ok);
/* verb (set, add, append, cas: with cas non-zero): MCDS_OK for STORED,
 * not_stored for NOT_STORED, MCDS_EXISTS, MCDS_NOT_FOUND. */
mcds_status_t mcds__kvx_store(mcds_t *h, const mcds__key_t *group,
                              const char *verb, const mcds__key_t *key,
                              const void *data, size_t len, time_t ttl,
                              uint64_t cas, mcds_status_t not_stored);
mcds_status_t mcds__kvx_delete(mcds_t *h, const mcds__key_t *group,
                               const mcds__key_t *key);
/* verb incr or decr. */
mcds_status_t mcds__kvx_arith(mcds_t *h, const mcds__key_t *group,
                              const char *verb, const mcds__key_t *key,
                              uint64_t delta, uint64_t *value);

/* An exptime that memcached reads as an absolute time long past: storing an
 * item with it makes the item vanish at once. Used by compare-and-delete
 * (cas with this exptime), since libmemcached cannot send a negative one. */
#define MCDS_EXPIRE_NOW ((time_t)2592001)

/* ---- lock.c: internal lock placement ---- */

/* Like mcds_lock_new, with the lock key and the group key given. */
mcds_status_t mcds__lock_new_at(mcds_t *h, const mcds__key_t *key,
                                const mcds__key_t *group, unsigned ttl_s,
                                mcds_lock_t **out);

/* ---- xconn.c: the extended-verb client ---- */

/* Closes and frees the handle's extended-verb connections. */
void mcds__xconns_free(mcds_t *h);
/* A closed connection to name:port (port 0: a socket path), or NULL. */
mcds__xconn_t *mcds__xconn_new(const char *name, unsigned port);
void mcds__xconn_free(mcds__xconn_t *c);

/* ---- xroute.c: replica sets ---- */

/* Frees n replica sets and their connections (v itself too). */
void mcds__rsets_free(mcds__rset_t *v, size_t n);
/* Copies the members and current primaries of h's replica sets into to
 * (no connection is copied). */
mcds_status_t mcds__rsets_clone(mcds_t *to, const mcds_t *h);
/* The replica set whose service address is the server libmemcached picks
 * for key, or NULL (a plain entry). */
mcds__rset_t *mcds__rset_of_key(mcds_t *h, const char *key, size_t len);

/* One request line (with its "\r\n") of another structure's verbs, sent
 * to the server of route (a key; "{tag}" routes by tag), or, with route
 * NULL, to every server of the handle in turn. Each reply line (without
 * "\r\n") goes to fn, which returns MCDS__XMORE to read the next line,
 * MCDS__XDONE when the reply is complete, or MCDS__XERROR for a line that
 * is no success of the verb (mapped like the queue verbs' errors, with
 * NOT_FOUND as MCDS_NOT_FOUND). The status of the last server is returned;
 * with route NULL the first failure stops the loop. */
enum { MCDS__XMORE = 1, MCDS__XDONE = 0, MCDS__XERROR = -1 };
typedef int (*mcds__xline_fn)(void *arg, const char *line, size_t len);
mcds_status_t mcds__xrequest(mcds_t *h, const char *route, const char *line,
                             size_t len, mcds__xline_fn fn, void *arg);

/* ---- detail.c ---- */

/* Sets h->detail after a request to the server of group: "" when rc is a
 * success, else the server and what happened. */
void mcds__detail_memcached(mcds_t *h, const mcds__key_t *group,
                            memcached_return_t rc);

#endif /* MCDS_INT_H */
