/*
 * verbs: where what is above the connection plugs into it, at start-up:
 * the text protocol's verbs, family by family, in the order `help` lists
 * them (each family's table into the command table, proto/cmd.h); the
 * quick path of a plain set; Kestrel's reads of `get`; the hooks of the
 * features that keep state per connection (net/conn.h).
 */
#include "net/conn.h"
#include "ops/dump.h"
#include "ops/watch.h"
#include "proto/ahead.h"
#include "proto/cmd.h"
#include "proto/proto_get.h"
#include "proto/proto_meta.h"
#include "verbs/kestrel.h"
#include "verbs/verb_admin.h"
#include "verbs/verb_classic.h"
#include "verbs/verb_counter.h"
#include "verbs/verb_list.h"
#include "verbs/verb_list_move.h"
#include "verbs/verb_operator.h"
#include "verbs/verb_queue.h"
#include "verbs/verb_queue_info.h"
#include "verbs/verb_queue_move.h"
#include "verbs/verb_repl.h"
#include "verbs/verb_scan.h"
#include "verbs/verb_table.h"
#include "verbs/verb_tls.h"
#include "verbs/verbs.h"

void verbs_init(void) {
    cmd_init();
    cmd_register(classic_cmds);
    cmd_register(get_cmds);
    cmd_register(meta_cmds);
    cmd_register(admin_cmds);
    cmd_register(oper_cmds);
    cmd_register(qverb_cmds);
    cmd_register(qmverb_cmds);
    cmd_register(qinfo_cmds);
    cmd_register(ctverb_cmds);
    cmd_register(lverb_cmds);
    cmd_register(lmverb_cmds);
    cmd_register(sverb_cmds);
    cmd_register(tverb_cmds);
    cmd_register(tls_cmds);
    cmd_register(repl_cmds);
    cmd_set_quick_store(classic_set_quick);
    kestrel_init();
    conn_add_hooks(&ahead_conn_hooks);
    conn_add_hooks(&get_conn_hooks);
    conn_add_hooks(&meta_conn_hooks);
    conn_add_hooks(&dump_conn_hooks);
    conn_add_hooks(&watch_conn_hooks);
    conn_add_hooks(&kestrel_conn_hooks);
}
