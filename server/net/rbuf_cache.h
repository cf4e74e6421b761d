/*
 * rbuf_cache: a worker's cache of idle read buffers (CONN_RBUF_SIZE bytes
 * each), and their accounting: read_buf_bytes counts every buffer that
 * exists, read_buf_bytes_free those in a cache; a new buffer is refused
 * past --conn-buffer-limit. One thread uses a cache.
 */
#ifndef MCDS_RBUF_CACHE_H
#define MCDS_RBUF_CACHE_H

#define RBUF_CACHE_MAX 64       /* idle read buffers a worker keeps */

struct rbuf_cache {
    char *bufs[RBUF_CACHE_MAX];
    int n;
};

/* A buffer from the cache, or a new one; NULL when none can be had. */
char *rbuf_cache_get(struct rbuf_cache *rc);
void rbuf_cache_put(struct rbuf_cache *rc, char *buf);
/* Frees every cached buffer. */
void rbuf_cache_free(struct rbuf_cache *rc);

#endif
