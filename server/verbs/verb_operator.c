/*
 * verb_operator: lru_crawler, slabs and lru (see verb_operator.h).
 *
 * mcds's crawler is the once-a-second walk of a slice of the hash table
 * (store_tick): `lru_crawler enable|disable` switch it, `crawl` is
 * accepted (the walk and the expiry index already reclaim every class),
 * `sleep` and `tocrawl` are checked and kept for `stats settings`. There
 * are no slab pages to move (`slabs reassign` is refused as memcached
 * refuses it without slab_reassign) and no LRU maintainer (`lru mode` and
 * `lru temp_ttl` are ERROR, as memcached answers with it off).
 */
#include <stdlib.h>
#include <string.h>

#include "ops/dump.h"
#include "base/parse.h"
#include "base/settings.h"
#include "store/store.h"
#include "ops/watch.h"
#include "verbs/verb_operator.h"

#define OPER_MAX_CLASS 63
#define OPER_SLEEP_MAX 1000000      /* microseconds: memcached's limit */

/* "all" or a comma-separated list of class ids 1..63. */
static bool oper_classes_ok(const char *s) {
    const char *p = s;

    if (strcmp(s, "all") == 0)
        return true;
    while (*p != '\0') {
        char *end;
        unsigned long v = strtoul(p, &end, 10);
        if (end == p || v == 0 || v > OPER_MAX_CLASS || (*end != ',' && *end != '\0'))
            return false;
        p = *end == ',' ? end + 1 : end;
    }
    return p != s;
}

/* As memcached: enabling a running crawler fails, disabling is always OK. */
static void oper_crawler_switch(conn *c, bool on) {
    if (on && store_crawler_enabled()) {
        conn_out_reply(c, REPLY_CRAWLER_START_FAILED);
        return;
    }
    store_set_crawler(on);
    conn_out_reply(c, REPLY_OK);
}

/* sleep and tocrawl: a number kept for stats settings. */
static void oper_crawler_number(conn *c, const char *tok, uint32_t *dst, uint32_t max) {
    uint32_t v;

    if (!parse_u32(tok, &v)) {
        conn_out_reply(c, REPLY_BAD_FORMAT);
    } else if (v > max) {
        conn_out_reply(c, REPLY_CRAWLER_SLEEP);
    } else {
        *dst = v;
        conn_out_reply(c, REPLY_OK);
    }
}

enum conn_parse_result oper_lru_crawler(conn *c, struct cmd_line *l) {
    const char *sub = l->n >= 2 ? l->v[1] : "";

    if (l->n == 3 && (strcmp(sub, "crawl") == 0 || strcmp(sub, "metadump") == 0)) {
        if (!store_crawler_enabled())
            conn_out_reply(c, REPLY_CRAWLER_DISABLED);
        else if (strcmp(sub, "metadump") == 0)
            return dump_metadump(c, l);
        else
            conn_out_reply(c, oper_classes_ok(l->v[2]) ? REPLY_OK : REPLY_DUMP_BAD_CLASS);
    } else if (l->n == 3 && strcmp(sub, "tocrawl") == 0) {
        oper_crawler_number(c, l->v[2], &settings.crawler_tocrawl, UINT32_MAX);
    } else if (l->n == 3 && strcmp(sub, "sleep") == 0) {
        oper_crawler_number(c, l->v[2], &settings.crawler_sleep, OPER_SLEEP_MAX);
    } else if (l->n == 2 && (strcmp(sub, "enable") == 0 || strcmp(sub, "disable") == 0)) {
        oper_crawler_switch(c, strcmp(sub, "enable") == 0);
    } else {
        conn_out_reply(c, REPLY_ERROR);
    }
    return PARSE_DONE;
}

/* A number strtod takes whole. */
static bool oper_double(const char *s, double *out) {
    char *end;

    *out = strtod(s, &end);
    return end != s && *end == '\0';
}

/* slabs automove <0|1|2> | slabs automove ratio <r> [noreply] */
static void oper_slabs_automove(conn *c, struct cmd_line *l) {
    uint32_t level;
    double ratio;

    c->noreply = cmd_is_noreply(l, l->n - 1);
    if (strcmp(l->v[2], "ratio") == 0) {
        if (l->n >= 4 && oper_double(l->v[3], &ratio)) {
            settings.slab_automove_ratio = ratio;   /* shown by stats settings only */
            cmd_reply(c, REPLY_OK);
        } else {
            cmd_reply(c, REPLY_ERROR);
        }
        return;
    }
    if (!parse_u32(l->v[2], &level)) {
        cmd_reply(c, REPLY_BAD_FORMAT);
    } else if (level > 2) {
        cmd_reply(c, REPLY_ERROR);
    } else {
        settings.slab_automove = level;
        cmd_reply(c, REPLY_OK);
    }
}

enum conn_parse_result oper_slabs(conn *c, struct cmd_line *l) {
    if (l->n == 4 && strcmp(l->v[1], "reassign") == 0)
        conn_out_reply(c, REPLY_SLAB_REASSIGN_OFF);
    else if (l->n >= 3 && strcmp(l->v[1], "automove") == 0)
        oper_slabs_automove(c, l);
    else
        conn_out_reply(c, REPLY_ERROR);
    return PARSE_DONE;
}

/* lru tune <hot pct> <warm pct> <hot factor> <warm factor>: checked as
 * memcached checks it, then accepted with no effect (one LRU). */
static void oper_lru_tune(conn *c, struct cmd_line *l) {
    uint32_t hot, warm;
    double hot_factor, factor;

    if (!parse_u32(l->v[2], &hot) || !parse_u32(l->v[3], &warm) || !oper_double(l->v[4], &hot_factor) ||
        !oper_double(l->v[5], &factor))
        cmd_reply(c, REPLY_ERROR);
    else if ((uint64_t)hot + warm > 80)
        cmd_reply(c, REPLY_LRU_PCTS);
    else if (factor <= 0 || hot_factor <= 0)
        cmd_reply(c, REPLY_LRU_FACTORS);
    else
        cmd_reply(c, REPLY_OK);
}

enum conn_parse_result oper_lru(conn *c, struct cmd_line *l) {
    c->noreply = cmd_is_noreply(l, l->n - 1);
    if (l->n >= 6 && strcmp(l->v[1], "tune") == 0)
        oper_lru_tune(c, l);
    else
        cmd_reply(c, REPLY_ERROR);   /* mode, temp_ttl: no LRU maintainer */
    return PARSE_DONE;
}

/* The command table's entries of memcached's operator verbs (key dumps in ops/dump.c), watch and help (proto/cmd.h). */
const struct cmd_def oper_cmds[] = {
    { "lru_crawler", oper_lru_crawler, 1, CMD_ANY, CMD_ADMIN, 0, "crawler and key dumps: crawl|metadump|enable|disable|sleep|tocrawl" },
    { "slabs", oper_slabs, 1, CMD_ANY, CMD_NOREPLY | CMD_ADMIN, 0, "slab tuning: automove (reassign is disabled)" },
    { "lru", oper_lru, 1, CMD_ANY, CMD_NOREPLY | CMD_ADMIN, 0, "LRU tuning: tune (mode, temp_ttl: no maintainer)" },
    { "watch", watch_cmd, 1, CMD_ANY, CMD_ADMIN, 0, "stream events: watch [fetchers] [mutations] [evictions]" },
    { "help", cmd_help, 1, 2, 0, 0, "this list, or one verb's line: help [<verb>]" },
    { NULL, NULL, 0, 0, 0, 0, NULL },
};
