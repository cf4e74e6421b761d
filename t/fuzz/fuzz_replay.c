/*
 * fuzz_replay: the regression driver, built with the project's usual
 * compiler and no libFuzzer: runs the target once on each file given (or
 * each file of each directory given), as libFuzzer would. A broken
 * invariant aborts; otherwise it prints how many inputs it ran.
 *
 *   fuzz-replay <target> <file|dir>...
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_main.h"

static int replay_file(const char *path) {
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t n = 0, cap = 0, r;

    if (f == NULL) {
        perror(path);
        return -1;
    }
    do {
        if (n == cap) {
            cap = cap ? cap * 2 : 4096;
            buf = realloc(buf, cap);
            if (buf == NULL) {
                fclose(f);
                return -1;
            }
        }
        r = fread(buf + n, 1, cap - n, f);
        n += r;
    } while (r > 0);
    fclose(f);
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 0;
}

/* Every regular file of dir, in name order; -1 on error. */
static int replay_dir(const char *dir, int *count) {
    struct dirent **list;
    int n = scandir(dir, &list, NULL, alphasort), i, rc = 0;

    if (n < 0) {
        perror(dir);
        return -1;
    }
    for (i = 0; i < n; i++) {
        char path[4096];
        struct stat st;
        snprintf(path, sizeof(path), "%s/%s", dir, list[i]->d_name);
        if (list[i]->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            if (replay_file(path) < 0)
                rc = -1;
            (*count)++;
        }
        free(list[i]);
    }
    free(list);
    return rc;
}

int main(int argc, char **argv) {
    int i, count = 0, rc = 0;

    if (argc < 3 || !fuzz_pick(argv[1])) {
        fprintf(stderr, "usage: fuzz-replay text|bin|stream|multi <file|dir>...\n");
        return 2;
    }
    for (i = 2; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            rc |= replay_dir(argv[i], &count);
        } else {
            rc |= replay_file(argv[i]);
            count++;
        }
    }
    printf("fuzz-replay %s: %d inputs\n", argv[1], count);
    return rc < 0 ? 1 : 0;
}
