/*
 * rbuf_cache: idle read buffers kept for reuse, counted in the
 * connection-buffer gauges (see rbuf_cache.h).
 */
#include <stdlib.h>

#include "net/conn.h"
#include "net/rbuf_cache.h"
#include "base/settings.h"
#include "base/stats.h"

char *rbuf_cache_get(struct rbuf_cache *rc) {
    size_t limit = settings.conn_buffer_limit;
    char *buf;

    if (rc->n > 0) {
        stats_global_add(STATS_READ_BUF_BYTES_FREE, -CONN_RBUF_SIZE);
        return rc->bufs[--rc->n];
    }
    if (limit != 0 && stats_global_get(STATS_READ_BUF_BYTES) + stats_global_get(STATS_RESPONSE_OBJ_BYTES) +
                      CONN_RBUF_SIZE > limit)
        return NULL;
    buf = malloc(CONN_RBUF_SIZE);
    if (buf != NULL)
        stats_global_add(STATS_READ_BUF_BYTES, CONN_RBUF_SIZE);
    return buf;
}

void rbuf_cache_put(struct rbuf_cache *rc, char *buf) {
    if (rc->n < RBUF_CACHE_MAX) {
        rc->bufs[rc->n++] = buf;
        stats_global_add(STATS_READ_BUF_BYTES_FREE, CONN_RBUF_SIZE);
        return;
    }
    free(buf);
    stats_global_add(STATS_READ_BUF_BYTES, -CONN_RBUF_SIZE);
}

void rbuf_cache_free(struct rbuf_cache *rc) {
    while (rc->n > 0) {
        free(rc->bufs[--rc->n]);
        stats_global_add(STATS_READ_BUF_BYTES, -CONN_RBUF_SIZE);
        stats_global_add(STATS_READ_BUF_BYTES_FREE, -CONN_RBUF_SIZE);
    }
}
