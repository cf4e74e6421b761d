/*
 * verb_tls: refresh_certs [noreply]. OK when the files loaded into a new
 * context (new connections use it; open ones keep theirs); otherwise
 * memcached's own line ("Error TLS not enabled", "Error loading the key:
 * <file> : <OpenSSL's reason>", ...) and the old context goes on serving.
 */
#include <string.h>

#include "net/tls.h"
#include "verbs/verb_tls.h"

#define VERB_TLS_MSG_MAX 512

enum conn_parse_result tls_cmd_refresh(conn *c, struct cmd_line *l) {
    char msg[VERB_TLS_MSG_MAX];

    c->noreply = cmd_is_noreply(l, l->n - 1);
    if (tls_refresh(msg, sizeof(msg)) == 0) {
        cmd_reply(c, REPLY_OK);
    } else if (!c->noreply) {
        conn_out(c, msg, strlen(msg));
        conn_out(c, "\r\n", 2);
    }
    return PARSE_DONE;
}

/* The command table's entries of TLS (proto/cmd.h). */
const struct cmd_def tls_cmds[] = {
    { "refresh_certs", tls_cmd_refresh, 1, CMD_ANY, CMD_NOREPLY | CMD_ADMIN, 0, "reload the TLS certificate, key and CA files (with -Z)" },
    { NULL, NULL, 0, 0, 0, 0, NULL },
};
