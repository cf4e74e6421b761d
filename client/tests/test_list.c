/*
 * test_list.c - the list wrappers (mcds_list_*) against mcds-server: every
 * verb and its errors (missing list, out of range, full list, wrong type,
 * too large, bad arguments), a blocking pop woken by another thread, 4
 * producer and 4 consumer threads moving 20,000 elements through one list
 * (each popped once, in its producer's order), and, given several servers,
 * a pool (each list on the server libmemcached picks for its key, found
 * there and only there); lmove (plain and waiting), lmpop, lpos and
 * lpushx, on lists placed together by a {tag}.
 */
#include <libmemcached/memcached.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#define POOL_LISTS 24
#define PUSHERS 4
#define POPPERS 4
#define PER_PUSHER 5000
#define ELEMS (PUSHERS * PER_PUSHER)
#define BATCH 10

static const char *servers;

static mcds_item_t item_of(const char *s)
{
    mcds_item_t v = { s, strlen(s) };
    return v;
}

/* The whole list, joined with commas. */
static void joined(mcds_t *h, const char *l, char *out, size_t size)
{
    mcds_item_t *it;
    size_t n, i, used = 0;

    CHECK_ST(mcds_list_range(h, l, 0, MCDS_LIST_READ_MAX, &it, &n), MCDS_OK);
    out[0] = '\0';
    for (i = 0; i < n; i++)
        used += (size_t)snprintf(out + used, size - used, "%s%s", i ? "," : "", it[i].data);
    mcds_items_free(it);
}

static void test_verbs(mcds_t *h)
{
    const char *l = tu_name("list");
    mcds_item_t v[3] = { item_of("a"), item_of("b"), item_of("c") }, *it;
    uint64_t len = 0, n64 = 0;
    size_t n;
    int found = -1;
    char all[256];

    CHECK_ST(mcds_list_len(h, l, &len), MCDS_NOT_FOUND);
    CHECK_ST(mcds_list_push(h, l, MCDS_LIST_TAIL, v, 3, &len), MCDS_OK);
    CHECK(len == 3);
    CHECK_ST(mcds_list_push(h, l, MCDS_LIST_HEAD, v, 2, &len), MCDS_OK);
    joined(h, l, all, sizeof all);
    CHECK(strcmp(all, "b,a,a,b,c") == 0);
    CHECK_ST(mcds_list_index(h, l, -1, &it), MCDS_OK);
    CHECK(it[0].len == 1 && strcmp(it[0].data, "c") == 0);
    mcds_items_free(it);
    CHECK_ST(mcds_list_index(h, l, 5, &it), MCDS_NOT_FOUND);
    CHECK_ST(mcds_list_set(h, l, 1, "A", 1), MCDS_OK);
    CHECK_ST(mcds_list_set(h, l, 9, "A", 1), MCDS_NOT_FOUND);
    CHECK_ST(mcds_list_insert(h, l, 1, "c", 1, "d", 1, &len), MCDS_OK);
    CHECK(len == 6);
    CHECK_ST(mcds_list_insert(h, l, 0, "zz", 2, "d", 1, &len), MCDS_NOT_FOUND);
    CHECK_ST(mcds_list_contains(h, l, "d", 1, &found), MCDS_OK);
    CHECK(found == 1);
    CHECK_ST(mcds_list_contains(h, l, "q", 1, &found), MCDS_OK);
    CHECK(found == 0);
    CHECK_ST(mcds_list_remove(h, l, 0, "b", 1, &n64), MCDS_OK);
    CHECK(n64 == 2);
    joined(h, l, all, sizeof all);
    CHECK(strcmp(all, "A,a,c,d") == 0);
    CHECK_ST(mcds_list_trim(h, l, 1, 2, &n64), MCDS_OK);
    CHECK(n64 == 2);
    CHECK_ST(mcds_list_pop(h, l, MCDS_LIST_TAIL, 5, 0, &it, &n), MCDS_OK);
    CHECK(n == 2 && strcmp(it[0].data, "c") == 0 && strcmp(it[1].data, "a") == 0);
    mcds_items_free(it);
    CHECK_ST(mcds_list_pop(h, l, MCDS_LIST_HEAD, 1, 0, &it, &n), MCDS_OK);
    CHECK(n == 0 && it == NULL);
    CHECK_ST(mcds_list_len(h, l, &len), MCDS_OK);
    CHECK(len == 0);
    CHECK_ST(mcds_list_delete(h, l), MCDS_OK);
    CHECK_ST(mcds_list_delete(h, l), MCDS_NOT_FOUND);
    tu_ok("list: every verb, in order, with its replies");
}

static void test_errors(mcds_t *h)
{
    const char *l = tu_name("lerr"), *s = tu_name("lstr");
    char big[300];
    mcds_item_t v = item_of("x"), many[MCDS_LIST_PUSH_MAX + 1], *it;
    uint64_t len;
    size_t n, i;

    memset(big, 'k', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    for (i = 0; i <= MCDS_LIST_PUSH_MAX; i++)
        many[i] = v;
    CHECK_ST(mcds_list_push(h, big, MCDS_LIST_TAIL, &v, 1, &len), MCDS_KEY_TOO_LONG);
    CHECK_ST(mcds_list_push(h, "a b", MCDS_LIST_TAIL, &v, 1, &len), MCDS_INVALID);
    CHECK_ST(mcds_list_push(h, l, (mcds_list_end_t)7, &v, 1, &len), MCDS_INVALID);
    CHECK_ST(mcds_list_push(h, l, MCDS_LIST_TAIL, many, MCDS_LIST_PUSH_MAX + 1, &len), MCDS_INVALID);
    CHECK_ST(mcds_list_push(h, l, MCDS_LIST_TAIL, many, MCDS_LIST_PUSH_MAX, &len), MCDS_OK);
    CHECK(len == MCDS_LIST_PUSH_MAX);
    CHECK_ST(mcds_list_pop(h, l, MCDS_LIST_HEAD, 0, 0, &it, &n), MCDS_INVALID);
    CHECK_ST(mcds_list_range(h, l, 0, MCDS_LIST_READ_MAX + 1, &it, &n), MCDS_INVALID);
    CHECK_ST(mcds_list_set(h, big, 0, "x", 1), MCDS_KEY_TOO_LONG);
    CHECK_ST(mcds_list_trim(h, NULL, 0, 1, NULL), MCDS_INVALID);
    CHECK(memcached_set(mcds_memcached(h), s, strlen(s), "v", 1, 0, 0) == MEMCACHED_SUCCESS);
    CHECK_ST(mcds_list_push(h, s, MCDS_LIST_TAIL, &v, 1, &len), MCDS_WRONG_TYPE);
    CHECK_ST(mcds_list_len(h, s, &len), MCDS_WRONG_TYPE);
    CHECK_ST(mcds_list_delete(h, l), MCDS_OK);
    tu_ok("list: bad names, ends, counts; wrong type");
}

static void test_full(mcds_t *h)
{
    const char *l = tu_name("lfull");
    mcds_item_t v[2] = { item_of("1"), item_of("2") };
    uint64_t len = 0;

    CHECK_ST(mcds_list_create(h, l, 2), MCDS_OK);
    CHECK_ST(mcds_list_create(h, l, 9), MCDS_EXISTS);
    CHECK_ST(mcds_list_push(h, l, MCDS_LIST_TAIL, v, 2, &len), MCDS_OK);
    CHECK_ST(mcds_list_push(h, l, MCDS_LIST_TAIL, v, 1, &len), MCDS_FULL);
    CHECK_ST(mcds_list_insert(h, l, 0, "1", 1, "0", 1, &len), MCDS_FULL);
    CHECK_ST(mcds_list_len(h, l, &len), MCDS_OK);
    CHECK(len == 2);
    CHECK_ST(mcds_list_delete(h, l), MCDS_OK);
    tu_ok("list: maxlen gives MCDS_FULL and changes nothing");
}

static void test_too_large(mcds_t *h)
{
    const char *l = tu_name("lbig");
    size_t size = 2 * 1024 * 1024;
    char *big = calloc(1, size);
    mcds_item_t v = { big, size };
    uint64_t len;

    CHECK(big != NULL);
    CHECK_ST(mcds_list_push(h, l, MCDS_LIST_TAIL, &v, 1, &len), MCDS_TOO_LARGE);
    /* The connection is still in step: the next call works. */
    v.len = 10;
    CHECK_ST(mcds_list_push(h, l, MCDS_LIST_TAIL, &v, 1, &len), MCDS_OK);
    CHECK(len == 1);
    CHECK_ST(mcds_list_delete(h, l), MCDS_OK);
    free(big);
    tu_ok("list: a value over -I is MCDS_TOO_LARGE; the connection stays usable");
}

struct pusher {
    const char *servers, *list;
};

static void *push_later(void *arg)
{
    struct pusher *p = arg;
    mcds_t *h = tu_open(p->servers);
    mcds_item_t v = item_of("woken");
    uint64_t len;

    usleep(100 * 1000);
    CHECK_ST(mcds_list_push(h, p->list, MCDS_LIST_TAIL, &v, 1, &len), MCDS_OK);
    mcds_close(h);
    return NULL;
}

static void test_blocking(mcds_t *h)
{
    struct pusher p = { servers, tu_name("lwait") };
    mcds_item_t *it;
    pthread_t t;
    size_t n;

    CHECK(pthread_create(&t, NULL, push_later, &p) == 0);
    CHECK_ST(mcds_list_pop(h, p.list, MCDS_LIST_HEAD, 1, 20000, &it, &n), MCDS_OK);
    CHECK(n == 1 && strcmp(it[0].data, "woken") == 0);
    mcds_items_free(it);
    pthread_join(t, NULL);
    CHECK_ST(mcds_list_pop(h, p.list, MCDS_LIST_HEAD, 1, 100, &it, &n), MCDS_OK);
    CHECK(n == 0);
    CHECK_ST(mcds_list_delete(h, p.list), MCDS_OK);
    tu_ok("list: a waiting pop is woken by another thread's push; a wait ends empty");
}

/* ---- lmove, lmpop, lpos, lpushx ---- */

/* Two names on one server: "{tag}a", "{tag}b". */
static void tagged(const char *tag, char *a, char *b, size_t size)
{
    snprintf(a, size, "{%s}a", tag);
    snprintf(b, size, "{%s}b", tag);
}

static void test_move(mcds_t *h)
{
    char a[128], b[128], all[256];
    mcds_item_t v[3] = { item_of("1"), item_of("2"), item_of("3") }, *it = NULL;
    uint64_t len;

    tagged(tu_name("lmv"), a, b, sizeof a);
    CHECK_ST(mcds_list_move(h, a, b, MCDS_LIST_HEAD, MCDS_LIST_TAIL, 0, &it), MCDS_NOT_FOUND);
    CHECK(it == NULL);
    CHECK_ST(mcds_list_len(h, b, &len), MCDS_NOT_FOUND);
    CHECK_ST(mcds_list_push(h, a, MCDS_LIST_TAIL, v, 3, &len), MCDS_OK);
    CHECK_ST(mcds_list_move(h, a, b, MCDS_LIST_HEAD, MCDS_LIST_TAIL, 0, &it), MCDS_OK);
    CHECK(it != NULL && it[0].len == 1 && strcmp(it[0].data, "1") == 0);
    mcds_items_free(it);
    CHECK_ST(mcds_list_move(h, a, b, MCDS_LIST_TAIL, MCDS_LIST_HEAD, 0, NULL), MCDS_OK);
    joined(h, b, all, sizeof all);
    CHECK(strcmp(all, "3,1") == 0);
    CHECK_ST(mcds_list_move(h, b, b, MCDS_LIST_HEAD, MCDS_LIST_TAIL, 0, NULL), MCDS_OK);
    joined(h, b, all, sizeof all);
    CHECK(strcmp(all, "1,3") == 0);
    CHECK_ST(mcds_list_delete(h, b), MCDS_OK);
    CHECK_ST(mcds_list_create(h, b, 1), MCDS_OK);
    CHECK_ST(mcds_list_push(h, b, MCDS_LIST_TAIL, v, 1, &len), MCDS_OK);
    CHECK_ST(mcds_list_move(h, a, b, MCDS_LIST_HEAD, MCDS_LIST_TAIL, 0, NULL), MCDS_FULL);
    joined(h, a, all, sizeof all);
    CHECK(strcmp(all, "2") == 0);
    CHECK_ST(mcds_list_move(h, a, b, (mcds_list_end_t)3, MCDS_LIST_TAIL, 0, NULL), MCDS_INVALID);
    CHECK_ST(mcds_list_move(h, a, "x y", MCDS_LIST_HEAD, MCDS_LIST_TAIL, 0, NULL), MCDS_INVALID);
    CHECK_ST(mcds_list_delete(h, a), MCDS_OK);
    CHECK_ST(mcds_list_delete(h, b), MCDS_OK);
    tu_ok("list move: ends, rotation, MCDS_NOT_FOUND when empty, MCDS_FULL keeps the element");
}

struct mover {
    const char *servers, *src, *dst;
};

static void *move_waiting(void *arg)
{
    struct mover *m = arg;
    mcds_t *h = tu_open(m->servers);
    mcds_item_t *it = NULL;

    CHECK_ST(mcds_list_move(h, m->src, m->dst, MCDS_LIST_HEAD, MCDS_LIST_HEAD, 20000, &it), MCDS_OK);
    CHECK(it != NULL && strcmp(it[0].data, "w") == 0);
    mcds_items_free(it);
    mcds_close(h);
    return NULL;
}

static void test_move_wait(mcds_t *h)
{
    char a[128], b[128];
    struct mover m = { servers, a, b };
    mcds_item_t v = item_of("w"), *it;
    pthread_t t;
    uint64_t len = 0;
    size_t n;

    tagged(tu_name("lmw"), a, b, sizeof a);
    CHECK(pthread_create(&t, NULL, move_waiting, &m) == 0);
    usleep(100 * 1000);
    CHECK_ST(mcds_list_push(h, a, MCDS_LIST_TAIL, &v, 1, &len), MCDS_OK);
    pthread_join(t, NULL);
    CHECK_ST(mcds_list_len(h, a, &len), MCDS_OK);
    CHECK(len == 0);
    CHECK_ST(mcds_list_pop(h, b, MCDS_LIST_HEAD, 5, 0, &it, &n), MCDS_OK);
    CHECK(n == 1 && strcmp(it[0].data, "w") == 0);
    mcds_items_free(it);
    CHECK_ST(mcds_list_move(h, a, b, MCDS_LIST_HEAD, MCDS_LIST_HEAD, 100, NULL), MCDS_NOT_FOUND);
    CHECK_ST(mcds_list_delete(h, a), MCDS_OK);
    CHECK_ST(mcds_list_delete(h, b), MCDS_OK);
    tu_ok("list move: a waiting move is woken by another thread's push; a wait ends with MCDS_NOT_FOUND");
}

static void test_mpop(mcds_t *h)
{
    char a[128], b[128];
    const char *both[2] = { a, b };
    mcds_item_t v[2] = { item_of("x"), item_of("y") }, *it;
    uint64_t len;
    size_t n, which = 7;

    tagged(tu_name("lmp"), a, b, sizeof a);
    CHECK_ST(mcds_list_mpop(h, both, 2, MCDS_LIST_HEAD, 5, 0, &it, &n, &which), MCDS_OK);
    CHECK(n == 0 && which == SIZE_MAX);
    CHECK_ST(mcds_list_push(h, b, MCDS_LIST_TAIL, v, 2, &len), MCDS_OK);
    CHECK_ST(mcds_list_mpop(h, both, 2, MCDS_LIST_TAIL, 5, 0, &it, &n, &which), MCDS_OK);
    CHECK(n == 2 && which == 1 && strcmp(it[0].data, "y") == 0 && strcmp(it[1].data, "x") == 0);
    mcds_items_free(it);
    CHECK_ST(mcds_list_mpop(h, both, 2, MCDS_LIST_HEAD, 1, 100, &it, &n, NULL), MCDS_OK);
    CHECK(n == 0);
    CHECK_ST(mcds_list_mpop(h, both, 0, MCDS_LIST_HEAD, 1, 0, &it, &n, NULL), MCDS_INVALID);
    CHECK_ST(mcds_list_mpop(h, both, MCDS_LIST_MPOP_MAX + 1, MCDS_LIST_HEAD, 1, 0, &it, &n, NULL),
             MCDS_INVALID);
    CHECK_ST(mcds_list_mpop(h, both, 2, MCDS_LIST_HEAD, 0, 0, &it, &n, NULL), MCDS_INVALID);
    CHECK_ST(mcds_list_delete(h, a), MCDS_OK);
    CHECK_ST(mcds_list_delete(h, b), MCDS_OK);
    tu_ok("list mpop: the first list with elements, its index; empty; bad arguments");
}

static void test_pos_pushx(mcds_t *h)
{
    const char *l = tu_name("lpos");
    mcds_item_t v[6] = { item_of("a"), item_of("b"), item_of("a"), item_of("c"), item_of("a"),
                         item_of("b") };
    uint64_t pos[8], len = 9;
    size_t n = 9;

    CHECK_ST(mcds_list_pos(h, l, "a", 1, 1, 0, pos, 8, &n), MCDS_NOT_FOUND);
    CHECK_ST(mcds_list_pushx(h, l, MCDS_LIST_TAIL, v, 6, &len), MCDS_NOT_FOUND);
    CHECK_ST(mcds_list_len(h, l, &len), MCDS_NOT_FOUND);
    CHECK_ST(mcds_list_create(h, l, 0), MCDS_OK);
    CHECK_ST(mcds_list_pushx(h, l, MCDS_LIST_TAIL, v, 6, &len), MCDS_OK);
    CHECK(len == 6);
    CHECK_ST(mcds_list_pos(h, l, "a", 1, 1, 0, pos, 8, &n), MCDS_OK);
    CHECK(n == 3 && pos[0] == 0 && pos[1] == 2 && pos[2] == 4);
    CHECK_ST(mcds_list_pos(h, l, "a", 1, -1, 0, pos, 2, &n), MCDS_OK);
    CHECK(n == 2 && pos[0] == 4 && pos[1] == 2);
    CHECK_ST(mcds_list_pos(h, l, "b", 1, 2, 0, pos, 1, &n), MCDS_OK);
    CHECK(n == 1 && pos[0] == 5);
    CHECK_ST(mcds_list_pos(h, l, "a", 1, 1, 2, pos, 8, &n), MCDS_OK);
    CHECK(n == 1 && pos[0] == 0);
    CHECK_ST(mcds_list_pos(h, l, "z", 1, 1, 0, pos, 8, &n), MCDS_OK);
    CHECK(n == 0);
    CHECK_ST(mcds_list_pos(h, l, "a", 1, 0, 0, pos, 8, &n), MCDS_INVALID);
    CHECK_ST(mcds_list_pos(h, l, "a", 1, 1, 0, pos, 0, &n), MCDS_INVALID);
    CHECK_ST(mcds_list_pushx(h, l, MCDS_LIST_HEAD, v + 3, 1, &len), MCDS_OK);
    CHECK(len == 7);
    CHECK_ST(mcds_list_delete(h, l), MCDS_OK);
    tu_ok("list pos and pushx: positions from either end, maxlen; pushx only to a list that exists");
}

/* ---- 4 x 4 threads through one list ---- */

static char conc_list[128];
static unsigned char popped[ELEMS];
static int npopped;

/* Pushes its elements (4-byte numbers) in batches at the tail. */
static void *pusher(void *arg)
{
    int p = (int)(intptr_t)arg, i, k;
    uint32_t v[BATCH];
    mcds_item_t items[BATCH];
    mcds_t *h = tu_open(servers);

    for (i = 0; i < PER_PUSHER; i += BATCH) {
        for (k = 0; k < BATCH; k++) {
            v[k] = (uint32_t)(p * PER_PUSHER + i + k);
            items[k].data = (const char *)&v[k];
            items[k].len = sizeof v[k];
        }
        CHECK_ST(mcds_list_push(h, conc_list, MCDS_LIST_TAIL, items, BATCH, NULL), MCDS_OK);
    }
    mcds_close(h);
    return NULL;
}

/* Pops from the head (waiting) until every element was popped; within a
 * pop, one pusher's elements come in the order they were pushed. */
static void *popper(void *arg)
{
    mcds_t *h = tu_open(servers);
    int64_t deadline = tu_now_ms() + 120000;

    (void)arg;
    while (__atomic_load_n(&npopped, __ATOMIC_SEQ_CST) < ELEMS) {
        uint32_t last[PUSHERS] = { 0 }, v;
        int seen_from[PUSHERS] = { 0 };
        mcds_item_t *it;
        size_t n, i;
        CHECK(tu_now_ms() < deadline);
        CHECK_ST(mcds_list_pop(h, conc_list, MCDS_LIST_HEAD, 16, 100, &it, &n), MCDS_OK);
        for (i = 0; i < n; i++) {
            CHECK(it[i].len == sizeof v);
            memcpy(&v, it[i].data, sizeof v);
            CHECK(v < ELEMS);
            CHECK(!seen_from[v / PER_PUSHER] || v > last[v / PER_PUSHER]);
            seen_from[v / PER_PUSHER] = 1;
            last[v / PER_PUSHER] = v;
            CHECK(__atomic_fetch_add(&popped[v], 1, __ATOMIC_SEQ_CST) == 0);
            __atomic_fetch_add(&npopped, 1, __ATOMIC_SEQ_CST);
        }
        mcds_items_free(it);
    }
    mcds_close(h);
    return NULL;
}

static void test_concurrency(mcds_t *h)
{
    pthread_t t[PUSHERS + POPPERS];
    uint64_t len = 99;
    int i;

    snprintf(conc_list, sizeof conc_list, "%s", tu_name("lconc"));
    for (i = 0; i < POPPERS; i++)
        CHECK(pthread_create(&t[i], NULL, popper, NULL) == 0);
    for (i = 0; i < PUSHERS; i++)
        CHECK(pthread_create(&t[POPPERS + i], NULL, pusher, (void *)(intptr_t)i) == 0);
    for (i = 0; i < PUSHERS + POPPERS; i++)
        CHECK(pthread_join(t[i], NULL) == 0);
    for (i = 0; i < ELEMS; i++)
        CHECK(popped[i] == 1);
    CHECK_ST(mcds_list_len(h, conc_list, &len), MCDS_OK);
    CHECK(len == 0);
    CHECK_ST(mcds_list_delete(h, conc_list), MCDS_OK);
    tu_ok("4 pushers x 4 blocking poppers: 20000 elements, each popped once, in order");
}

/* Each list is on exactly one server of the pool: the one libmemcached
 * picks for its key. */
static void test_pool(mcds_t *h)
{
    mcds_t *one[8];
    char copy[1024], *tok, *save = NULL, name[POOL_LISTS][128];
    int nserv = 0, i, j, used = 0, hits[8] = {0};
    mcds_item_t v = item_of("p");
    uint64_t len;

    snprintf(copy, sizeof copy, "%s", servers);
    for (tok = strtok_r(copy, ",", &save); tok && nserv < 8; tok = strtok_r(NULL, ",", &save))
        one[nserv++] = tu_open(tok);
    if (nserv < 2) {
        mcds_close(one[0]);
        printf("# one server: the pool checks need a list of several\n");
        return;
    }
    for (i = 0; i < POOL_LISTS; i++) {
        int at = -1;
        snprintf(name[i], sizeof name[i], "%s-%d", tu_name("pooll"), i);
        CHECK_ST(mcds_list_push(h, name[i], MCDS_LIST_TAIL, &v, 1, &len), MCDS_OK);
        for (j = 0; j < nserv; j++) {
            mcds_status_t st = mcds_list_len(one[j], name[i], &len);
            if (st == MCDS_OK) {
                CHECK(at == -1 && len == 1);
                at = j;
            } else {
                CHECK_ST(st, MCDS_NOT_FOUND);
            }
        }
        CHECK(at >= 0);
        hits[at]++;
        CHECK_ST(mcds_list_delete(h, name[i]), MCDS_OK);
    }
    for (j = 0; j < nserv; j++) {
        used += hits[j] > 0;
        mcds_close(one[j]);
    }
    CHECK(used >= 2);
    tu_ok("list pool: each list on one server; lists spread over the pool");
}

int main(int argc, char **argv)
{
    mcds_t *base;

    servers = tu_init(argc, argv, 120);
    base = tu_open(servers);
    test_verbs(base);
    test_errors(base);
    test_full(base);
    test_too_large(base);
    test_blocking(base);
    test_move(base);
    test_move_wait(base);
    test_mpop(base);
    test_pos_pushx(base);
    test_concurrency(base);
    test_pool(base);
    mcds_close(base);
    return 0;
}
