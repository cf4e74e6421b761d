/*
 * clock: the one server clock. Times inside the server are rel_time_t,
 * seconds since the process started (offset so that 1 is always in the past).
 * A debug verb may shift the clock forward so TTL tests never sleep.
 */
#ifndef MCDS_CLOCK_H
#define MCDS_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

typedef uint32_t rel_time_t;

/* Seconds beyond which an exptime is an absolute Unix time (30 days). */
#define CLOCK_MAX_DELTA (60 * 60 * 24 * 30)

void clock_init(void);
void clock_tick(void);
rel_time_t clock_now(void);
/* Milliseconds on the same clock (shifted by debugtime too), for queue
 * delays and leases; read from the monotonic clock on each call. */
uint64_t clock_now_ms(void);
/* The monotonic clock in microseconds, never shifted: for waits that
 * only measure time (held replies, time slices). */
uint64_t clock_mono_us(void);
/* Called after the clock was shifted (debugtime), from that thread. */
void clock_on_shift(void (*fn)(void));
time_t clock_started(void);
/* Moves the clock (debugtime); false, and nothing moves, when the shift
 * is over 100 years either way or would leave the clock's range. */
bool clock_shift(int64_t seconds);
rel_time_t clock_exptime(int64_t exptime);
/* Server times to and from Unix time, for what is written to disk (the
 * server's own clock starts anew with each process). An exptime of 0
 * (never) stays 0. */
uint64_t clock_to_unix_ms(uint64_t server_ms);
uint64_t clock_from_unix_ms(uint64_t unix_ms);
uint64_t clock_exptime_to_unix(rel_time_t exptime);
rel_time_t clock_exptime_from_unix(uint64_t unix_secs);
int64_t clock_ttl(rel_time_t exptime);

#endif
