/*
 * log: the server's log lines, on stderr or in a file (--log-file), one
 * line per call: a UTC timestamp, the program name, the message.
 *
 * Bytes that are not printable (control characters, a client's key with a
 * line break in it) are written as \xNN, so no client can forge a log
 * line. The level may change at run time (the `verbosity` verb) and the
 * file may be reopened (SIGHUP, after a rotation), from any thread.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "base/crash.h"
#include "base/log.h"

#define LOG_LINE_MAX 1024

static int log_verbosity;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *log_file;          /* NULL: stderr */
static char *log_path;
static int log_child_fd = -1;   /* a forked child's lines go here, unlocked */

void log_set_level(int level) {
    __atomic_store_n(&log_verbosity, level, __ATOMIC_RELAXED);
}

int log_level(void) {
    return __atomic_load_n(&log_verbosity, __ATOMIC_RELAXED);
}

int log_open(const char *path) {
    FILE *f = fopen(path, "a");

    if (f == NULL)
        return -1;
    setvbuf(f, NULL, _IOLBF, 0);
    pthread_mutex_lock(&log_lock);
    if (log_file != NULL)
        fclose(log_file);
    log_file = f;
    crash_log_fd(fileno(f));
    if (path != log_path) {
        free(log_path);
        log_path = strdup(path);
    }
    pthread_mutex_unlock(&log_lock);
    return 0;
}

void log_reopen(void) {
    if (log_path == NULL) {
        log_msg(0, "SIGHUP: logging to stderr, nothing to reopen");
        return;
    }
    if (log_open(log_path) < 0)
        log_msg(0, "SIGHUP: cannot reopen %s: %s; still writing to the old file", log_path, strerror(errno));
    else
        log_msg(0, "SIGHUP: log file %s reopened", log_path);
}

void log_close(void) {
    pthread_mutex_lock(&log_lock);
    crash_log_fd(-1);
    if (log_file != NULL)
        fclose(log_file);
    log_file = NULL;
    free(log_path);
    log_path = NULL;
    pthread_mutex_unlock(&log_lock);
}

/* Copies src into dst (room for n bytes, NUL included) with every byte
 * outside printable ASCII written as \xNN (a backslash as \\). */
static void log_escape(char *dst, size_t n, const char *src) {
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;

    for (; *src != '\0' && o + 5 < n; src++) {
        unsigned char ch = (unsigned char)*src;
        if (ch >= 0x20 && ch < 0x7f && ch != '\\') {
            dst[o++] = (char)ch;
        } else if (ch == '\\') {
            dst[o++] = '\\';
            dst[o++] = '\\';
        } else {
            dst[o++] = '\\';
            dst[o++] = 'x';
            dst[o++] = hex[ch >> 4];
            dst[o++] = hex[ch & 15];
        }
    }
    dst[o] = '\0';
}

void log_to_parent(int fd) {
    log_child_fd = fd;
}

/* A forked child's line: no lock (another thread of the parent may have
 * held it at the fork) and no timestamp (the parent adds its own). */
static void log_child_line(const char *line) {
    size_t n = strlen(line);
    char buf[LOG_LINE_MAX * 4 + 2];

    memcpy(buf, line, n);
    buf[n++] = '\n';
    if (write(log_child_fd, buf, n) < 0)
        return;     /* the parent is gone: nobody to tell */
}

void log_msg(int level, const char *fmt, ...) {
    char raw[LOG_LINE_MAX], line[LOG_LINE_MAX * 4], stamp[32];
    struct timeval tv;
    struct tm tm;
    va_list ap;

    if (level > log_level())
        return;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof(raw), fmt, ap);
    va_end(ap);
    log_escape(line, sizeof(line), raw);
    if (log_child_fd >= 0) {
        log_child_line(line);
        return;
    }
    gettimeofday(&tv, NULL);
    gmtime_r(&tv.tv_sec, &tm);
    strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
    pthread_mutex_lock(&log_lock);
    fprintf(log_file != NULL ? log_file : stderr, "%s.%03dZ mcds-server: %s\n", stamp,
            (int)(tv.tv_usec / 1000), line);
    pthread_mutex_unlock(&log_lock);
}
