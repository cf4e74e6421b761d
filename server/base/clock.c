/*
 * clock: the one server clock.
 *
 * clock_now() is read on every request, so it is a plain atomic load of a
 * value that clock_tick() refreshes from the monotonic clock once a second
 * (and clock_shift() moves at once). Like memcached, relative time starts
 * at 2 so that an exptime of 1 always means "already expired", and its
 * seconds are the wall clock's: clock_started() + clock_now() is the Unix
 * second now (or the one before, between two ticks), never the next.
 */
#include <time.h>

#include "base/clock.h"

#define CLOCK_EPOCH_SLACK 2
#define CLOCK_SHIFT_MAX (100LL * 365 * 86400)  /* one debugtime step: 100 years */

static time_t clock_start_wall;       /* wall time matching rel time 0 */
static uint64_t clock_start_wall_ms;  /* the same in milliseconds */
static struct timespec clock_start_mono;
static int64_t clock_start_wall_ns;   /* the wall clock's part of a second at the start */
static rel_time_t clock_current;
static int64_t clock_offset;          /* debug shift, seconds */
static void (*clock_shift_hook)(void);

/* The wall clock's whole seconds since the start (as the monotonic clock
 * counts them): rel time and clock_start_wall add up to the Unix second
 * now, so an expiry turned into a Unix second and back by another process
 * (a restart, a replica) is the same second, never one later. */
static rel_time_t clock_compute(void) {
    struct timespec now;
    int64_t ns, secs;

    clock_gettime(CLOCK_MONOTONIC, &now);
    ns = (int64_t)(now.tv_sec - clock_start_mono.tv_sec) * 1000000000 +
         (now.tv_nsec - clock_start_mono.tv_nsec) + clock_start_wall_ns;
    secs = ns / 1000000000;
    secs += __atomic_load_n(&clock_offset, __ATOMIC_RELAXED);
    return (rel_time_t)(secs + CLOCK_EPOCH_SLACK);
}

void clock_init(void) {
    struct timespec wall;

    clock_gettime(CLOCK_MONOTONIC, &clock_start_mono);
    clock_gettime(CLOCK_REALTIME, &wall);
    clock_start_wall = wall.tv_sec - CLOCK_EPOCH_SLACK;
    clock_start_wall_ns = wall.tv_nsec;
    clock_start_wall_ms = (uint64_t)wall.tv_sec * 1000 + (uint64_t)(wall.tv_nsec / 1000000) -
                          CLOCK_EPOCH_SLACK * 1000;
    clock_offset = 0;
    clock_current = clock_compute();
}

void clock_tick(void) {
    __atomic_store_n(&clock_current, clock_compute(), __ATOMIC_RELAXED);
}

rel_time_t clock_now(void) {
    return __atomic_load_n(&clock_current, __ATOMIC_RELAXED);
}

time_t clock_started(void) {
    return clock_start_wall;
}

bool clock_shift(int64_t seconds) {
    int64_t now = (int64_t)clock_compute();

    /* The clock stays within rel_time_t's positive range, past its start. */
    if (seconds > CLOCK_SHIFT_MAX || seconds < -CLOCK_SHIFT_MAX || now + seconds < CLOCK_EPOCH_SLACK ||
        now + seconds > INT32_MAX)
        return false;
    __atomic_add_fetch(&clock_offset, seconds, __ATOMIC_RELAXED);
    clock_tick();
    if (clock_shift_hook != NULL)
        clock_shift_hook();
    return true;
}

void clock_on_shift(void (*fn)(void)) {
    clock_shift_hook = fn;
}

uint64_t clock_mono_us(void) {
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

uint64_t clock_now_ms(void) {
    struct timespec now;
    int64_t ms;

    clock_gettime(CLOCK_MONOTONIC, &now);
    ms = (int64_t)(now.tv_sec - clock_start_mono.tv_sec) * 1000 +
         (now.tv_nsec - clock_start_mono.tv_nsec) / 1000000;
    ms += __atomic_load_n(&clock_offset, __ATOMIC_RELAXED) * 1000;
    return (uint64_t)(ms + CLOCK_EPOCH_SLACK * 1000);
}

/* Turns a protocol exptime into server time: 0 never expires, negative
 * means already expired, up to 30 days is relative, above is Unix time. */
rel_time_t clock_exptime(int64_t exptime) {
    if (exptime == 0)
        return 0;
    if (exptime < 0)
        return 1;
    if (exptime > CLOCK_MAX_DELTA) {
        if (exptime - clock_start_wall <= 1)
            return 1;
        return (rel_time_t)(exptime - clock_start_wall);
    }
    return (rel_time_t)(exptime + clock_now());
}

/* Seconds left before exptime, -1 for "never". */
int64_t clock_ttl(rel_time_t exptime) {
    if (exptime == 0)
        return -1;
    if (exptime <= clock_now())
        return 0;
    return (int64_t)exptime - clock_now();
}

uint64_t clock_to_unix_ms(uint64_t server_ms) {
    return clock_start_wall_ms + server_ms;
}

uint64_t clock_from_unix_ms(uint64_t unix_ms) {
    return unix_ms > clock_start_wall_ms ? unix_ms - clock_start_wall_ms : 0;
}

uint64_t clock_exptime_to_unix(rel_time_t exptime) {
    return exptime == 0 ? 0 : (uint64_t)clock_start_wall + exptime;
}

rel_time_t clock_exptime_from_unix(uint64_t unix_secs) {
    if (unix_secs == 0)
        return 0;
    if (unix_secs <= (uint64_t)clock_start_wall + 1)
        return 1;       /* already expired */
    return (rel_time_t)(unix_secs - (uint64_t)clock_start_wall);
}
