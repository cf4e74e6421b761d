/*
 * store_queue: queue creation under a key, the dead-letter path, and the
 * mutating queue operations (one function each, all through here).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "log.h"
#include "store_queue.h"

#define STORE_QUEUE_DLQ_SUFFIX ":dead"

static void store_queue_free_item(item *it) {
    queue_free(store_struct_of(it));
}

static void *store_queue_make(const char *key, size_t nkey, item *self, void *arg) {
    return queue_new(key, nkey, arg, self);
}

void store_queue_defaults(const char *key, size_t nkey, struct queue_opts *o) {
    memset(o, 0, sizeof(*o));
    o->lease_ms = QUEUE_DEFAULT_LEASE_MS;
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
    return store_struct_of(pin);
}

/* A message past its queue's max deliveries goes to the dead-letter
 * queue, created on demand. Only a key holding something else, or no
 * memory for the queue itself, can refuse it; that is logged. */
static void store_queue_dead(const char *dlq, size_t ndlq, struct qmsg *m) {
    enum store_status st = STORE_NOT_FOUND;
    item *pin = ndlq > 0 ? store_queue_open(dlq, ndlq, true, NULL, &st) : NULL;
    uint64_t id;

    if (pin != NULL && queue_push(store_queue_of(pin), m->payload, m->pri, 0, &id) == QUEUE_OK) {
        m->payload = NULL;
        item_mem_charge(-(long)sizeof(*m));
        free(m);
    } else {
        log_msg(0, "dead letter %llu dropped: dead-letter queue %.*s %s",
                (unsigned long long)m->id, (int)ndlq, dlq,
                st == STORE_WRONG_TYPE ? "holds another type" : "cannot take it");
        queue_msg_free(m);
    }
    if (pin != NULL)
        item_release(pin);
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

int store_queue_pop(item *pin, int max, uint64_t lease_ms, struct qdelivery *out) {
    return queue_pop(store_queue_of(pin), max, lease_ms, out);
}

int store_queue_take(item *pin, struct qdelivery *out) {
    return queue_take(store_queue_of(pin), out);
}

enum queue_result store_queue_ack(item *pin, uint64_t id) {
    return queue_ack(store_queue_of(pin), id);
}

enum queue_result store_queue_release(item *pin, uint64_t id, uint64_t delay_ms) {
    return queue_release(store_queue_of(pin), id, delay_ms);
}

enum queue_result store_queue_touch(item *pin, uint64_t id, uint64_t lease_ms) {
    return queue_touch(store_queue_of(pin), id, lease_ms);
}

uint64_t store_queue_purge(item *pin) {
    return queue_purge(store_queue_of(pin));
}
