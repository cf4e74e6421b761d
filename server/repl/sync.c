/*
 * repl/sync: the counts and the wake-up of synchronous acknowledgement.
 * The positions replicas acknowledged are the senders' (primary.c).
 */
#include <unistd.h>

#include "base/settings.h"
#include "repl/primary.h"
#include "repl/repl.h"
#include "repl/sync.h"

static struct {
    void (*wake)(void);
    bool stopping;              /* atomic */
    int64_t waiting;            /* atomic: connections waiting */
    uint64_t timeouts;          /* atomic: changes answered unconfirmed */
} syncack;

void sync_set_waker(void (*wake)(void)) {
    syncack.wake = wake;
}

void sync_wake(void) {
    if (syncack.wake != NULL && __atomic_load_n(&syncack.waiting, __ATOMIC_ACQUIRE) > 0)
        syncack.wake();
}

bool sync_on(void) {
    return settings.min_replicas_ack > 0 && !repl_is_replica();
}

int sync_count(uint64_t lsn) {
    return primary_acked_count(lsn);
}

bool sync_confirmed(uint64_t lsn) {
    return !sync_on() || primary_acked_count(lsn) >= settings.min_replicas_ack;
}

bool sync_hopeless(void) {
    return __atomic_load_n(&syncack.stopping, __ATOMIC_ACQUIRE) || primary_connected() < settings.min_replicas_ack;
}

void sync_set_stopping(bool on) {
    __atomic_store_n(&syncack.stopping, on, __ATOMIC_RELEASE);
    sync_wake();
}

bool sync_stopping(void) {
    return __atomic_load_n(&syncack.stopping, __ATOMIC_ACQUIRE);
}

void sync_drain(unsigned ms) {
    unsigned waited = 0;

    while (__atomic_load_n(&syncack.waiting, __ATOMIC_ACQUIRE) > 0 && waited < ms) {
        usleep(1000);
        waited++;
    }
}

bool sync_anyone_waiting(void) {
    return __atomic_load_n(&syncack.waiting, __ATOMIC_ACQUIRE) > 0;
}

void sync_note_waiting(int delta) {
    __atomic_add_fetch(&syncack.waiting, delta, __ATOMIC_ACQ_REL);
}

void sync_note_timeout(void) {
    __atomic_add_fetch(&syncack.timeouts, 1, __ATOMIC_RELAXED);
}

void sync_stats(stats_emit_fn emit, void *ctx) {
    int64_t w = __atomic_load_n(&syncack.waiting, __ATOMIC_RELAXED);

    stats_emit_u64(emit, ctx, "repl_min_replicas_ack", (uint64_t)settings.min_replicas_ack);
    stats_emit_u64(emit, ctx, "repl_min_replicas_timeout_ms", (uint64_t)settings.min_replicas_timeout);
    stats_emit_u64(emit, ctx, "repl_sync_waiting", w > 0 ? (uint64_t)w : 0);
    stats_emit_u64(emit, ctx, "repl_sync_timeouts", __atomic_load_n(&syncack.timeouts, __ATOMIC_RELAXED));
}
