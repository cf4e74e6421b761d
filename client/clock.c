/*
 * clock.c - time, sleeping, randomness and retry backoff.
 *
 * Every wait in libmcds goes through mcds__backoff: a randomized, doubling
 * sleep that never runs past the caller's deadline. Nothing spins.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "mcds_int.h"

int64_t mcds__now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t mcds__mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void mcds__sleep_ms(unsigned ms)
{
    struct timespec ts;
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (long)(ms % 1000) * 1000000L;
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        continue;
}

static size_t read_urandom(void *buf, size_t len)
{
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    ssize_t n;
    if (fd < 0)
        return 0;
    n = read(fd, buf, len);
    close(fd);
    return n > 0 ? (size_t)n : 0;
}

/* splitmix64: spreads weak seeds over all bits. */
static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

void mcds__random_bytes(void *buf, size_t len)
{
    ssize_t n = getrandom(buf, len, GRND_NONBLOCK);
    uint64_t seed;
    size_t i;

    if (n == (ssize_t)len || read_urandom(buf, len) == len)
        return;
    seed = (uint64_t)mcds__now_ms() ^ ((uint64_t)getpid() << 32) ^
           (uint64_t)(uintptr_t)buf;
    for (i = 0; i < len; i++) {
        seed = mix64(seed + i);
        ((unsigned char *)buf)[i] = (unsigned char)seed;
    }
}

uint64_t mcds__rand(mcds_t *h)
{
    uint64_t x = h->rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    h->rng = x;
    return x;
}

int mcds__backoff(mcds_t *h, unsigned *delay_ms, unsigned cap_ms,
                  int64_t deadline)
{
    int64_t left = deadline - mcds__mono_ms();
    unsigned d = *delay_ms ? *delay_ms : 1;
    unsigned sleep_ms = d / 2 + (unsigned)(mcds__rand(h) % (d - d / 2 + 1));

    if (left <= 0)
        return 0;
    if (sleep_ms == 0)
        sleep_ms = 1;
    if ((int64_t)sleep_ms > left)
        sleep_ms = (unsigned)left;
    mcds__sleep_ms(sleep_ms);
    *delay_ms = d * 2 > cap_ms ? cap_ms : d * 2;
    return 1;
}
