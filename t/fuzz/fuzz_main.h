/*
 * fuzz_main: libFuzzer's entry points, shared by the libFuzzer build and
 * the replay driver (fuzz_replay.c).
 */
#ifndef MCDS_FUZZ_MAIN_H
#define MCDS_FUZZ_MAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Selects the target by name; false if there is none. */
bool fuzz_pick(const char *name);
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
