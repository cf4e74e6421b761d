# Replication helpers shared by the replication units.

proc repl_connect {level} { mc_connect_addr 127.0.0.1 [srv $level port] }

# A connection to the replica at level once it has caught up with the
# primary on pfd: a full resync restarts it in place (its clients'
# connections close), so each try connects again.
proc repl_connect_caught_up {level pfd} {
    wait_for {![catch {set ::repl_fd [repl_connect $level]
                       expr {[mc_stat $::repl_fd repl_link] eq "up" &&
                             [mc_stat $::repl_fd repl_position] == [mc_stat $pfd persist_log_position]}} ok] && $ok} 200 50
    return $::repl_fd
}
