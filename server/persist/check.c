/*
 * persist/check: --check-data-dir, the offline checker (as redis-check-aof
 * is to Redis). It reads a data directory as a start-up would, without
 * locking, cutting or removing anything: the snapshot is loaded and every
 * log record after it replayed into memory, stepping over damage to see
 * what follows. It prints what each file holds and where it is bad, what
 * the keyspace holds after the replay, and exits 0 when a start-up would
 * keep every record (a torn tail, normal after a crash, is reported but
 * is no problem), 1 otherwise.
 */
#include <stdio.h>
#include <string.h>

#include "cache/hash.h"
#include "persist/check.h"
#include "persist/persist.h"
#include "persist/persist_int.h"

struct check_totals {
    uint64_t files, bad_files;
};

static void check_on_file(const struct recover_file_report *r, void *arg) {
    struct check_totals *t = arg;
    int i, shown = 0;

    t->files++;
    printf("%s.%016llx: %llu bytes, %llu %s", r->kind, (unsigned long long)r->lsn, (unsigned long long)r->bytes,
           (unsigned long long)r->records, strcmp(r->kind, "snap") == 0 ? "entries" : "records");
    for (i = 1; i < PERSIST_NTYPES; i++) {
        if (r->by_type[i] == 0)
            continue;
        printf("%s%s %llu", shown++ ? ", " : " (", persist_type_name((uint8_t)i), (unsigned long long)r->by_type[i]);
    }
    printf("%s", shown ? ")" : "");
    if (r->bad == NULL) {
        printf(", sound\n");
    } else if (r->torn) {
        printf(", torn tail at offset %llu (normal after a crash: a start-up cuts it)\n",
               (unsigned long long)r->bad_off);
    } else {
        printf(", BAD at offset %llu: %s\n", (unsigned long long)r->bad_off, r->bad);
        t->bad_files++;
    }
}

static void check_count_item(item *it, void *arg) {
    uint64_t *by_type = arg;

    by_type[it->type < ITEM_NTYPES ? it->type : 0]++;
}

static void check_keyspace(void) {
    uint64_t by_type[ITEM_NTYPES] = { 0 };
    uint32_t b, n = hash_buckets();

    for (b = 0; b < n; b++)
        hash_visit_bucket(b, check_count_item, by_type);
    printf("keyspace after the replay: %llu queues, %llu lists, %llu tree-counter objects, %llu cache values\n",
           (unsigned long long)by_type[ITEM_QUEUE], (unsigned long long)by_type[ITEM_LIST],
           (unsigned long long)by_type[ITEM_CTREE], (unsigned long long)by_type[ITEM_STRING]);
}

int persist_check(const char *dir) {
    struct check_totals t = { 0, 0 };
    struct recover_opts o = { .partial = true, .check = true, .on_file = check_on_file, .arg = &t };
    struct persist_recovered rec;
    int lock_fd = -1, rc;

    printf("checking %s\n", dir);
    persist_replay_mode(true);
    rc = recover_run(dir, &o, &lock_fd, &rec);
    persist_replay_mode(false);
    if (rc == 0)
        check_keyspace();
    printf("records: %llu read, %llu not applied, %llu key(s) quarantined, %llu damaged byte(s)\n",
           (unsigned long long)rec.records, (unsigned long long)rec.skipped, (unsigned long long)rec.quarantined,
           (unsigned long long)rec.damaged);
    if (rc == 0 && t.bad_files == 0 && rec.skipped == 0 && rec.damaged == 0) {
        printf("result: sound; the log goes on at %llu\n", (unsigned long long)rec.next_lsn);
        return 0;
    }
    printf("result: PROBLEMS (see doc/persistence.md, \"Checking a data directory\")\n");
    return 1;
}
