/*
 * store_queue: queue creation under a key, the dead-letter path, and the
 * mutating queue operations (one function each, all through here).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "store/store_queue.h"

#define STORE_QUEUE_DLQ_SUFFIX ":dead"

static void store_queue_free_item(item *it) {
    queue_free(item_struct(it));
}

static void *store_queue_make(const char *key, size_t nkey, item *self, void *arg) {
    return queue_new(key, nkey, arg, self);
}

void store_queue_defaults(const char *key, size_t nkey, struct queue_opts *o) {
    memset(o, 0, sizeof(*o));
    o->lease_ms = QUEUE_DEFAULT_LEASE_MS;
    o->dedup_window_ms = QUEUE_DEFAULT_DEDUP_MS;
    if (nkey + strlen(STORE_QUEUE_DLQ_SUFFIX) <= sizeof(o->dlq)) {
        memcpy(o->dlq, key, nkey);
        memcpy(o->dlq + nkey, STORE_QUEUE_DLQ_SUFFIX, strlen(STORE_QUEUE_DLQ_SUFFIX));
        o->ndlq = nkey + strlen(STORE_QUEUE_DLQ_SUFFIX);
    }
}

item *store_queue_open(const char *key, size_t nkey, bool create, const struct queue_opts *o,
                       enum store_status *st) {
    struct queue_opts defaults;

    if (o == NULL) {
        store_queue_defaults(key, nkey, &defaults);
        o = &defaults;
    }
    return store_struct_find(key, nkey, ITEM_QUEUE, create ? store_queue_make : NULL,
                             (void *)o, st);
}

struct queue *store_queue_of(item *pin) {
    return item_struct(pin);
}

/* A message past its queue's max deliveries moves, with its id, to the
 * dead-letter queue, created on demand. A key holding something else, a
 * full dead-letter queue or no memory refuse it: it then stays buried in
 * its own queue (logged once per refusal, not per message). */
static bool store_queue_dead(const char *src, size_t nsrc, const char *dlq, size_t ndlq, struct qmsg *m) {
    enum store_status st = STORE_NOT_FOUND;
    item *pin = ndlq > 0 ? store_queue_open(dlq, ndlq, true, NULL, &st) : NULL;
    enum queue_result r = QUEUE_GONE;

    if (pin != NULL) {
        r = queue_push_msg(store_queue_of(pin), m, src, nsrc);
        item_release(pin);
    }
    if (r == QUEUE_OK)
        return true;
    log_msg(1, "dead letter %llu kept buried: dead-letter queue %.*s %s",
            (unsigned long long)m->id, (int)ndlq, dlq,
            st == STORE_WRONG_TYPE ? "holds another type" : r == QUEUE_FULL ? "is full" : "has no room");
    return false;
}

enum store_queue_check store_queue_check_opts(const char *key, size_t nkey, const struct queue_opts *o) {
    enum store_status st;
    item *it;

    if (o->max_deliveries == 0 && o->max_age_ms == 0)
        return STORE_QUEUE_OPTS_OK;
    if (o->ndlq == 0)
        return STORE_QUEUE_DLQ_NEEDED;
    if (o->ndlq == nkey && memcmp(o->dlq, key, nkey) == 0)
        return STORE_QUEUE_DLQ_SELF;
    it = store_struct_find(o->dlq, o->ndlq, ITEM_QUEUE, NULL, NULL, &st);
    if (it != NULL)
        item_release(it);
    return st == STORE_WRONG_TYPE ? STORE_QUEUE_DLQ_WRONG_TYPE : STORE_QUEUE_OPTS_OK;
}

static void store_queue_clock_shifted(void) {
    queue_clock_shifted();
}

void store_queue_init(struct event_base *timer_base) {
    item_set_free_hook(ITEM_QUEUE, store_queue_free_item);
    queue_system_init(timer_base, store_queue_dead);
    clock_on_shift(store_queue_clock_shifted);
}

void store_queue_shutdown(void) {
    queue_system_shutdown();
}

enum queue_result store_queue_push(item *pin, item *payload, uint32_t pri, uint64_t due_ms, uint64_t *id) {
    return queue_push(store_queue_of(pin), payload, pri, due_ms, id);
}

enum queue_result store_queue_push_dedup(item *pin, item **payloads, int n, uint32_t pri, uint64_t due_ms,
                                         const struct queue_dedup_id *dd, const struct queue_group_id *grp,
                                         uint64_t ttl_ms, uint64_t *ids, bool *dup) {
    return queue_push_ttl(store_queue_of(pin), payloads, n, pri, due_ms, dd, grp, ttl_ms, ids, dup);
}

int store_queue_pop(item *pin, int max, uint64_t lease_ms, uint64_t holder, struct qdelivery *out) {
    return queue_pop(store_queue_of(pin), max, lease_ms, holder, out);
}

int store_queue_take(item *pin, struct qdelivery *out) {
    return queue_take(store_queue_of(pin), out);
}

enum queue_result store_queue_ack(item *pin, const struct qreceipt *r, bool held) {
    return queue_ack(store_queue_of(pin), r, held);
}

enum queue_result store_queue_release(item *pin, const struct qreceipt *r, bool held, uint64_t delay_ms) {
    return queue_release(store_queue_of(pin), r, held, delay_ms);
}

enum queue_result store_queue_touch(item *pin, const struct qreceipt *r, bool held, uint64_t lease_ms) {
    return queue_touch(store_queue_of(pin), r, held, lease_ms);
}

void store_queue_unlease(item *pin, const struct qreceipt *r) {
    queue_unlease(store_queue_of(pin), r);
}

enum queue_result store_queue_pause(item *pin, uint64_t until_ms) {
    return queue_pause(store_queue_of(pin), until_ms);
}

uint64_t store_queue_purge(item *pin) {
    return queue_purge(store_queue_of(pin));
}

/* A redrive's source queue: an existing queue only (none is created). */
static struct queue *store_queue_source(const char *name, size_t n, item **pin) {
    enum store_status st;

    *pin = store_queue_open(name, n, false, NULL, &st);
    return *pin != NULL ? store_queue_of(*pin) : NULL;
}

void store_queue_redrive(item *pin, uint64_t max, uint64_t *moved, uint64_t *left) {
    queue_redrive(store_queue_of(pin), max, store_queue_source, moved, left);
}

uint64_t store_queue_kick(item *pin, uint64_t max) {
    return queue_kick_buried(store_queue_of(pin), max);
}
