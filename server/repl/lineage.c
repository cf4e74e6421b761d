/*
 * repl/lineage: DIR/lineage, read, written and forked.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "repl/lineage.h"

bool lineage_valid_id(const char *s, size_t n) {
    size_t i;

    if (n != LINEAGE_ID_LEN)
        return false;
    for (i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return false;
    return true;
}

int lineage_load(const char *dir, struct lineage *l) {
    char path[PATH_MAX], prev[64] = "";
    unsigned long long start = 0, end = 0;
    char id[64];
    FILE *f;
    int n;

    memset(l, 0, sizeof(*l));
    snprintf(path, sizeof(path), "%s/lineage", dir);
    if ((f = fopen(path, "re")) == NULL)
        return -1;
    n = fscanf(f, "%63s %llu %63s %llu", id, &start, prev, &end);
    fclose(f);
    if (n < 2 || !lineage_valid_id(id, strlen(id)))
        return -1;
    memcpy(l->id, id, LINEAGE_ID_LEN);
    l->start = start;
    if (n == 4 && lineage_valid_id(prev, strlen(prev))) {
        memcpy(l->prev, prev, LINEAGE_ID_LEN);
        l->prev_end = end;
    }
    return 0;
}

int lineage_save(const char *dir, const struct lineage *l) {
    char path[PATH_MAX], tmp[PATH_MAX + 8], text[160];
    int fd, n, rc = 0;

    snprintf(path, sizeof(path), "%s/lineage", dir);
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    n = l->prev[0] != '\0'
        ? snprintf(text, sizeof(text), "%s %llu\n%s %llu\n", l->id, (unsigned long long)l->start, l->prev,
                   (unsigned long long)l->prev_end)
        : snprintf(text, sizeof(text), "%s %llu\n", l->id, (unsigned long long)l->start);
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 || write(fd, text, (size_t)n) != n || fsync(fd) < 0)
        rc = -1;
    if (fd >= 0)
        close(fd);
    if (rc == 0 && rename(tmp, path) < 0)
        rc = -1;
    if (rc < 0)
        log_msg(0, "replication: cannot write %s: %s", path, strerror(errno));
    if (rc == 0 && (fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
        fsync(fd);
        close(fd);
    }
    return rc;
}

/* 32 random hex digits into id. */
static void lineage_new_id(char *id) {
    static const char hex[] = "0123456789abcdef";
    unsigned char b[LINEAGE_ID_LEN / 2];
    size_t i;

    if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b)) {
        srandom((unsigned)getpid() ^ (unsigned)time(NULL));
        for (i = 0; i < sizeof(b); i++)
            b[i] = (unsigned char)random();
    }
    for (i = 0; i < sizeof(b); i++) {
        id[2 * i] = hex[b[i] >> 4];
        id[2 * i + 1] = hex[b[i] & 15];
    }
    id[LINEAGE_ID_LEN] = '\0';
}

void lineage_fork(struct lineage *l, uint64_t pos) {
    if (l->id[0] != '\0') {
        memcpy(l->prev, l->id, sizeof(l->prev));
        l->prev_end = pos;
    }
    lineage_new_id(l->id);
    l->start = pos;
}

bool lineage_holds(const struct lineage *l, const char *id, uint64_t pos) {
    if (l->id[0] != '\0' && strcmp(id, l->id) == 0)
        return true;
    return l->prev[0] != '\0' && strcmp(id, l->prev) == 0 && pos <= l->prev_end;
}
