/*
 * test_status.c - the status table: every code has a distinct name and a
 * sentence, and unknown codes are handled. Needs no server (the argument
 * is accepted for uniformity).
 */
#include <string.h>

#include "testutil.h"

int main(int argc, char **argv)
{
    int i, j;

    tu_init(argc, argv, 10);
    CHECK(MCDS_OK == 0);
    CHECK(MCDS_STATUS_COUNT > 10);
    for (i = 0; i < MCDS_STATUS_COUNT; i++) {
        const char *name = mcds_status_name((mcds_status_t)i);
        const char *text = mcds_strerror((mcds_status_t)i);
        CHECK(name != NULL && strlen(name) > 1 && strcmp(name, "UNKNOWN") != 0);
        CHECK(text != NULL && strlen(text) > 5);
        for (j = 0; j < i; j++) {
            CHECK(strcmp(name, mcds_status_name((mcds_status_t)j)) != 0);
            CHECK(strcmp(text, mcds_strerror((mcds_status_t)j)) != 0);
        }
    }
    tu_ok("every status has a distinct name and text");

    CHECK(strcmp(mcds_status_name(MCDS_NOT_FOUND), "NOT_FOUND") == 0);
    CHECK(strcmp(mcds_status_name(MCDS_KEY_TOO_LONG), "KEY_TOO_LONG") == 0);
    CHECK(strcmp(mcds_strerror(MCDS_OK), "success") == 0);
    tu_ok("names match the enum");

    CHECK(strcmp(mcds_strerror((mcds_status_t)MCDS_STATUS_COUNT),
                 "unknown status code") == 0);
    CHECK(strcmp(mcds_strerror((mcds_status_t)-1), "unknown status code") == 0);
    CHECK(strcmp(mcds_status_name((mcds_status_t)9999), "UNKNOWN") == 0);
    tu_ok("unknown codes are described, not crashed on");

    mcds_items_free(NULL);
    mcds_events_free(NULL);
    mcds_value_free(NULL);
    mcds_close(NULL);
    mcds_lock_free(NULL);
    mcds_seq_free(NULL);
    mcds_log_free(NULL);
    mcds_log_reader_free(NULL);
    mcds_oparray_free(NULL);
    tu_ok("free functions accept NULL");
    return 0;
}
