/*
 * test_pool.c - one handle over a pool of servers: every structure's keys
 * sit together on exactly one server, and different structures are spread
 * over the pool. Needs a list of at least two servers.
 */
#include <libmemcached/memcached.h>
#include <string.h>

#include "testutil.h"

#define MAX_SERVERS 8
#define STRUCTS 24

static memcached_st *server[MAX_SERVERS];
static int nservers;

static void connect_each(const char *servers)
{
    char copy[1024], *tok, *save = NULL;

    snprintf(copy, sizeof copy, "%s", servers);
    for (tok = strtok_r(copy, ",", &save); tok && nservers < MAX_SERVERS;
         tok = strtok_r(NULL, ",", &save)) {
        memcached_server_list_st l = memcached_servers_parse(tok);
        server[nservers] = memcached_create(NULL);
        CHECK(l != NULL && server[nservers] != NULL);
        CHECK(memcached_server_push(server[nservers], l) == MEMCACHED_SUCCESS);
        memcached_server_list_free(l);
        nservers++;
    }
}

/* Index of the one server holding key; -1 if none; -2 if several. */
static int where(const char *key)
{
    int i, at = -1;

    for (i = 0; i < nservers; i++) {
        memcached_return_t rc;
        size_t len;
        uint32_t flags;
        /* A get, since memcached_exist would create the key. */
        char *v = memcached_get(server[i], key, strlen(key), &len, &flags, &rc);
        if (rc == MEMCACHED_SUCCESS)
            at = at == -1 ? i : -2;
        else
            CHECK(rc == MEMCACHED_NOTFOUND);
        free(v);
    }
    return at;
}

/* Checks that the existing keys among keys[] are on one server (at least
 * min of them exist) and returns it. */
static int together(char keys[][256], int n, int min)
{
    int i, at = -1, found = 0;

    for (i = 0; i < n; i++) {
        int w = where(keys[i]);
        CHECK(w != -2);
        if (w < 0)
            continue;
        CHECK(at == -1 || at == w);
        at = w;
        found++;
    }
    CHECK(found >= min);
    return at;
}

/* Creates one of each structure named base-i; returns a bit per server
 * that holds one of them. */
static unsigned make_and_check(mcds_t *h, int i)
{
    static char keys[64][256];
    char name[64];
    const char *member[] = {"a", "b", "c", "d"};
    mcds_oparray_t *a;
    mcds_log_t *log;
    mcds_lock_t *l;
    mcds_seq_t *s;
    mcds_item_t one = {"e", 1};
    uint64_t id;
    unsigned used = 0;
    int k, n;
    int64_t now = tu_now_ms();

    snprintf(name, sizeof name, "%s-%d", tu_name("pool"), i);
    /* table: list + shadow keys */
    for (k = 0; k < 4; k++)
        CHECK_ST(mcds_table_add(h, name, member[k], 1), MCDS_OK);
    n = 0;
    snprintf(keys[n++], 256, "mcds:tab:%s", name);
    for (k = 0; k < 4; k++)
        snprintf(keys[n++], 256, "mcds:tab:%s:m:%s", name, member[k]);
    used |= 1u << together(keys, n, 5);

    /* op array with 8 shards */
    CHECK_ST(mcds_oparray_new(h, name, 8, &a), MCDS_OK);
    for (k = 0; k < 40; k++) {
        char e[16];
        snprintf(e, sizeof e, "e%d", k);
        CHECK_ST(mcds_oparray_add(a, e, strlen(e)), MCDS_OK);
    }
    mcds_oparray_free(a);
    for (n = 0; n < 8; n++)
        snprintf(keys[n], 256, "mcds:ops:%s:%d", name, n);
    used |= 1u << together(keys, n, 5);

    /* event log: 5 of its 7 chunks, in a ring of 9 slots (7 plus the
     * spare ones covering 4 s) */
    CHECK_ST(mcds_log_new(h, name, 2, 7, &log), MCDS_OK);
    for (k = 0; k < 5; k++)
        CHECK_ST(mcds_log_put(log, now - k * 2000, "ev", 2), MCDS_OK);
    mcds_log_free(log);
    for (n = 0; n < 9; n++)
        snprintf(keys[n], 256, "mcds:log:%s:%d", name, n);
    used |= 1u << together(keys, n, 5);

    /* lock, sequence, counter, array: one key each */
    CHECK_ST(mcds_lock_new(h, name, 10, &l), MCDS_OK);
    CHECK_ST(mcds_lock_try(l), MCDS_OK);
    snprintf(keys[0], 256, "mcds:lock:%s", name);
    used |= 1u << together(keys, 1, 1);
    CHECK_ST(mcds_lock_release(l), MCDS_OK);
    CHECK(where(keys[0]) == -1);
    mcds_lock_free(l);
    CHECK_ST(mcds_seq_new(h, name, 10, &s), MCDS_OK);
    CHECK_ST(mcds_seq_next(s, &id), MCDS_OK);
    mcds_seq_free(s);
    snprintf(keys[0], 256, "mcds:seq:%s", name);
    used |= 1u << together(keys, 1, 1);
    CHECK_ST(mcds_counter_incr(h, name, 1, NULL), MCDS_OK);
    snprintf(keys[0], 256, "mcds:ctr:%s", name);
    used |= 1u << together(keys, 1, 1);
    CHECK_ST(mcds_array_change(h, name, &one, 1, NULL, 0), MCDS_OK);
    snprintf(keys[0], 256, "mcds:arr:%s", name);
    used |= 1u << together(keys, 1, 1);
    return used;
}

/* The name of a queue placed on a server other than name0's. */
static void other_server_name(mcds_t *h, const char *name0, char *out, size_t n)
{
    memcached_return_t rc;
    const memcached_instance_st *s0, *s;
    int i;

    s0 = memcached_server_by_key(mcds_memcached(h), name0, strlen(name0), &rc);
    for (i = 0; i < 1000; i++) {
        snprintf(out, n, "%s-other-%d", name0, i);
        s = memcached_server_by_key(mcds_memcached(h), out, strlen(out), &rc);
        if (s != s0)
            return;
    }
    CHECK(!"no name found on another server");
}

/* mcds_queue_pop_any over queues of two servers, on a handle that has no
 * connection yet: refused before anything is sent, its detail saying why
 * (the first queue's connection must outlive the second one's opening). */
static void pop_any_two_servers(const char *servers)
{
    mcds_t *h = tu_open(servers);
    char q0[128], q1[160];
    const char *qs[2] = {q0, q1};
    mcds_queue_msg_t *m = NULL;
    size_t cnt = 0, which = 0;
    mcds_status_t st;

    snprintf(q0, sizeof q0, "%s", tu_name("anyq"));
    other_server_name(h, q0, q1, sizeof q1);
    st = mcds_queue_pop_any(h, qs, 2, 1, 0, 0, &m, &cnt, &which);
    CHECK(cnt == 0);
    CHECK(st == MCDS_INVALID || st == MCDS_UNSUPPORTED);   /* stock memcached: no queues */
    if (st == MCDS_INVALID)
        CHECK(strstr(mcds_last_detail(h), "the queues are on different servers") != NULL);
    mcds_close(h);
    tu_ok("pop_any over queues of two servers is refused, nothing sent");
}

int main(int argc, char **argv)
{
    const char *servers = tu_init(argc, argv, 120);
    mcds_t *h = tu_open(servers);
    unsigned used = 0;
    int i, count = 0;

    connect_each(servers);
    if (nservers < 2) {
        fprintf(stderr, "test_pool needs at least two servers\n");
        return 2;
    }
    for (i = 0; i < STRUCTS; i++)
        used |= make_and_check(h, i);
    tu_ok("each structure's keys are all on one server");
    for (i = 0; i < nservers; i++)
        count += (used >> i) & 1;
    printf("# structures spread over %d of %d servers\n", count, nservers);
    CHECK(count == nservers);
    tu_ok("structures are spread over every server of the pool");
    pop_any_two_servers(servers);
    for (i = 0; i < nservers; i++)
        memcached_free(server[i]);
    mcds_close(h);
    return 0;
}
