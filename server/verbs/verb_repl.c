/*
 * verb_repl: replicaof, psync and wait. psync hands the connection's
 * socket, and its TLS session if any, to a sender thread (repl/primary.c)
 * and closes the connection without a byte more: from then on the link
 * speaks only frames. wait holds the connection until enough replicas
 * have its last change (net/conn_sync.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "base/parse.h"
#include "base/settings.h"
#include "net/conn_sync.h"
#include "net/tls.h"
#include "persist/persist.h"
#include "repl/lineage.h"
#include "repl/link_tls.h"
#include "repl/primary.h"
#include "repl/repl.h"
#include "verbs/verb_repl.h"

/* replicaof HOST PORT | replicaof no one */
static enum conn_parse_result repl_cmd_replicaof(conn *c, struct cmd_line *l) {
    uint32_t port;

    if (strcmp(l->v[1], "no") == 0 && strcmp(l->v[2], "one") == 0) {
        conn_sync_exempt(c);    /* its marks are no client's change */
        conn_out_reply(c, repl_promote());
    } else if (l->vlen[1] == 0 || l->vlen[1] >= REPL_HOST_MAX || strspn(l->v[2], "0123456789") != l->vlen[2] ||
             !parse_u32(l->v[2], &port) || port < 1 || port > 65535)
        conn_out_reply(c, REPLY_BAD_FORMAT);
    else
        conn_out_reply(c, repl_replicaof(l->v[1], (int)port));
    return PARSE_DONE;
}

/* psync <lineage>|? <position> */
static enum conn_parse_result repl_cmd_psync(conn *c, struct cmd_line *l) {
    struct link_tls *tls = NULL;
    uint64_t pos;
    int fd;
    bool none = strcmp(l->v[1], "?") == 0;

    if ((!none && !lineage_valid_id(l->v[1], l->vlen[1])) || !parse_u64_digits(l->v[2], &pos)) {
        conn_out_reply(c, REPLY_BAD_FORMAT);
        return PARSE_DONE;
    }
    if (!persist_on()) {
        conn_out_reply(c, REPLY_REPL_NO_DATA_DIR);
        return PARSE_DONE;
    }
    if (repl_is_replica()) {
        conn_out_reply(c, REPLY_NOT_PRIMARY);
        return PARSE_DONE;
    }
    if (c->tls != NULL && c->out_bytes > 0) {
        conn_out_reply(c, REPLY_REPL_TLS);      /* the session cannot be shared with them */
        return PARSE_DONE;
    }
    if ((fd = dup(c->fd)) < 0) {
        conn_out_reply(c, REPLY_OOM);
        return PARSE_DONE;
    }
    if (c->tls != NULL && (tls = link_tls_adopt(tls_conn_take(c->tls), fd)) == NULL) {
        close(fd);
        return PARSE_CLOSE;     /* the session is gone with the memory it needed */
    }
    log_msg(0, "replication: <%d asks for the log (%s %llu)%s", c->fd, l->v[1], (unsigned long long)pos,
            tls != NULL ? " over TLS" : "");
    primary_attach(fd, tls, none ? NULL : l->v[1], pos);
    return PARSE_CLOSE;
}

#define REPL_WAIT_MAX_MS 3600000     /* an hour: every wait is bounded */

/* wait <numreplicas> <timeout_ms> */
static enum conn_parse_result repl_cmd_wait(conn *c, struct cmd_line *l) {
    uint32_t n, ms;

    if (!parse_u32(l->v[1], &n) || !parse_u32(l->v[2], &ms) || n > INT32_MAX || ms > REPL_WAIT_MAX_MS) {
        conn_out_reply(c, REPLY_BAD_FORMAT);
        return PARSE_DONE;
    }
    if (repl_is_replica()) {
        conn_out_reply(c, REPLY_NOT_PRIMARY);
        return PARSE_DONE;
    }
    conn_sync_wait(c, (int)n, persist_on() ? ms : 0);
    return PARSE_DONE;
}

const struct cmd_def repl_cmds[] = {
    { "replicaof", repl_cmd_replicaof, 3, 3, CMD_ADMIN, 0, "follow a primary, or stop and take writes: replicaof <host> <port> | replicaof no one" },
    { "psync", repl_cmd_psync, 3, 3, CMD_ADMIN, 0, "a replica asks for the log: psync <lineage>|? <position>" },
    { "wait", repl_cmd_wait, 3, 3, 0, 0, "how many replicas have this connection's last change, waiting for n of them at most timeout_ms: wait <n> <timeout_ms>" },
    { NULL, NULL, 0, 0, 0, 0, NULL },
};
