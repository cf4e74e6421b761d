/* ketama_check.c: which server libmemcached picks for each key, for the
 * Node client's test (test/ketama.test.js). Built the way libmcds builds
 * its handle (client/handle.c: MEMCACHED_BEHAVIOR_KETAMA set, servers
 * pushed as memcached_server_list_append_with_weight gives them, weight 0
 * when not given).
 *
 * usage: ketama_check <nkeys> host:port[:weight]...
 * prints one line per key: <key> <index of the server in the list>
 * Keys are "k<i>", "user:<i>:profile", and every 7th one with bytes
 * above 0x7f (UTF-8 "é<i>"). */
#include <libmemcached/memcached.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int add_server(memcached_server_list_st *list, char *spec)
{
    memcached_return_t rc = MEMCACHED_SUCCESS;
    char *port = strrchr(spec, ':'), *weight = NULL;

    if (port != NULL && strchr(spec, ':') != port) {   /* host:port:weight */
        weight = port + 1;
        *port = '\0';
        port = strrchr(spec, ':');
    }
    if (port == NULL)
        return -1;
    *port++ = '\0';
    *list = memcached_server_list_append_with_weight(
        *list, spec, (in_port_t)atoi(port), weight ? (uint32_t)atoi(weight) : 0, &rc);
    return *list != NULL && rc == MEMCACHED_SUCCESS ? 0 : -1;
}

static const char *server_spec(memcached_st *mc, const char *key, char *out, size_t n)
{
    memcached_return_t rc;
    const memcached_instance_st *s = memcached_server_by_key(mc, key, strlen(key), &rc);

    if (s == NULL)
        return NULL;
    snprintf(out, n, "%s:%u", memcached_server_name(s), (unsigned)memcached_server_port(s));
    return out;
}

int main(int argc, char **argv)
{
    memcached_st *mc = memcached_create(NULL);
    memcached_server_list_st list = NULL;
    int i, n = argc > 1 ? atoi(argv[1]) : 0;
    char key[64], spec[1100];

    if (argc < 3 || mc == NULL ||
        memcached_behavior_set(mc, MEMCACHED_BEHAVIOR_KETAMA, 1) != MEMCACHED_SUCCESS)
        return 2;
    for (i = 2; i < argc; i++)
        if (add_server(&list, argv[i]) != 0)
            return 2;
    if (memcached_server_push(mc, list) != MEMCACHED_SUCCESS)
        return 2;
    for (i = 0; i < n; i++) {
        if (i % 7 == 3)
            snprintf(key, sizeof key, "\xc3\xa9%d", i);
        else if (i % 2)
            snprintf(key, sizeof key, "user:%d:profile", i);
        else
            snprintf(key, sizeof key, "k%d", i);
        if (server_spec(mc, key, spec, sizeof spec) == NULL)
            return 1;
        printf("%s %s\n", key, spec);
    }
    memcached_server_list_free(list);
    memcached_free(mc);
    return 0;
}
