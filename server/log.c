/*
 * log: the server's log lines on stderr, one line per call, prefixed with
 * the program name. The verbosity level may change at run time (the
 * `verbosity` verb), so it is read atomically.
 */
#include <stdarg.h>
#include <stdio.h>

#include "log.h"

static int log_verbosity;

void log_set_level(int level) {
    __atomic_store_n(&log_verbosity, level, __ATOMIC_RELAXED);
}

int log_level(void) {
    return __atomic_load_n(&log_verbosity, __ATOMIC_RELAXED);
}

void log_msg(int level, const char *fmt, ...) {
    char line[1024];
    va_list ap;

    if (level > log_level())
        return;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, "mcds-server: %s\n", line);
}
