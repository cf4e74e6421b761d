# Black-box tests of doc/protocol.md's admin sections: "stats" (and its
# groups settings, items, slabs, sizes, conns, detail, reset), "Other
# commands" (version, verbosity, quit, shutdown, cache_memlimit),
# "Operator verbs" (stats cachedump, lru_crawler, slabs, lru), "watch" and
# "help", written from the doc alone. Tests without the mcds-only tag check
# what the doc gives as memcached 1.6.18's behaviour and also run with
# ./runtest --server /usr/bin/memcached.

set ::dadm_general {pid uptime time version libevent pointer_size rusage_user rusage_system max_connections curr_connections total_connections rejected_connections connection_structures response_obj_oom response_obj_count response_obj_bytes read_buf_count read_buf_bytes read_buf_bytes_free read_buf_oom reserved_fds cmd_get cmd_set cmd_flush cmd_touch cmd_meta get_hits get_misses get_expired get_flushed delete_misses delete_hits incr_misses incr_hits decr_misses decr_hits cas_misses cas_hits cas_badval touch_hits touch_misses store_too_large store_no_memory auth_cmds auth_errors bytes_read bytes_written limit_maxbytes accepting_conns listen_disabled_num time_in_listen_disabled_us threads conn_yields hash_power_level hash_bytes hash_is_expanding slab_reassign_rescues slab_reassign_chunk_rescues slab_reassign_evictions_nomem slab_reassign_inline_reclaim slab_reassign_busy_items slab_reassign_busy_deletes slab_reassign_running slabs_moved lru_crawler_running lru_crawler_starts lru_maintainer_juggles malloc_fails log_worker_dropped log_worker_written log_watcher_skipped log_watcher_sent log_watchers unexpected_napi_ids round_robin_fallback bytes curr_items total_items slab_global_page_pool expired_unfetched evicted_unfetched evicted_active evictions reclaimed crawler_reclaimed crawler_items_checked lrutail_reflocked moves_to_cold moves_to_warm moves_within_lru direct_reclaims lru_bumps_dropped}

set ::dadm_settings {maxbytes maxconns tcpport udpport inter verbosity oldest evictions domain_socket umask shutdown_command growth_factor chunk_size num_threads num_threads_per_udp stat_key_prefix detail_enabled reqs_per_event cas_enabled tcp_backlog binding_protocol auth_enabled_sasl auth_enabled_ascii item_size_max maxconns_fast hashpower_init slab_reassign slab_automove slab_automove_ratio slab_automove_window slab_chunk_max lru_crawler lru_crawler_sleep lru_crawler_tocrawl tail_repair_time flush_enabled dump_enabled hash_algorithm lru_maintainer_thread lru_segmented hot_lru_pct warm_lru_pct hot_max_factor warm_max_factor temp_lru temporary_ttl idle_timeout watcher_logbuf_size worker_logbuf_size read_buf_mem_limit track_sizes inline_ascii_response ext_item_size ext_item_age ext_low_ttl ext_recache_rate ext_wbuf_size ext_compact_under ext_drop_under ext_max_sleep ext_max_frag slab_automove_freeratio ext_drop_unread ssl_enabled ssl_chain_cert ssl_key ssl_verify_mode ssl_keyformat ssl_ciphers ssl_ca_cert ssl_wbuf_size ssl_session_cache ssl_kernel_tls ssl_min_version num_napi_ids memory_file}

start_server {tags {doc_admin}} {
    set fd [mc_connect]

    # ---- stats ----

    test {stats: memcached 1.6.18's 92 general names, in its order, come first} {
        set names [dict keys [mc_stats $fd]]
        set first [lrange $names 0 91]
        expr {$first eq $::dadm_general ? "same" : "got: $first"}
    } same

    test {stats: mcds's own names follow memcached's, starting with mcds_version} {
        set names [dict keys [mc_stats $fd]]
        list [lindex $names 92] [expr {[lsearch $names expiry_index_entries] > 92}] \
            [expr {[lsearch $names conn_event_changes] > [lsearch $names persistence]}] \
            [expr {[lsearch $names worker_notifies] == [lsearch $names conn_event_changes] + 1}]
    } {mcds_version 1 1 1} {mcds-only}

    test {stats: version is 1.6.18; parts mcds does not have are 0} {
        set d [mc_stats $fd]
        set out [dict get $d version]
        foreach n {response_obj_count reserved_fds listen_disabled_num time_in_listen_disabled_us
                   slab_reassign_rescues slabs_moved slab_global_page_pool lru_crawler_running
                   lru_crawler_starts crawler_items_checked lru_maintainer_juggles lrutail_reflocked
                   moves_to_cold moves_to_warm moves_within_lru direct_reclaims lru_bumps_dropped
                   malloc_fails unexpected_napi_ids round_robin_fallback log_worker_dropped
                   log_worker_written log_watcher_skipped log_watcher_sent} {
            if {[dict get $d $n] ne "0"} { lappend out "$n=[dict get $d $n]" }
        }
        set out
    } {1.6.18} {mcds-only}

    test {stats: an unknown group is ERROR; extra tokens after a group are ignored} {
        mc_exchange $fd "stats foo\r\nstats sizes extra tokens\r\nstats resetx\r\n"
    } "ERROR\r\nSTAT sizes_status disabled\r\nEND\r\nERROR\r\n"

    test {stats sizes answers STAT sizes_status disabled} {
        mc_exchange $fd "stats sizes\r\n"
    } "STAT sizes_status disabled\r\nEND\r\n"

    test {stats reset answers RESET, zeroes totals, keeps curr_items, curr_connections and bytes} {
        mc_exchange $fd "flush_all\r\nset r1 0 0 5\r\nhello\r\nget r1 r2\r\ndelete r3\r\nincr r1 1\r\n"
        set before [mc_stats $fd]
        set r [mc_exchange $fd "stats reset\r\n"]
        set d [mc_stats $fd]
        list $r [dict get $d cmd_get] [dict get $d get_hits] [dict get $d get_misses] \
            [dict get $d delete_misses] [dict get $d incr_misses] [dict get $d total_items] \
            [dict get $d total_connections] [dict get $d cmd_flush] \
            [expr {[dict get $d curr_items] == [dict get $before curr_items]}] \
            [expr {[dict get $d bytes] == [dict get $before bytes]}] \
            [expr {[dict get $d curr_connections] == [dict get $before curr_connections]}]
    } [list "RESET\r\n" 0 0 0 0 0 0 0 0 1 1 1]

    test {stats: get and gets count cmd_get per key and a hit or a miss} {
        mc_exchange $fd "set c1 0 0 1\r\nx\r\n"
        mc_stats_delta $fd "get c1 nope c1\r\ngets c1 nope\r\n" {cmd_get get_hits get_misses cmd_touch}
    } {cmd_get 5 get_hits 3 get_misses 2 cmd_touch 0}

    test {stats: gat and gats count cmd_touch and touch_hits/touch_misses instead} {
        mc_exchange $fd "set c1 0 0 1\r\nx\r\n"
        mc_stats_delta $fd "gat 0 c1 nope\r\ngats 0 c1\r\n" {cmd_get get_hits get_misses cmd_touch touch_hits touch_misses}
    } {cmd_get 0 get_hits 0 get_misses 0 cmd_touch 3 touch_hits 2 touch_misses 1}

    test {stats: storage, delete, incr/decr, cas and touch counters move as in memcached} {
        mc_exchange $fd "flush_all\r\nset k 0 0 1\r\n1\r\n"
        regexp {VALUE k 0 1 (\d+)} [mc_exchange $fd "gets k\r\n"] -> cas
        mc_stats_delta $fd [string cat "set k 0 0 1\r\n2\r\nadd k 0 0 1\r\n3\r\nreplace nope 0 0 1\r\n3\r\n" \
            "append k 0 0 1\r\n4\r\nprepend nope 0 0 1\r\n5\r\ncas k 0 0 1 1\r\n6\r\ncas nope 0 0 1 1\r\n7\r\n" \
            "gets k\r\ndelete nope\r\nincr k 1\r\nincr nope 1\r\ndecr k 1\r\ndecr nope 1\r\ntouch k 0\r\ntouch nope 0\r\n" \
            "delete k\r\n"] \
            {cmd_set delete_hits delete_misses incr_hits incr_misses decr_hits decr_misses cas_hits cas_badval cas_misses touch_hits touch_misses cmd_touch}
    } {cmd_set 7 delete_hits 1 delete_misses 1 incr_hits 1 incr_misses 1 decr_hits 1 decr_misses 1 cas_hits 0 cas_badval 1 cas_misses 1 touch_hits 1 touch_misses 1 cmd_touch 2}

    test {stats: a successful cas counts cas_hits} {
        mc_exchange $fd "set k 0 0 1\r\n1\r\n"
        regexp {VALUE k 0 1 (\d+)} [mc_exchange $fd "gets k\r\n"] -> cas
        mc_stats_delta $fd "cas k 0 0 1 $cas\r\n9\r\n" {cas_hits cas_badval cas_misses cmd_set}
    } {cas_hits 1 cas_badval 0 cas_misses 0 cmd_set 1}

    test {stats: flush_all counts cmd_flush; a too large set counts store_too_large} {
        mc_stats_delta $fd "flush_all\r\nflush_all 100\r\nflush_all 0\r\nset big 0 0 2000000 noreply\r\n[string repeat x 2000000]\r\n" \
            {cmd_flush store_too_large}
    } {cmd_flush 3 store_too_large 1}

    # conn_yields is memcached's count of connections that gave way after
    # -R requests; the doc gives it no other meaning.
    test {stats: a flush_all does not count in conn_yields (memcached's -R yields)} {
        mc_stats_delta $fd "flush_all\r\nflush_all\r\n" {conn_yields}
    } {conn_yields 0}

    test {stats: more than -R (20) pipelined requests count conn_yields} {
        set req {}
        for {set i 0} {$i < 50} {incr i} { append req "get y$i\r\n" }
        set d [mc_stats_delta $fd $req {conn_yields}]
        expr {[lindex $d 1] >= 1}
    } 1

    # ---- stats settings ----

    test {stats settings: memcached 1.6.18's 76 names in its order come first} {
        set names [dict keys [mc_stats $fd settings]]
        set first [lrange $names 0 75]
        expr {$first eq $::dadm_settings ? "same" : "got: $first"}
    } same

    test {stats settings: then mcds's own: debug conn_output_max data_dir fsync persist_items strict_replay receipts_only log_stall_timeout metrics_port metrics_listen metrics_top} {
        lrange [dict keys [mc_stats $fd settings]] 76 end
    } {debug conn_output_max data_dir fsync persist_items strict_replay receipts_only log_stall_timeout metrics_port metrics_listen metrics_top} {mcds-only}

    test {stats settings: mcds's values for hash_algorithm and the parts it does not have} {
        set d [mc_stats $fd settings]
        lmap n {hash_algorithm slab_reassign lru_maintainer_thread lru_segmented temp_lru auth_enabled_sasl auth_enabled_ascii ext_drop_unread track_sizes} {dict get $d $n}
    } {siphash13 no no no no no no no no} {mcds-only}

    # "the other slab, LRU-tuning and extstore names show memcached's
    # defaults" (slab_automove_ratio is not among the names the doc says the
    # operator verbs set).
    test {stats settings: slab_automove_ratio shows memcached's default 0.80} {
        dict get [mc_stats $fd settings] slab_automove_ratio
    } 0.80

    test {stats settings: the other LRU-tuning and extstore names show memcached's defaults} {
        set d [mc_stats $fd settings]
        lmap n {hot_lru_pct warm_lru_pct hot_max_factor warm_max_factor temporary_ttl slab_automove_window slab_chunk_max ext_item_size ext_wbuf_size ext_max_frag slab_automove_freeratio} {dict get $d $n}
    } {20 40 0.20 2.00 61 30 524288 512 4194304 0.80 0.010}

    test {stats settings: what the operator verbs set shows (slab_automove, lru_crawler_sleep, lru_crawler_tocrawl)} {
        mc_exchange $fd "slabs automove 2\r\nlru_crawler sleep 777\r\nlru_crawler tocrawl 33\r\n"
        set d [mc_stats $fd settings]
        set r [lmap n {slab_automove lru_crawler_sleep lru_crawler_tocrawl} {dict get $d $n}]
        mc_exchange $fd "slabs automove 1\r\nlru_crawler sleep 100\r\nlru_crawler tocrawl 0\r\n"
        set r
    } {2 777 33}

    test {stats settings: verbosity, maxbytes (cache_memlimit) and detail_enabled follow their commands} {
        mc_exchange $fd "verbosity 2\r\ncache_memlimit 100\r\nstats detail on\r\n"
        set d [mc_stats $fd settings]
        set r [list [dict get $d verbosity] [dict get $d maxbytes] [dict get $d detail_enabled] \
            [dict get [mc_stats $fd] limit_maxbytes]]
        mc_exchange $fd "verbosity 0\r\ncache_memlimit 64\r\nstats detail off\r\n"
        set r
    } {2 104857600 yes 104857600}

    # ---- stats items, slabs ----

    test {stats items: the doc's 28 names after items:1:} {
        mc_exchange $fd "flush_all\r\nset it 0 0 5\r\nhello\r\n"
        lmap n [dict keys [mc_stats $fd items]] {regsub {^items:1:} $n {}}
    } {number number_hot number_warm number_cold age_hot age_warm age mem_requested evicted evicted_nonzero evicted_time outofmemory tailrepairs reclaimed expired_unfetched evicted_unfetched evicted_active crawler_reclaimed crawler_items_checked lrutail_reflocked moves_to_cold moves_to_warm moves_within_lru direct_reclaims hits_to_hot hits_to_warm hits_to_cold hits_to_temp}

    test {stats slabs: class 1's names, then active_slabs and total_malloced} {
        mc_exchange $fd "flush_all\r\nset it 0 0 5\r\nhello\r\n"
        dict keys [mc_stats $fd slabs]
    } {1:chunk_size 1:chunks_per_page 1:total_pages 1:total_chunks 1:used_chunks 1:free_chunks 1:free_chunks_end 1:get_hits 1:cmd_set 1:delete_hits 1:incr_hits 1:decr_hits 1:cas_hits 1:cas_badval 1:touch_hits active_slabs total_malloced}

    test {stats slabs: used_chunks and total_chunks are the item count, free_chunks 0} {
        mc_exchange $fd "flush_all\r\nset a1 0 0 1\r\nx\r\nset a2 0 0 1\r\nx\r\nset a3 0 0 1\r\nx\r\n"
        set d [mc_stats $fd slabs]
        lmap n {1:used_chunks 1:total_chunks 1:free_chunks 1:free_chunks_end 1:total_pages active_slabs} {dict get $d $n}
    } {3 3 0 0 1 1} {mcds-only}

    test {stats items and slabs are empty of class lines while no item is stored} {
        mc_exchange $fd "flush_all\r\n"
        list [mc_exchange $fd "stats items\r\n"] [dict keys [mc_stats $fd slabs]]
    } [list "END\r\n" {active_slabs total_malloced}] {mcds-only}

    # ---- stats detail ----

    test {stats detail: bad or missing argument is the usage error} {
        mc_exchange $fd "stats detail\r\nstats detail foo\r\n"
    } "CLIENT_ERROR usage: stats detail on|off|dump\r\nCLIENT_ERROR usage: stats detail on|off|dump\r\n"

    test {stats detail: on counts gets, hits, sets and deletes under the prefix before the first colon} {
        mc_exchange $fd "stats reset\r\nstats detail on\r\n"
        mc_exchange $fd [string cat "set p:1 0 0 1\r\nx\r\nget p:1 p:2 nocolon\r\ngets p:1\r\ngat 0 p:1 p:3\r\n" \
            "add p:1 0 0 1\r\nx\r\nreplace p:9 0 0 1\r\nx\r\nappend p:1 0 0 1\r\ny\r\nprepend p:1 0 0 1\r\ny\r\n" \
            "cas p:1 0 0 1 1\r\nx\r\ndelete p:1\r\ndelete p:8\r\nset nocolon 0 0 1\r\nx\r\n"]
        set r [mc_exchange $fd "stats detail dump\r\n"]
        mc_exchange $fd "stats detail off\r\n"
        set r
    } "PREFIX p get 5 hit 3 set 6 del 2\r\nEND\r\n"

    test {stats detail: meta commands are not counted; off keeps the counts; stats reset clears them} {
        mc_exchange $fd "stats reset\r\nstats detail on\r\nset q:1 0 0 1\r\nx\r\nmg q:1 v\r\nms q:2 1\r\nx\r\nmd q:2\r\nstats detail off\r\nget q:1\r\n"
        set a [mc_exchange $fd "stats detail dump\r\n"]
        mc_exchange $fd "stats reset\r\n"
        list $a [mc_exchange $fd "stats detail dump\r\n"]
    } [list "PREFIX q get 0 hit 0 set 1 del 0\r\nEND\r\n" "END\r\n"]

    test {stats detail dump: one line per prefix, newest first} {
        mc_exchange $fd "stats reset\r\nstats detail on\r\nset a:1 0 0 1\r\nx\r\nset b:1 0 0 1\r\nx\r\nset c:1 0 0 1\r\nx\r\nstats detail off\r\n"
        mc_exchange $fd "stats detail dump\r\n"
    } "PREFIX c get 0 hit 0 set 1 del 0\r\nPREFIX b get 0 hit 0 set 1 del 0\r\nPREFIX a get 0 hit 0 set 1 del 0\r\nEND\r\n" {mcds-only}

    # ---- stats conns ----

    test {stats conns: the listener, then each connection: addr, listen_addr, state, secs_since_last_cmd} {
        set c [mc_connect]
        mc_cmd $c version
        set lines [split [string trimright [mc_exchange $fd "stats conns\r\n"] \n] \n]
        set ok 1
        set listeners 0
        set conns 0
        foreach l [lrange $lines 0 end-1] {
            if {[regexp {^STAT (\d+):addr tcp:127\.0\.0\.1:(\d+)\r$} $l -> cfd port]} {
                if {$port == [srv port]} { incr listeners } else { incr conns }
            } elseif {![regexp {^STAT \d+:(listen_addr tcp:127\.0\.0\.1:\d+|state conn_[a-z_]+|secs_since_last_cmd \d+)\r$} $l]} {
                set ok "bad line $l"
            }
        }
        mc_close $c
        list $ok $listeners [expr {$conns >= 2}] [string match "STAT *:addr *" [lindex $lines 0]] \
            [string match "*state conn_listening*" [lindex $lines 1]]
    } {1 1 1 1 1}

    test {stats conns: a connection reading a value is conn_nread, a watcher conn_watch} {
        set c [mc_connect]
        mc_send $c "set half 0 0 10\r\nabc"
        set w [mc_connect]
        mc_send $w "watch\r\n"
        assert_equal [mc_readline $w] OK
        after 100
        set r [mc_exchange $fd "stats conns\r\n"]
        mc_close $c
        mc_close $w
        list [regexp {conn_nread} $r] [regexp {conn_watch} $r]
    } {1 1}

    test {stats conns: an idle connection is conn_read, the asking one conn_parse_cmd} {
        set c [mc_connect]
        mc_cmd $c version
        set r [mc_exchange $fd "stats conns\r\n"]
        mc_close $c
        list [regexp {conn_read} $r] [regexp {conn_parse_cmd} $r]
    } {1 1} {mcds-only}

    # ---- stats cachedump ----

    test {stats cachedump 1: one ITEM line per item with value bytes and expiry} {
        mc_exchange $fd "set cd1 0 0 3\r\nabc\r\n"
        set r [mc_exchange $fd "stats cachedump 1 0\r\n"]
        list [string match "*ITEM cd1 \\\[3 b; 0 s\\\]\r\n*" $r] [string range $r end-4 end]
    } [list 1 "END\r\n"] {mcds-only}

    test {stats cachedump: classes 0 and 2..63 END, above 63 Illegal slab id, bad arguments} {
        mc_exchange $fd "stats cachedump 0 1\r\nstats cachedump 2 1\r\nstats cachedump 63 1\r\nstats cachedump 64 1\r\nstats cachedump 1\r\nstats cachedump x 1\r\nstats cachedump 1 x\r\n"
    } "END\r\nEND\r\nEND\r\nCLIENT_ERROR Illegal slab id\r\nCLIENT_ERROR bad command line\r\nCLIENT_ERROR bad command line format\r\nCLIENT_ERROR bad command line format\r\n"

    # ---- version, verbosity, quit, shutdown, cache_memlimit ----

    test {version: VERSION 1.6.18, extra tokens ignored} {
        mc_send $fd "version a b c\r\nversion\r\n"
        list [mc_readline $fd] [mc_readline $fd]
    } {{VERSION 1.6.18} {VERSION 1.6.18}}

    test {verbosity: OK; not a number CLIENT_ERROR; no level ERROR; noreply silent} {
        mc_exchange $fd "verbosity 1\r\nverbosity x\r\nverbosity\r\nverbosity 1 noreply\r\nverbosity x noreply\r\nverbosity 0\r\n"
    } "OK\r\nCLIENT_ERROR bad command line format\r\nERROR\r\nOK\r\n"

    test {quit: closes the connection, no reply; what follows is not served} {
        set c [mc_connect]
        mc_send $c "version\r\nquit\r\nset after 0 0 1\r\nx\r\n"
        list [mc_read_until_close $c] [mc_get $fd after]
    } [list "VERSION 1.6.18\r\n" {}]

    test {shutdown without -A: ERROR: shutdown not enabled, for every mode} {
        mc_exchange $fd "shutdown\r\nshutdown graceful\r\nshutdown foo\r\n"
    } "ERROR: shutdown not enabled\r\nERROR: shutdown not enabled\r\nERROR: shutdown not enabled\r\n"

    test {cache_memlimit: OK and limit_maxbytes follows; below 8 MEMLIMIT_TOO_SMALL; not a number ERROR} {
        set r [mc_exchange $fd "cache_memlimit 100\r\ncache_memlimit 7\r\ncache_memlimit 0\r\ncache_memlimit x\r\ncache_memlimit\r\n"]
        set r [list $r [dict get [mc_stats $fd] limit_maxbytes]]
        mc_exchange $fd "cache_memlimit 64\r\n"
        set r
    } [list "OK\r\nMEMLIMIT_TOO_SMALL cannot set maxbytes to less than 8m\r\nMEMLIMIT_TOO_SMALL cannot set maxbytes to less than 8m\r\nERROR\r\nERROR\r\n" 104857600]

    test {cache_memlimit noreply: a good size and a too small one are silent} {
        mc_exchange $fd "cache_memlimit 80 noreply\r\ncache_memlimit 7 noreply\r\ncache_memlimit 64 noreply\r\n"
    } ""

    # Conventions: "[noreply] ... the command then sends no reply at all,
    # not even an error."
    test {cache_memlimit noreply: a size that is not a number is silent too} {
        mc_exchange $fd "cache_memlimit x noreply\r\ncache_memlimit noreply\r\n"
    } ""

    # ---- lru_crawler ----

    test {lru_crawler crawl: OK for all and classes; BADCLASS for 0, over 63, not a number} {
        set r [mc_exchange $fd "lru_crawler crawl all\r\n"]
        # (memcached answers BUSY while its crawl runs: one crawl at a time)
        after 1000
        append r [mc_exchange $fd "lru_crawler crawl 1,2,63\r\n"]
        after 1000
        append r [mc_exchange $fd "lru_crawler crawl 0\r\nlru_crawler crawl 64\r\nlru_crawler crawl x\r\nlru_crawler crawl 1,x\r\n"]
    } "OK\r\nOK\r\nBADCLASS invalid class id\r\nBADCLASS invalid class id\r\nBADCLASS invalid class id\r\nBADCLASS invalid class id\r\n"

    test {lru_crawler crawl: pipelined crawls all answer OK} {
        mc_exchange $fd "lru_crawler crawl all\r\nlru_crawler crawl 1\r\nlru_crawler crawl 1,2\r\n"
    } "OK\r\nOK\r\nOK\r\n" {mcds-only}

    test {lru_crawler sleep and tocrawl: OK; sleep over a second refused} {
        mc_exchange $fd "lru_crawler sleep 1000000\r\nlru_crawler sleep 1000001\r\nlru_crawler tocrawl 5\r\nlru_crawler sleep 100\r\nlru_crawler tocrawl 0\r\n"
    } "OK\r\nCLIENT_ERROR sleep must be one second or less\r\nOK\r\nOK\r\nOK\r\n"

    test {lru_crawler metadump: one line per item ended by a bare newline, key percent-encoded, then END} {
        mc_exchange $fd "flush_all\r\nset b%r 0 0 1\r\nx\r\nset plain-._~ 0 100 2\r\nxy\r\n"
        after 1000
        set c [mc_connect]
        mc_send $c "lru_crawler metadump all\r\n"
        set lines {}
        while {[set l [mc_read_bytes $c 1]] ne {}} {
            set line $l
            while {[set ch [mc_read_bytes $c 1]] ne "\n"} { append line $ch }
            lappend lines $line
            if {$line eq "END\r"} break
        }
        set lines [lsort $lines]
        list [llength $lines] [lindex $lines 0] \
            [regexp {^key=b%25r exp=-1 la=\d+ cas=\d+ fetch=no cls=1 size=\d+$} [lindex $lines 1]] \
            [regexp {^key=plain-\._~ exp=\d+ la=\d+ cas=\d+ fetch=no cls=1 size=\d+$} [lindex $lines 2]]
    } [list 3 "END\r" 1 1]

    # (a metadump on its own connection, as its first command: memcached
    # refuses one pipelined after others)
    proc dadm_metadump {arg} {
        after 1000
        set c [mc_connect]
        mc_send $c "lru_crawler metadump $arg\r\n"
        set out {}
        while 1 {
            set line [mc_readline_lf $c]
            append out $line
            if {[string match "END\r\n" $line] || [string match "BADCLASS*" $line] || [string match "CLIENT_ERROR*" $line]} break
        }
        mc_close $c
        return $out
    }
    proc mc_readline_lf {c} {
        set line {}
        while {[set ch [mc_read_bytes $c 1]] ne "\n"} { append line $ch }
        return "$line\n"
    }

    test {lru_crawler metadump: a class list with 1 dumps every item; other classes END; bad class BADCLASS} {
        mc_exchange $fd "flush_all\r\nset md 0 0 1\r\nx\r\n"
        list [regexp {key=md exp=-1 [^\n]* cls=1 size=\d+\nEND\r\n$} [dadm_metadump 1,2]] \
            [dadm_metadump 2,3] [dadm_metadump 0] [dadm_metadump 64] [dadm_metadump x]
    } [list 1 "END\r\n" "BADCLASS invalid class id\r\n" "BADCLASS invalid class id\r\n" "BADCLASS invalid class id\r\n"]

    test {lru_crawler disable, then crawl and metadump are refused; enable on a running crawler fails} {
        after 1000
        set r [mc_exchange $fd "lru_crawler disable\r\n"]
        after 500
        append r [mc_exchange $fd "lru_crawler crawl all\r\n"] [dadm_metadump all]
        append r [mc_exchange $fd "lru_crawler enable\r\n"]
        after 500
        append r [mc_exchange $fd "lru_crawler enable\r\n"]
        list $r [dict get [mc_stats $fd settings] lru_crawler]
    } [list "OK\r\nCLIENT_ERROR lru crawler disabled\r\nCLIENT_ERROR lru crawler disabled\r\nOK\r\nERROR failed to start lru crawler thread\r\n" yes]

    # ---- slabs, lru ----

    test {slabs automove: 0, 1, 2 OK; another number ERROR; not a number CLIENT_ERROR; noreply silent} {
        mc_exchange $fd "slabs automove 0\r\nslabs automove 2\r\nslabs automove 3\r\nslabs automove x\r\nslabs automove 1 noreply\r\nslabs automove 1\r\n"
    } "OK\r\nOK\r\nERROR\r\nCLIENT_ERROR bad command line format\r\nOK\r\n"

    test {slabs automove ratio: OK; missing or bad ratio ERROR; slabs with anything else ERROR} {
        mc_exchange $fd "slabs automove ratio 0.5\r\nslabs automove ratio\r\nslabs automove ratio x\r\nslabs\r\nslabs foo\r\nslabs automove ratio 0.8\r\n"
    } "OK\r\nERROR\r\nERROR\r\nERROR\r\nERROR\r\nOK\r\n"

    test {slabs reassign: CLIENT_ERROR slab reassignment disabled} {
        mc_exchange $fd "slabs reassign 1 2\r\nslabs reassign x y\r\n"
    } "CLIENT_ERROR slab reassignment disabled\r\nCLIENT_ERROR slab reassignment disabled\r\n" {mcds-only}

    test {lru tune: checked as memcached, then OK} {
        mc_exchange $fd "lru tune 10 20 0.1 2\r\nlru tune 50 40 0.1 2\r\nlru tune 10 20 0 2\r\nlru tune x 20 0.1 2\r\nlru tune 10 20 0.1\r\nlru tune 10 20 0.1 2 noreply\r\nlru tune 20 40 0.2 2\r\n"
    } "OK\r\nERROR hot and warm pcts must not exceed 80\r\nERROR hot/warm age factors must be greater than 0\r\nERROR\r\nERROR\r\nOK\r\n"

    test {lru mode, lru temp_ttl and lru with anything else: ERROR (no LRU maintainer)} {
        mc_exchange $fd "lru mode flat\r\nlru temp_ttl 5\r\nlru\r\nlru foo\r\n"
    } "ERROR\r\nERROR\r\nERROR\r\nERROR\r\n" {mcds-only}

    # ---- watch ----

    test {watch: unknown words ERROR; memcached's other names are accepted} {
        set out {}
        foreach args {foo {fetchers foo} rawcmds {sysevents connevents} {proxyreqs proxyevents proxyuser} {mutations evictions}} {
            set c [mc_connect]
            mc_send $c "watch $args\r\n"
            lappend out [mc_readline $c]
            mc_close $c
        }
        set out
    } {ERROR ERROR OK OK OK OK}

    test {watch fetchers and mutations: the doc's line formats} {
        set w [mc_connect]
        mc_send $w "watch fetchers mutations\r\n"
        assert_equal [mc_readline $w] OK
        mc_exchange $fd "set w%1 0 100 3\r\nabc\r\nget w%1 nokey\r\nadd w%1 0 0 1\r\nx\r\n"
        set lines {}
        set deadline [expr {[clock milliseconds] + 3000}]
        fconfigure $w -blocking 0
        while {[llength $lines] < 4 && [clock milliseconds] < $deadline} {
            if {[gets $w l] > 0} { lappend lines $l } else { after 20 }
        }
        fconfigure $w -blocking 1
        mc_close $w
        list [llength $lines] \
            [regexp {^ts=\d+\.\d{6} gid=\d+ type=item_store key=w%251 status=stored cmd=set ttl=100 clsid=1 cfd=\d+ size=3$} [lindex $lines 0]] \
            [regexp {^ts=\d+\.\d{6} gid=\d+ type=item_get key=w%251 status=found clsid=1 cfd=\d+ size=3$} [lindex $lines 1]] \
            [regexp {^ts=\d+\.\d{6} gid=\d+ type=item_get key=nokey status=not_found clsid=0 cfd=\d+ size=0$} [lindex $lines 2]] \
            [regexp {^ts=\d+\.\d{6} gid=\d+ type=item_store key=w%251 status=not_stored cmd=add ttl=0 clsid=1 cfd=\d+ size=1$} [lindex $lines 3]]
    } {4 1 1 1 1} {mcds-only}

    test {watch: log_watchers counts the watchers} {
        set w [mc_connect]
        mc_send $w "watch\r\n"
        mc_readline $w
        set n [dict get [mc_stats $fd] log_watchers]
        mc_close $w
        set n
    } 1

    test {watch: at most 8 watchers; the next one is WATCHER_TOO_MANY} {
        set ws {}
        set out {}
        for {set i 0} {$i < 9} {incr i} {
            set w [mc_connect]
            mc_send $w "watch\r\n"
            lappend out [mc_readline $w]
            lappend ws $w
        }
        set n [dict get [mc_stats $fd] log_watchers]
        foreach w $ws { mc_close $w }
        list [lsort -unique [lrange $out 0 7]] [lindex $out 8] $n
    } {OK {WATCHER_TOO_MANY log watcher limit reached} 8} {mcds-only}

    test {stats detail: at most 1024 prefixes are kept} {
        set req "stats reset\r\nstats detail on\r\n"
        for {set i 0} {$i < 1100} {incr i} { append req "set p$i:x 0 0 1 noreply\r\nx\r\n" }
        append req "stats detail off\r\n"
        mc_exchange $fd $req
        set n [regexp -all {PREFIX } [mc_exchange $fd "stats detail dump\r\n"]]
        mc_exchange $fd "stats reset\r\n"
        set n
    } 1024 {mcds-only}

    # ---- help ----

    test {help: one line per verb then END; help <verb> its line; unknown verb; two arguments ERROR} {
        set all [mc_exchange $fd "help\r\n"]
        set lines [split [string trimright $all \n] \n]
        list [lindex $lines end] [regexp {^HELP set [^\r]+\r$} [lindex $lines 0]] \
            [expr {[lsearch -regexp $lines {^HELP debugtime }] >= 0}] \
            [mc_exchange $fd "help version\r\nhelp nosuchverb\r\nhelp get set\r\n"]
    } [list "END\r" 1 1 "HELP version the memcached protocol level\r\nEND\r\nCLIENT_ERROR unknown verb\r\nERROR\r\n"] {mcds-only}
}

start_server {tags {doc_admin} args {-A}} {
    test {shutdown with -A: another mode is CLIENT_ERROR invalid shutdown mode} {
        mc_exchange [mc_connect] "shutdown foo\r\nshutdown graceful x\r\n"
    } "CLIENT_ERROR invalid shutdown mode\r\nCLIENT_ERROR invalid shutdown mode\r\n"

    test {shutdown with -A: no reply, every connection closed, the server exits 0} {
        set other [mc_connect]
        mc_cmd $other version
        set c [mc_connect]
        mc_send $c "shutdown\r\n"
        list [mc_read_until_close $c] [mc_read_until_close $other] [wait_server_exit]
    } {{} {} 0}
}
