/*
 * persist/snap_fork: the snapshot child's life, and the parent's wait.
 *
 * The child keeps no descriptor of the server's (clients' sockets, the
 * listener, the directory lock: a restarted server must find them free),
 * dies with the thread that forked it (PR_SET_PDEATHSIG: after a kill -9
 * of the server no child goes on writing), takes no lock that another
 * thread of the server may have held at the fork (its log lines go down a
 * pipe, and the parent logs them), and leaves with _exit. Its last line,
 * "R <entries> <bytes>", says the file is complete and on disk, and is
 * what the parent goes by (its exit status is only logged: under valgrind
 * a forked child reports, as lost, memory the other threads' stacks held);
 * the parent then renames the file (snapshot_commit), so that a child
 * whose server died never puts a snapshot in place.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/log.h"
#include "persist/snap_fork.h"

#define SNAP_LINE_MAX 4096

/* Closes every descriptor but 0, 1, 2 and keep. */
static void snap_child_fds(int keep) {
    struct rlimit rl;
    int fd, max = 65536;

    if (close_range(3, (unsigned)keep - 1, 0) == 0 && close_range((unsigned)keep + 1, ~0U, 0) == 0)
        return;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < (rlim_t)max)
        max = (int)rl.rlim_cur;
    for (fd = 3; fd < max; fd++)
        if (fd != keep)
            close(fd);
}

/* Default dispositions, nothing blocked: the server's handlers write to
 * pipes the parent reads. */
static void snap_child_signals(void) {
    sigset_t none;
    int sig;

    for (sig = 1; sig < NSIG; sig++)
        signal(sig, SIG_DFL);
    signal(SIGPIPE, SIG_IGN);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

static void snap_child(const char *dir, uint64_t lsn, uint64_t cas_mark, uint64_t id_mark, unsigned pause_ms,
                       int fd, pid_t parent) {
    struct snap_result res = { 0, 0 };
    char line[64];
    int n;

    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(1);
    snap_child_signals();
    snap_child_fds(fd);
    log_to_parent(fd);
    if (pause_ms > 0)
        usleep(pause_ms * 1000u);
    if (snapshot_write_tmp(dir, lsn, cas_mark, id_mark, &res) < 0)
        _exit(1);
    n = snprintf(line, sizeof(line), "R %llu %llu\n", (unsigned long long)res.entries,
                 (unsigned long long)res.bytes);
    _exit(write(fd, line, (size_t)n) == n ? 0 : 1);
}

int snap_fork(const char *dir, uint64_t lsn, uint64_t cas_mark, uint64_t id_mark, unsigned pause_ms,
              struct snap_child *ch) {
    pid_t parent = getpid(), pid;
    int fds[2];

    if (pipe2(fds, O_CLOEXEC) < 0) {
        log_msg(0, "persistence: snapshot not started: no pipe: %s", strerror(errno));
        return -1;
    }
    pid = fork();
    if (pid < 0) {
        log_msg(0, "persistence: snapshot not started: cannot fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0)
        snap_child(dir, lsn, cas_mark, id_mark, pause_ms, fds[1], parent);
    close(fds[1]);
    ch->pid = pid;
    ch->fd = fds[0];
    return 0;
}

/* One line of the child: its result, or a log line. */
static void snap_child_line(char *line, struct snap_result *res, bool *done) {
    unsigned long long entries, bytes;

    if (sscanf(line, "R %llu %llu", &entries, &bytes) == 2) {
        res->entries = entries;
        res->bytes = bytes;
        *done = true;
    } else {
        log_msg(0, "%s", line);
    }
}

/* Reads the child's lines until it closes its end. */
static void snap_read_lines(int fd, struct snap_result *res, bool *done) {
    char buf[SNAP_LINE_MAX];
    size_t len = 0;
    ssize_t r;

    for (;;) {
        char *nl;
        r = read(fd, buf + len, sizeof(buf) - 1 - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        len += (size_t)r;
        buf[len] = '\0';
        while ((nl = strchr(buf, '\n')) != NULL) {
            *nl = '\0';
            snap_child_line(buf, res, done);
            len -= (size_t)(nl + 1 - buf);
            memmove(buf, nl + 1, len + 1);
        }
        if (len == sizeof(buf) - 1) {
            snap_child_line(buf, res, done);    /* a line too long: logged cut */
            len = 0;
        }
    }
    if (len > 0) {
        buf[len] = '\0';
        snap_child_line(buf, res, done);
    }
}

int snap_wait(struct snap_child *ch, struct snap_result *res) {
    bool done = false;
    int status = 0;

    snap_read_lines(ch->fd, res, &done);
    close(ch->fd);
    ch->fd = -1;
    while (waitpid(ch->pid, &status, 0) < 0 && errno == EINTR)
        ;
    ch->pid = 0;
    if (done) {
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            log_msg(1, "persistence: the snapshot child ended with status %d after its file was complete",
                    status);
        return 0;
    }
    if (WIFSIGNALED(status))
        log_msg(0, "persistence: the snapshot child was killed by signal %d", WTERMSIG(status));
    else
        log_msg(0, "persistence: the snapshot child failed (exit status %d)", WEXITSTATUS(status));
    return -1;
}

void snap_kill(pid_t pid) {
    if (pid > 0)
        kill(pid, SIGKILL);
}
