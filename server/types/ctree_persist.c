/*
 * types/ctree_persist: tree-counter records. Not written yet: tree
 * counters are kept in memory only, even with --data-dir.
 */
#include "ctree_persist.h"

void ctlog_def(const struct ctree_def *d) { (void)d; }
void ctlog_undef(uint32_t id) { (void)id; }

void ctlog_obj(const char *key, size_t nkey, const char *parent, size_t nparent, int64_t quantize,
               const struct ctree_limit *l, size_t n) {
    (void)key, (void)nkey, (void)parent, (void)nparent, (void)quantize, (void)l, (void)n;
}

void ctlog_limits(const char *key, size_t nkey, bool raise, int64_t quantize, const struct ctree_limit *l,
                  size_t n) {
    (void)key, (void)nkey, (void)raise, (void)quantize, (void)l, (void)n;
}

void ctlog_incr(const char *key, size_t nkey, const struct ctree_incr *in) {
    (void)key, (void)nkey, (void)in;
}
