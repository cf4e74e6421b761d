/*
 * repl/fullsync: receiving a snapshot into the data directory, and the
 * restart in place (exec) that loads it.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/log.h"
#include "base/quiesce.h"
#include "base/settings.h"
#include "persist/files.h"
#include "persist/persist.h"
#include "repl/fullsync.h"
#include "repl/lineage.h"
#include "repl/primary.h"
#include "repl/repl.h"

#define FULLSYNC_ENV "MCDS_REPLICAOF"

#define FULLSYNC_SIGNAL (SIGRTMIN + 3)   /* asks the main thread to exec */

static char **fullsync_argv;
static char **fullsync_exec_argv;       /* what the exec runs with */
static char fullsync_self[PATH_MAX];    /* this program, resolved at start-up */
static pthread_t fullsync_main;         /* the thread that calls exec */
static void (*fullsync_before_exec)(void);

void fullsync_set_exec_hook(void (*fn)(void)) {
    fullsync_before_exec = fn;
}

void fullsync_set_argv(char **argv) {
    ssize_t n = readlink("/proc/self/exe", fullsync_self, sizeof(fullsync_self) - 1);
    sigset_t set;

    fullsync_argv = argv;
    fullsync_self[n > 0 ? n : 0] = '\0';
    fullsync_main = pthread_self();
    /* A restart in place execs from the signal's handler, where the
     * signal is blocked, and exec keeps the mask: unblock it again. */
    sigemptyset(&set);
    sigaddset(&set, FULLSYNC_SIGNAL);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

/* On the main thread: execv is async-signal-safe. */
static void fullsync_on_signal(int sig) {
    (void)sig;
    execv(fullsync_self, fullsync_exec_argv);
    _exit(70);
}

/* The exec, from the main thread: exec from another thread leaves the
 * process's first thread a zombie for a moment, and whoever watches the
 * pid (a supervisor, a test) may take the server for dead. */
static void fullsync_exec_on_main(char **argv) {
    struct sigaction sa;
    sigset_t set;

    fullsync_exec_argv = argv;
    if (pthread_equal(pthread_self(), fullsync_main))
        fullsync_on_signal(0);
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = fullsync_on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(FULLSYNC_SIGNAL, &sa, NULL);
    sigemptyset(&set);
    sigaddset(&set, FULLSYNC_SIGNAL);
    pthread_sigmask(SIG_BLOCK, &set, NULL);     /* this thread never takes it */
    pthread_kill(fullsync_main, FULLSYNC_SIGNAL);
    sleep(5);
    fullsync_on_signal(0);      /* the main thread did not take it: exec from here */
}

static void fullsync_tmp_path(char *buf, size_t n) {
    snprintf(buf, n, "%s/replsnap.incoming", settings.data_dir);   /* not *.tmp: files_list removes those */
}

/* Writes bytes of in into the temporary snapshot and syncs it: 0 or -1. */
static int fullsync_receive(struct stream_in *in, uint64_t bytes, const bool *stop) {
    char path[PATH_MAX];
    uint64_t got = 0;
    int fd, rc = 0;

    fullsync_tmp_path(path, sizeof(path));
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        log_msg(0, "replication: cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    while (rc == 0 && got < bytes && !__atomic_load_n(stop, __ATOMIC_ACQUIRE)) {
        size_t have = in->end - in->start, want = bytes - got < have ? (size_t)(bytes - got) : have;
        if (want == 0) {
            ssize_t r = stream_in_fill(in, settings.repl_timeout * 1000);
            rc = r == 0 || r == -1 || r == -2 ? -1 : 0;
            continue;
        }
        if (write(fd, in->buf + in->start, want) != (ssize_t)want)
            rc = -1;
        in->start += want;
        got += want;
    }
    if (rc == 0 && (got < bytes || fsync(fd) < 0))
        rc = -1;
    close(fd);
    if (rc < 0)
        unlink(path);
    return rc;
}

/* Every snapshot and log file goes; the received snapshot (when bytes >
 * 0) becomes snap.<pos>. */
static int fullsync_replace_files(uint64_t pos, uint64_t bytes) {
    struct persist_files *f = malloc(sizeof(*f));
    char tmp[PATH_MAX], path[PATH_MAX + 40];
    int i, rc = 0;

    if (f == NULL || files_list(settings.data_dir, f, true) < 0) {
        free(f);
        return -1;
    }
    for (i = 0; i < f->nlogs; i++)
        files_remove(settings.data_dir, "log", f->logs[i]);
    for (i = 0; i < f->nsnaps; i++)
        files_remove(settings.data_dir, "snap", f->snaps[i]);
    free(f);
    fullsync_tmp_path(tmp, sizeof(tmp));
    files_path(path, sizeof(path), settings.data_dir, "snap", pos);
    if (bytes > 0 && rename(tmp, path) < 0) {
        log_msg(0, "replication: cannot rename %s: %s", tmp, strerror(errno));
        rc = -1;
    }
    return rc;
}

/* Holds every thread for good and stops persistence: nothing changes the
 * data directory any more. -1 (nothing held) when *stop is set first (a
 * promotion, a shutdown: holds fail once the server stops). */
static int fullsync_freeze(const bool *stop) {
    while (quiesce_hold(200) < 0) {
        if (stop != NULL && __atomic_load_n(stop, __ATOMIC_ACQUIRE))
            return -1;
        usleep(10000);
    }
    while (persist_snapshot_running())
        usleep(10000);
    primary_stop();         /* its senders read the log and own sockets: gone before the exec */
    persist_stop();
    return 0;
}

/* exec of this program with its arguments, and -p the port it listens
 * on (-p 0 picked it), as a replica of primary. */
static void fullsync_exec(const char *primary) {
    struct rlimit rl;
    char port[16], **argv;
    int fd, max = 1024, n = 0;

    if (fullsync_argv == NULL || fullsync_self[0] == '\0')
        return;
    while (fullsync_argv[n] != NULL)
        n++;
    if ((argv = calloc((size_t)n + 3, sizeof(*argv))) == NULL)
        return;
    memcpy(argv, fullsync_argv, (size_t)n * sizeof(*argv));
    snprintf(port, sizeof(port), "%d", settings.port);
    if (settings.port > 0 && settings.socket_path == NULL) {
        argv[n++] = "-p";
        argv[n++] = port;
    }
    setenv(FULLSYNC_ENV, primary, 1);
    if (fullsync_before_exec != NULL)
        fullsync_before_exec();
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        max = (int)rl.rlim_cur;
    log_msg(0, "replication: restarting in place as a replica of %s", primary);
    for (fd = 3; fd < max; fd++)
        close(fd);      /* clients see their connection close */
    fullsync_exec_on_main(argv);
}

int fullsync_install(struct stream_in *in, const char *primary, const char *lineage, uint64_t pos,
                     uint64_t bytes, const bool *stop) {
    struct lineage l = { .start = pos };
    char path[PATH_MAX];

    if (fullsync_receive(in, bytes, stop) < 0 || __atomic_load_n(stop, __ATOMIC_ACQUIRE))
        return -1;
    snprintf(l.id, sizeof(l.id), "%s", lineage);
    snprintf(path, sizeof(path), "%s/lineage", settings.data_dir);
    if (fullsync_freeze(stop) < 0)
        return -1;
    /* Without a lineage, a start-up resyncs in full whatever the files
     * hold: so it goes first, and comes back last. */
    unlink(path);
    if (fullsync_replace_files(pos, bytes) == 0 && lineage_save(settings.data_dir, &l) == 0)
        log_msg(0, "replication: full resync: the snapshot at %llu (%llu bytes) is installed",
                (unsigned long long)pos, (unsigned long long)bytes);
    else
        sleep(1);       /* the restart resyncs again: not in a tight loop */
    fullsync_exec(primary);
    return -1;
}

void fullsync_restart(const char *primary, const bool *stop) {
    if (fullsync_freeze(stop) == 0)
        fullsync_exec(primary);
}

const char *fullsync_env(void) {
    return getenv(FULLSYNC_ENV);
}
