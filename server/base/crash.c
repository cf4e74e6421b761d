/*
 * crash: a report on stderr (and in the --log-file) when the server dies
 * of a fault (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT): the signal, the
 * faulting address and the calling thread's stack, as Redis's crash
 * report gives, then the default action (a core file where the limits
 * allow one). A crash seen once in a test run can then be read from the
 * log it left.
 *
 * The handler uses write(2) and backtrace_symbols_fd(3) only; backtrace
 * is called once at start-up so that it loads its unwinder then, not in
 * the handler. A fault handler installed before ours (a sanitizer's) is
 * left in place.
 */
#include <execinfo.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "base/crash.h"

#define CRASH_FRAMES 64

static int crash_fds[2] = { 2, -1 };    /* stderr, the log file */

/* Appends s to buf at *n (bounded by cap). */
static void crash_cat(char *buf, size_t cap, size_t *n, const char *s) {
    while (*s != '\0' && *n + 1 < cap)
        buf[(*n)++] = *s++;
}

/* Appends v in hexadecimal. */
static void crash_hex(char *buf, size_t cap, size_t *n, uintptr_t v) {
    char digits[2 + 2 * sizeof(v) + 1];
    int i = (int)sizeof(digits) - 1;

    digits[i] = '\0';
    do {
        digits[--i] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v != 0 && i > 2);
    digits[--i] = 'x';
    digits[--i] = '0';
    crash_cat(buf, cap, n, digits + i);
}

static void crash_write_all(int fd, const char *s, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

static void crash_handler(int sig, siginfo_t *info, void *uctx) {
    void *frames[CRASH_FRAMES];
    char line[256];
    size_t n = 0;
    int depth, i;

    (void)uctx;
    crash_cat(line, sizeof(line), &n, "\n=== mcds-server crashed: signal ");
    crash_cat(line, sizeof(line), &n, sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS"
                                      : sig == SIGFPE ? "SIGFPE" : sig == SIGILL ? "SIGILL" : "SIGABRT");
    crash_cat(line, sizeof(line), &n, ", address ");
    crash_hex(line, sizeof(line), &n, (uintptr_t)(info != NULL ? info->si_addr : NULL));
    crash_cat(line, sizeof(line), &n, "; stack of the faulting thread (addr2line -e mcds-server -f the +0x offsets):\n");
    depth = backtrace(frames, CRASH_FRAMES);
    for (i = 0; i < 2; i++) {
        if (crash_fds[i] < 0)
            continue;
        crash_write_all(crash_fds[i], line, n);
        backtrace_symbols_fd(frames, depth, crash_fds[i]);
        crash_write_all(crash_fds[i], "=== end of the crash report\n", 28);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

void crash_init(void) {
    static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
    struct sigaction sa, old;
    void *warm[1];
    unsigned i;

    backtrace(warm, 1);
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = crash_handler;
    sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
            sigaction(sigs[i], &sa, NULL);
}

void crash_log_fd(int fd) {
    crash_fds[1] = fd;
}
