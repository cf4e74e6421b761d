/*
 * table_build: indexes added to tables that have rows, built in the
 * background by one thread, in steps of at most TBL_BUILD_STEP rows under
 * the table's write lock, so other clients wait at most one step. The
 * index remembers the last primary key it has indexed: a write to a row
 * at or before it keeps the index in step, a row after it is indexed when
 * the build reaches it (table_index_covers). A build that finds no room
 * under -m drops its index.
 */
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "types/table_int.h"

struct tbl_job {
    struct table *t;            /* referenced */
    uint64_t ixid;
    struct tbl_job *next;
};

static pthread_mutex_t tb_lock = PTHREAD_MUTEX_INITIALIZER;
/* Held through each step, and by a fork (a snapshot): the child never
 * sees an index half linked. */
static pthread_mutex_t tb_step_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t tb_once = PTHREAD_ONCE_INIT;
static pthread_cond_t tb_cond = PTHREAD_COND_INITIALIZER;
static struct tbl_job *tb_head, *tb_tail;
static pthread_t tb_thread;
static bool tb_running, tb_stop;

static void *tb_main(void *arg);

static void tb_fork_prepare(void) {
    pthread_mutex_lock(&tb_step_lock);
}

static void tb_fork_done(void) {
    pthread_mutex_unlock(&tb_step_lock);
}

static void tb_atfork(void) {
    pthread_atfork(tb_fork_prepare, tb_fork_done, tb_fork_done);
}

void table_build_start(struct table *t, struct tbl_index *ix) {
    struct tbl_job *j = calloc(1, sizeof(*j));

    if (j == NULL) {        /* built at once instead: the caller holds the lock */
        ix->building = false;
        log_msg(0, "table %.*s: no memory for a background build; index %s left empty", (int)t->nname, t->name,
                ix->def.name);
        return;
    }
    pthread_once(&tb_once, tb_atfork);
    table_ref(t);
    j->t = t;
    j->ixid = ix->id;
    pthread_mutex_lock(&tb_lock);
    if (tb_tail != NULL)
        tb_tail->next = j;
    else
        tb_head = j;
    tb_tail = j;
    if (!tb_running && pthread_create(&tb_thread, NULL, tb_main, NULL) == 0)
        tb_running = true;
    pthread_cond_signal(&tb_cond);
    pthread_mutex_unlock(&tb_lock);
}

static struct tbl_index *tb_index(struct table *t, uint64_t ixid, int *slot) {
    int i;

    for (i = 0; i < t->nidx; i++)
        if (t->idx[i]->id == ixid) {
            *slot = i;
            return t->idx[i];
        }
    return NULL;
}

/* Drops the index in slot i (no room to build it). */
static void tb_fail(struct table *t, int i) {
    log_msg(1, "table %.*s: no room to build index %s, dropped", (int)t->nname, t->name, t->idx[i]->def.name);
    table_index_free(t, t->idx[i]);
    memmove(&t->idx[i], &t->idx[i + 1], (size_t)(t->nidx - i - 1) * sizeof(t->idx[0]));
    t->nidx--;
    table_stat_build_failed();
}

/* One step under the write lock: true when the job is over. */
static bool tb_step(struct table *t, uint64_t ixid) {
    struct tbl_index *ix;
    struct tskip_node *n, *e;
    uint8_t *mark;
    int slot, k;

    if (t->dropped || (ix = tb_index(t, ixid, &slot)) == NULL)
        return true;
    n = ix->built != NULL ? tskip_seek(&t->idx[0]->sl, ix->built, ix->nbuilt, true)
                          : tskip_seek(&t->idx[0]->sl, NULL, 0, false);
    for (k = 0; k < TBL_BUILD_STEP && n != NULL; k++, n = tskip_next(n)) {
        struct tbl_row *r = n->val;

        if (!table_room(table_entry_size(t, ix, r->v) + 64) || (e = table_entry_node(t, ix, r->v, r)) == NULL ||
            (mark = realloc(ix->built, n->klen > 0 ? n->klen : 1)) == NULL) {
            tb_fail(t, slot);
            return true;
        }
        tskip_insert(&ix->sl, e);
        table_stat_entries(1);
        table_charge(t, (long)tskip_node_size(e));
        memcpy(mark, tskip_key(n), n->klen);
        ix->built = mark;
        ix->nbuilt = n->klen;
    }
    if (n != NULL)
        return false;
    ix->building = false;
    free(ix->built);
    ix->built = NULL;
    ix->nbuilt = 0;
    return true;
}

void table_build_now(struct table *t, struct tbl_index *ix) {
    while (!tb_step(t, ix->id))
        ;
}

static void *tb_main(void *arg) {
    (void)arg;
    pthread_mutex_lock(&tb_lock);
    for (;;) {
        struct tbl_job *j;
        bool over;

        while (!tb_stop && tb_head == NULL)
            pthread_cond_wait(&tb_cond, &tb_lock);
        if (tb_stop)
            break;
        j = tb_head;
        tb_head = j->next;
        if (tb_head == NULL)
            tb_tail = NULL;
        j->next = NULL;
        pthread_mutex_unlock(&tb_lock);
        pthread_mutex_lock(&tb_step_lock);
        pthread_rwlock_wrlock(&j->t->lock);
        over = tb_step(j->t, j->ixid);
        pthread_rwlock_unlock(&j->t->lock);
        pthread_mutex_unlock(&tb_step_lock);
        if (over) {
            table_put(j->t);
            free(j);
        }
        pthread_mutex_lock(&tb_lock);
        if (!over) {
            if (tb_tail != NULL)
                tb_tail->next = j;
            else
                tb_head = j;
            tb_tail = j;
        }
    }
    pthread_mutex_unlock(&tb_lock);
    return NULL;
}

void table_build_shutdown(void) {
    struct tbl_job *j;

    pthread_mutex_lock(&tb_lock);
    tb_stop = true;
    pthread_cond_signal(&tb_cond);
    pthread_mutex_unlock(&tb_lock);
    if (tb_running)
        pthread_join(tb_thread, NULL);
    tb_running = false;
    while ((j = tb_head) != NULL) {
        tb_head = j->next;
        table_put(j->t);
        free(j);
    }
    tb_tail = NULL;
}
