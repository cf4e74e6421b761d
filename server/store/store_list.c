/*
 * store_list: list creation under a key, and the mutating list
 * operations (one function each, all through here).
 */
#include "store/store_list.h"

static void store_list_free_item(item *it) {
    list_free(item_struct(it));
}

static void *store_list_make(const char *key, size_t nkey, item *self, void *arg) {
    (void)self;
    return list_new(key, nkey, arg);
}

void store_list_init(void) {
    item_set_free_hook(ITEM_LIST, store_list_free_item);
    list_system_init(store_reserve);
}

void store_list_shutdown(void) {
    list_system_shutdown();
}

item *store_list_open(const char *key, size_t nkey, bool create, const struct list_opts *o,
                      enum store_status *st) {
    struct list_opts none = { 0 };

    return store_struct_find(key, nkey, ITEM_LIST, create ? store_list_make : NULL,
                             (void *)(o != NULL ? o : &none), st);
}

struct list *store_list_of(item *pin) {
    return item_struct(pin);
}

enum list_result store_list_push(item *pin, enum list_end e, const struct list_val *v, int n,
                                 uint64_t *len) {
    return list_push(store_list_of(pin), e, v, n, len);
}

int store_list_pop(item *pin, enum list_end e, int max, list_each_fn fn, void *arg) {
    return list_pop(store_list_of(pin), e, max, fn, arg);
}

enum list_result store_list_set(item *pin, int64_t idx, const struct list_val *v) {
    return list_set(store_list_of(pin), idx, v);
}

enum list_result store_list_insert(item *pin, bool after, const struct list_val *pivot,
                                   const struct list_val *v, uint64_t *len) {
    return list_insert(store_list_of(pin), after, pivot, v, len);
}

uint64_t store_list_trim(item *pin, int64_t off, uint64_t limit) {
    return list_trim(store_list_of(pin), off, limit);
}

enum list_result store_list_remove(item *pin, int64_t count, const struct list_val *v,
                                   uint64_t *removed) {
    return list_remove(store_list_of(pin), count, v, removed);
}

enum list_result store_list_move(item *src, enum list_end se, item *dst, enum list_end de,
                                 char **copy, size_t *ncopy) {
    return list_move(store_list_of(src), se, store_list_of(dst), de, copy, ncopy);
}
