/*
 * store/store_ctree: tree-counter objects in the keyspace: an object is
 * made under its key through the store, and tree counters are given the
 * store's functions they need (room for values, removal of a key).
 */
#include "store/store.h"
#include "store/store_ctree.h"
#include "types/ctree.h"

item *store_ctree_obj(const char *key, size_t nkey, struct ctree_new *nw, enum store_status *st) {
    int attempt;
    item *pin;

    for (attempt = 0; attempt < 2; attempt++) {
        nw->r = CTREE_OK;
        pin = store_struct_find(key, nkey, ITEM_CTREE, ctree_obj_make, nw, st);
        if (pin == NULL || *st != STORE_EXISTS || ctree_obj_live(item_struct(pin)))
            return pin;
        store_delete_exact(key, nkey, item_cas(pin));
        item_release(pin);
    }
    return NULL;
}

/* store_delete_exact's status is of no use to tree counters. */
static void store_ctree_unlink(const char *key, size_t nkey, uint64_t cas) {
    store_delete_exact(key, nkey, cas);
}

static const struct ctree_keyspace store_ctree_keyspace = { store_reserve, store_ctree_unlink };

void store_ctree_init(struct event_base *base) {
    ctree_init(&store_ctree_keyspace, base);
}
