/*
 * fuzz_main: libFuzzer's entry points. The target is chosen by the
 * MCDS_FUZZ_TARGET environment variable (text, bin, stream, multi;
 * default text), or by fuzz_pick() (the replay driver).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_main.h"
#include "fuzz_server.h"

static const struct {
    const char *name;
    int (*fn)(const uint8_t *data, size_t size);
} fuzz_targets[] = {
    { "text", fuzz_text },
    { "bin", fuzz_bin },
    { "stream", fuzz_stream },
    { "multi", fuzz_multi },
};

static int (*fuzz_target)(const uint8_t *data, size_t size);

bool fuzz_pick(const char *name) {
    size_t i;

    for (i = 0; i < sizeof(fuzz_targets) / sizeof(fuzz_targets[0]); i++) {
        if (strcmp(fuzz_targets[i].name, name) == 0) {
            fuzz_target = fuzz_targets[i].fn;
            return true;
        }
    }
    return false;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    const char *name = getenv("MCDS_FUZZ_TARGET");

    if (!fuzz_pick(name != NULL ? name : "text")) {
        fprintf(stderr, "MCDS_FUZZ_TARGET=%s: no such target (text, bin, stream, multi)\n", name);
        exit(2);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (fuzz_target == NULL)
        fuzz_pick("text");
    return fuzz_target(data, size);
}
