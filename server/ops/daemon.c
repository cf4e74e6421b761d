/*
 * daemon: -d, -P, -u and -k (see daemon.h).
 *
 * The fork happens before any thread starts. The parent keeps the read
 * end of a pipe: one byte from the child means it listens and serves;
 * the pipe closing without one means start-up failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ops/daemon.h"
#include "base/log.h"
#include "base/settings.h"

static int daemon_pipe = -1;        /* the child's write end */
static bool daemon_pid_written;

/* The parent: waits for the child's word, exits with its outcome. */
static void daemon_parent(int rfd, pid_t child) {
    char b;
    ssize_t n;

    do {
        n = read(rfd, &b, 1);
    } while (n < 0 && errno == EINTR);
    if (n == 1)
        _exit(0);
    waitpid(child, NULL, WNOHANG);
    fprintf(stderr, "mcds-server: the server failed to start (see its log)\n");
    _exit(1);
}

/* The child: a new session, stdin and stdout on /dev/null; stderr too
 * unless it is the log (no --log-file) and -v asked for it. */
static void daemon_detach(void) {
    int fd = open("/dev/null", O_RDWR);

    setsid();
    if (fd < 0)
        return;
    dup2(fd, STDIN_FILENO);
    dup2(fd, STDOUT_FILENO);
    if (settings.log_file != NULL || settings.verbose == 0)
        dup2(fd, STDERR_FILENO);
    if (fd > STDERR_FILENO)
        close(fd);
}

#define DAEMON_IN_PLACE_ENV "MCDS_IN_PLACE"    /* the pid that exec'd itself */

void daemon_mark_in_place(void) {
    char pid[24];

    snprintf(pid, sizeof(pid), "%ld", (long)getpid());
    setenv(DAEMON_IN_PLACE_ENV, pid, 1);
}

/* This image was exec'd by the same process (daemon_mark_in_place). */
static bool daemon_in_place(void) {
    const char *e = getenv(DAEMON_IN_PLACE_ENV);

    return e != NULL && atol(e) == (long)getpid();
}

int daemon_start(void) {
    int p[2];
    pid_t pid;

    if (!settings.daemonize || daemon_in_place())
        return 0;       /* a restart in place is in the background already */
    if (pipe(p) < 0)
        return -1;
    pid = fork();
    if (pid < 0)
        return -1;
    if (pid > 0) {
        close(p[1]);
        daemon_parent(p[0], pid);
    }
    close(p[0]);
    fcntl(p[1], F_SETFD, FD_CLOEXEC);
    daemon_pipe = p[1];
    daemon_detach();
    return 0;
}

int daemon_write_pid(void) {
    FILE *f;

    if (settings.pid_file == NULL)
        return 0;
    if (daemon_in_place()) {        /* the file holds this pid (-u may forbid writing it again) */
        daemon_pid_written = true;
        return 0;
    }
    f = fopen(settings.pid_file, "w");

    if (f == NULL) {
        log_msg(0, "cannot write the pid file %s: %s", settings.pid_file, strerror(errno));
        return -1;
    }
    fprintf(f, "%ld\n", (long)getpid());
    if (fclose(f) != 0) {
        log_msg(0, "cannot write the pid file %s: %s", settings.pid_file, strerror(errno));
        return -1;
    }
    daemon_pid_written = true;
    return 0;
}

/* -r: the core file limit raised to its hard limit, as memcached does. */
static void daemon_coredumps(void) {
    struct rlimit rl;

    if (!settings.coredumps || getrlimit(RLIMIT_CORE, &rl) < 0)
        return;
    rl.rlim_cur = rl.rlim_max;
    if (setrlimit(RLIMIT_CORE, &rl) < 0)
        log_msg(0, "warning: -r: cannot raise the core file limit: %s", strerror(errno));
}

void daemon_ready(void) {
    daemon_coredumps();
    if (settings.lock_memory && mlockall(MCL_CURRENT | MCL_FUTURE) < 0)
        log_msg(0, "warning: -k: cannot lock memory: %s", strerror(errno));
    if (daemon_pipe >= 0) {
        char b = 1;
        if (write(daemon_pipe, &b, 1) < 0)
            log_msg(1, "cannot tell the parent process we are ready: %s", strerror(errno));
        close(daemon_pipe);
        daemon_pipe = -1;
    }
}

int daemon_drop_root(void) {
    struct passwd *pw;

    if (settings.user == NULL || geteuid() != 0)
        return 0;
    pw = getpwnam(settings.user);
    if (pw == NULL) {
        log_msg(0, "can't find the user %s to switch to", settings.user);
        return -1;
    }
    if (initgroups(pw->pw_name, pw->pw_gid) < 0 || setgid(pw->pw_gid) < 0 || setuid(pw->pw_uid) < 0) {
        log_msg(0, "failed to become user %s: %s", settings.user, strerror(errno));
        return -1;
    }
    log_msg(1, "running as user %s", settings.user);
    return 0;
}

void daemon_stop(void) {
    if (daemon_pid_written && unlink(settings.pid_file) < 0)
        log_msg(1, "cannot remove the pid file %s: %s", settings.pid_file, strerror(errno));
    daemon_pid_written = false;
}
