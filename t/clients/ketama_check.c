/*
 * ketama_check.c - prints the server libmemcached picks for each key read
 * from stdin (one a line), with the memcached_st libmcds builds for a plain
 * server list (client/handle.c: MEMCACHED_BEHAVIOR_KETAMA on, the entries
 * appended with their weights as client/serverlist.c appends them, a weight
 * not given as 0).
 *
 *   ketama_check host:port[:weight] ... < keys
 *
 * Each output line is "<host>:<port> <key>". t/clients/mcds_pool_check.py
 * runs it and compares its choices with contrib/python/mcds's Pool
 * (t/unit/python_pkg.tcl).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libmemcached/memcached.h>

/* Appends "host:port[:weight]" to list; exits on a bad entry. */
static memcached_server_list_st add_entry(memcached_server_list_st list,
                                          char *arg)
{
    memcached_return_t rc = MEMCACHED_SUCCESS;
    char *port = strchr(arg, ':'), *weight;

    if (port == NULL) {
        fprintf(stderr, "ketama_check: bad entry %s\n", arg);
        exit(2);
    }
    *port++ = '\0';
    weight = strchr(port, ':');
    if (weight != NULL)
        *weight++ = '\0';
    list = memcached_server_list_append_with_weight(
        list, arg, (in_port_t)atoi(port),
        weight ? (uint32_t)strtoul(weight, NULL, 10) : 0, &rc);
    if (list == NULL || rc != MEMCACHED_SUCCESS) {
        fprintf(stderr, "ketama_check: cannot add %s\n", arg);
        exit(2);
    }
    return list;
}

int main(int argc, char **argv)
{
    memcached_st *mc = memcached_create(NULL);
    memcached_server_list_st list = NULL;
    char key[1024];
    int i;

    if (mc == NULL || argc < 2) {
        fprintf(stderr, "usage: ketama_check host:port[:weight] ... < keys\n");
        return 2;
    }
    if (memcached_behavior_set(mc, MEMCACHED_BEHAVIOR_KETAMA, 1) !=
        MEMCACHED_SUCCESS)
        return 2;
    for (i = 1; i < argc; i++)
        list = add_entry(list, argv[i]);
    if (memcached_server_push(mc, list) != MEMCACHED_SUCCESS)
        return 2;
    memcached_server_list_free(list);
    while (fgets(key, sizeof key, stdin) != NULL) {
        memcached_return_t rc = MEMCACHED_SUCCESS;
        size_t len = strcspn(key, "\n");
        const memcached_instance_st *s;

        key[len] = '\0';
        s = memcached_server_by_key(mc, key, len, &rc);
        if (s == NULL) {
            fprintf(stderr, "ketama_check: no server for %s\n", key);
            return 1;
        }
        printf("%s:%u %s\n", memcached_server_name(s),
               (unsigned)memcached_server_port(s), key);
    }
    memcached_free(mc);
    return 0;
}
