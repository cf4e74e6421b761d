/*
 * status.c - the status table: mcds_strerror, mcds_status_name, and the
 * mapping from libmemcached's results to mcds statuses.
 *
 * The texts come from MCDS_STATUS_MAP in mcds.h, the one place a status is
 * defined.
 */
#include "mcds_int.h"

#define MCDS_STATUS_TEXT(name, text) text,
#define MCDS_STATUS_NAME(name, text) #name,

static const char *const status_text[] = {MCDS_STATUS_MAP(MCDS_STATUS_TEXT)};
static const char *const status_name[] = {MCDS_STATUS_MAP(MCDS_STATUS_NAME)};

const char *mcds_strerror(mcds_status_t status)
{
    if ((unsigned)status >= MCDS_STATUS_COUNT)
        return "unknown status code";
    return status_text[status];
}

const char *mcds_status_name(mcds_status_t status)
{
    if ((unsigned)status >= MCDS_STATUS_COUNT)
        return "UNKNOWN";
    return status_name[status];
}

/* Connection-level failures: the server cannot be reached right now. */
static int is_connection_failure(memcached_return_t rc)
{
    switch (rc) {
    case MEMCACHED_CONNECTION_FAILURE:
    case MEMCACHED_CONNECTION_BIND_FAILURE:
    case MEMCACHED_CONNECTION_SOCKET_CREATE_FAILURE:
    case MEMCACHED_HOST_LOOKUP_FAILURE:
    case MEMCACHED_WRITE_FAILURE:
    case MEMCACHED_READ_FAILURE:
    case MEMCACHED_PARTIAL_READ:
    case MEMCACHED_ERRNO:
    case MEMCACHED_TIMEOUT:
    case MEMCACHED_SERVER_MARKED_DEAD:
    case MEMCACHED_SERVER_TEMPORARILY_DISABLED:
    case MEMCACHED_NO_SERVERS:
    case MEMCACHED_IN_PROGRESS:
        return 1;
    default:
        return 0;
    }
}

mcds_status_t mcds__from_memcached(memcached_return_t rc)
{
    if (is_connection_failure(rc))
        return MCDS_SERVER_DOWN;
    switch (rc) {
    case MEMCACHED_SUCCESS:
    case MEMCACHED_STORED:
    case MEMCACHED_DELETED:
    case MEMCACHED_END:
    case MEMCACHED_BUFFERED:
        return MCDS_OK;
    case MEMCACHED_NOTFOUND:
        return MCDS_NOT_FOUND;
    case MEMCACHED_NOTSTORED:
    case MEMCACHED_DATA_EXISTS:
        return MCDS_EXISTS;
    case MEMCACHED_BAD_KEY_PROVIDED:
    case MEMCACHED_KEY_TOO_BIG:
        return MCDS_KEY_TOO_LONG;
    case MEMCACHED_E2BIG:
        return MCDS_TOO_LARGE;
    case MEMCACHED_MEMORY_ALLOCATION_FAILURE:
        return MCDS_NO_MEMORY;
    case MEMCACHED_SERVER_ERROR:
    case MEMCACHED_SERVER_MEMORY_ALLOCATION_FAILURE:
    /* an answer libmemcached could not place, e.g. binary DELTA_BADVAL */
    case MEMCACHED_UNKNOWN_READ_FAILURE:
    case MEMCACHED_CLIENT_ERROR:
    case MEMCACHED_ERROR:
    case MEMCACHED_PROTOCOL_ERROR:
        return MCDS_SERVER_ERROR;
    case MEMCACHED_NOT_SUPPORTED:
    case MEMCACHED_UNKNOWN_STAT_KEY:
        return MCDS_UNSUPPORTED;
    case MEMCACHED_INVALID_ARGUMENTS:
        return MCDS_INVALID;
    default:
        return MCDS_FAILURE;
    }
}
