/*
 * persist/replay: records in, quarantined keys kept in a small open
 * hash set of (structure type, key).
 */
#include <stdlib.h>
#include <string.h>

#include "cache/item.h"
#include "base/log.h"
#include "persist/crc32c.h"
#include "persist/persist_int.h"
#include "persist/replay.h"

struct replay_key {
    uint8_t type;
    uint8_t nkey;
    char key[ITEM_KEY_MAX];
};

struct replay {
    bool strict;
    struct replay_key *set;     /* nkey 0: empty slot */
    size_t cap, n;
    uint64_t skipped;
};

struct replay *replay_new(bool strict) {
    struct replay *r = calloc(1, sizeof(*r));

    if (r != NULL)
        r->strict = strict;
    return r;
}

void replay_free(struct replay *r) {
    if (r == NULL)
        return;
    free(r->set);
    free(r);
}

static size_t replay_slot(const struct replay *r, uint8_t type, const char *key, size_t nkey) {
    size_t i = crc32c(type, key, nkey) & (r->cap - 1);

    while (r->set[i].nkey != 0 &&
           (r->set[i].type != type || r->set[i].nkey != nkey || memcmp(r->set[i].key, key, nkey) != 0))
        i = (i + 1) & (r->cap - 1);
    return i;
}

static bool replay_quarantined_key(const struct replay *r, uint8_t type, const char *key, size_t nkey) {
    return r->cap > 0 && r->set[replay_slot(r, type, key, nkey)].nkey != 0;
}

/* Doubles the set: 0, or -1 without memory. */
static int replay_grow(struct replay *r) {
    struct replay_key *old = r->set;
    size_t oldcap = r->cap, i;

    r->cap = oldcap ? oldcap * 2 : 64;
    r->set = calloc(r->cap, sizeof(*r->set));
    if (r->set == NULL) {
        r->set = old;
        r->cap = oldcap;
        return -1;
    }
    for (i = 0; i < oldcap; i++)
        if (old[i].nkey != 0)
            r->set[replay_slot(r, old[i].type, old[i].key, old[i].nkey)] = old[i];
    free(old);
    return 0;
}

static int replay_quarantine(struct replay *r, uint8_t type, const char *key, size_t nkey) {
    struct replay_key *k;

    if ((r->n + 1) * 2 > r->cap && replay_grow(r) < 0)
        return -1;
    k = &r->set[replay_slot(r, type, key, nkey)];
    k->type = type;
    k->nkey = (uint8_t)nkey;
    memcpy(k->key, key, nkey);
    r->n++;
    return 0;
}

int replay_record(struct replay *r, const struct rec *rec, uint64_t lsn, const char *path, uint64_t off) {
    size_t nkey = 0;
    const char *key = persist_record_key(rec, &nkey);

    if (key != NULL && replay_quarantined_key(r, rec->type, key, nkey)) {
        r->skipped++;
        return 0;
    }
    if (persist_apply_record(rec, lsn) == 0)
        return 0;
    log_msg(0, "persistence: %s: the %s record (operation %u) at offset %llu (log position %llu) for key "
               "'%.*s' does not apply%s", path, persist_type_name(rec->type), rec->op, (unsigned long long)off,
            (unsigned long long)lsn, (int)nkey, key != NULL ? key : "",
            r->strict ? "; --strict-replay: start-up stopped"
            : key != NULL ? "; the key is kept as replayed so far and its later records are skipped"
                          : "; it is skipped");
    if (r->strict)
        return -1;
    r->skipped++;
    if (key != NULL && replay_quarantine(r, rec->type, key, nkey) < 0)
        return -1;
    return 0;
}

uint64_t replay_skipped(const struct replay *r) {
    return r->skipped;
}

uint64_t replay_quarantined(const struct replay *r) {
    return r->n;
}
