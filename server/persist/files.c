/*
 * persist/files: listing a data directory (files.h).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "persist/files.h"
#include "persist/io.h"

static int files_cmp(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

/* Whether name is <kind>.<16 hex digits>; *lsn the position. */
static bool files_named(const char *name, const char *kind, uint64_t *lsn) {
    size_t k = strlen(kind), i;
    uint64_t v = 0;

    if (strncmp(name, kind, k) != 0 || name[k] != '.' || strlen(name + k + 1) != 16)
        return false;
    for (i = k + 1; name[i] != '\0'; i++) {
        char c = name[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (d < 0)
            return false;
        v = v << 4 | (uint64_t)d;
    }
    *lsn = v;
    return true;
}

static void files_add(uint64_t *v, int *n, uint64_t lsn, bool *truncated) {
    if (*n < FILES_MAX)
        v[(*n)++] = lsn;
    else
        *truncated = true;
}

int files_list(const char *dir, struct persist_files *f, bool remove_tmp) {
    char path[PATH_MAX + 300];
    struct dirent *e;
    DIR *dh = opendir(dir);
    uint64_t lsn;

    memset(f, 0, sizeof(*f));
    if (dh == NULL)
        return -1;
    while ((e = readdir(dh)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n > 4 && strcmp(e->d_name + n - 4, ".tmp") == 0) {
            f->ntmp++;
            if (remove_tmp) {
                snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
                persist_io_unlink(path);
            }
        } else if (files_named(e->d_name, "snap", &lsn)) {
            files_add(f->snaps, &f->nsnaps, lsn, &f->truncated);
        } else if (files_named(e->d_name, "log", &lsn)) {
            files_add(f->logs, &f->nlogs, lsn, &f->truncated);
        }
    }
    closedir(dh);
    qsort(f->snaps, (size_t)f->nsnaps, sizeof(uint64_t), files_cmp);
    qsort(f->logs, (size_t)f->nlogs, sizeof(uint64_t), files_cmp);
    return 0;
}

void files_path(char *buf, size_t n, const char *dir, const char *kind, uint64_t lsn) {
    snprintf(buf, n, "%s/%s.%016llx", dir, kind, (unsigned long long)lsn);
}

void files_remove(const char *dir, const char *kind, uint64_t lsn) {
    char path[PATH_MAX + 40];

    files_path(path, sizeof(path), dir, kind, lsn);
    persist_io_unlink(path);
}

void files_remove_before(const char *dir, uint64_t lsn) {
    struct persist_files *f = malloc(sizeof(*f));
    int i;

    if (f == NULL || files_list(dir, f, false) < 0) {
        free(f);
        return;
    }
    for (i = 0; i < f->nsnaps; i++)
        if (f->snaps[i] < lsn)
            files_remove(dir, "snap", f->snaps[i]);
    for (i = 0; i + 1 < f->nlogs; i++)
        if (f->logs[i + 1] <= lsn)
            files_remove(dir, "log", f->logs[i]);
    free(f);
}
