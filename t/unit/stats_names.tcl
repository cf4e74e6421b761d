# The names of stats, stats settings, stats items and stats slabs: every
# name memcached 1.6.18 reports, in its order, before mcds's own (which
# dashboards and exporters read). The lists were taken from memcached
# 1.6.18 (Debian's build) with one item stored; this file passes against it.

set stats_names_general {
    pid uptime time version libevent pointer_size rusage_user rusage_system max_connections
    curr_connections total_connections rejected_connections connection_structures
    response_obj_oom response_obj_count response_obj_bytes read_buf_count read_buf_bytes
    read_buf_bytes_free read_buf_oom reserved_fds cmd_get cmd_set cmd_flush cmd_touch
    cmd_meta get_hits get_misses get_expired get_flushed delete_misses delete_hits
    incr_misses incr_hits decr_misses decr_hits cas_misses cas_hits cas_badval touch_hits
    touch_misses store_too_large store_no_memory auth_cmds auth_errors bytes_read
    bytes_written limit_maxbytes accepting_conns listen_disabled_num
    time_in_listen_disabled_us threads conn_yields hash_power_level hash_bytes
    hash_is_expanding slab_reassign_rescues slab_reassign_chunk_rescues
    slab_reassign_evictions_nomem slab_reassign_inline_reclaim slab_reassign_busy_items
    slab_reassign_busy_deletes slab_reassign_running slabs_moved lru_crawler_running
    lru_crawler_starts lru_maintainer_juggles malloc_fails log_worker_dropped
    log_worker_written log_watcher_skipped log_watcher_sent log_watchers unexpected_napi_ids
    round_robin_fallback bytes curr_items total_items slab_global_page_pool
    expired_unfetched evicted_unfetched evicted_active evictions reclaimed crawler_reclaimed
    crawler_items_checked lrutail_reflocked moves_to_cold moves_to_warm moves_within_lru
    direct_reclaims lru_bumps_dropped
}

set stats_names_settings {
    maxbytes maxconns tcpport udpport inter verbosity oldest evictions domain_socket umask
    shutdown_command growth_factor chunk_size num_threads num_threads_per_udp
    stat_key_prefix detail_enabled reqs_per_event cas_enabled tcp_backlog binding_protocol
    auth_enabled_sasl auth_enabled_ascii item_size_max maxconns_fast hashpower_init
    slab_reassign slab_automove slab_automove_ratio slab_automove_window slab_chunk_max
    lru_crawler lru_crawler_sleep lru_crawler_tocrawl tail_repair_time flush_enabled
    dump_enabled hash_algorithm lru_maintainer_thread lru_segmented hot_lru_pct warm_lru_pct
    hot_max_factor warm_max_factor temp_lru temporary_ttl idle_timeout watcher_logbuf_size
    worker_logbuf_size read_buf_mem_limit track_sizes inline_ascii_response ext_item_size
    ext_item_age ext_low_ttl ext_recache_rate ext_wbuf_size ext_compact_under ext_drop_under
    ext_max_sleep ext_max_frag slab_automove_freeratio ext_drop_unread ssl_enabled
    ssl_chain_cert ssl_key ssl_verify_mode ssl_keyformat ssl_ciphers ssl_ca_cert
    ssl_wbuf_size ssl_session_cache ssl_kernel_tls ssl_min_version num_napi_ids memory_file
}

set stats_names_items {
    items:1:number items:1:number_hot items:1:number_warm items:1:number_cold
    items:1:age_hot items:1:age_warm items:1:age items:1:mem_requested items:1:evicted
    items:1:evicted_nonzero items:1:evicted_time items:1:outofmemory items:1:tailrepairs
    items:1:reclaimed items:1:expired_unfetched items:1:evicted_unfetched
    items:1:evicted_active items:1:crawler_reclaimed items:1:crawler_items_checked
    items:1:lrutail_reflocked items:1:moves_to_cold items:1:moves_to_warm
    items:1:moves_within_lru items:1:direct_reclaims items:1:hits_to_hot
    items:1:hits_to_warm items:1:hits_to_cold items:1:hits_to_temp
}

set stats_names_slabs {
    1:chunk_size 1:chunks_per_page 1:total_pages 1:total_chunks 1:used_chunks 1:free_chunks
    1:free_chunks_end 1:get_hits 1:cmd_set 1:delete_hits 1:incr_hits 1:decr_hits 1:cas_hits
    1:cas_badval 1:touch_hits active_slabs total_malloced
}

# The names of one stats group, in order.
proc stats_names {fd {sub {}}} {
    dict keys [mc_stats $fd $sub]
}

start_server {tags {stats}} {
    set fd [mc_connect]
    mc_exchange $fd "set a 0 0 1\r\nb\r\n"

    test {stats: memcached 1.6.18's 92 names first, in its order} {
        set names [stats_names $fd]
        list [llength $stats_names_general] [lrange $names 0 [expr {[llength $stats_names_general] - 1}]]
    } [list 92 [list {*}$stats_names_general]]

    test {stats settings: memcached 1.6.18's 76 names first, in its order} {
        set names [stats_names $fd settings]
        list [llength $stats_names_settings] [lrange $names 0 [expr {[llength $stats_names_settings] - 1}]]
    } [list 76 [list {*}$stats_names_settings]]

    test {stats items: memcached 1.6.18's 28 names for the class, in its order} {
        stats_names $fd items
    } [list {*}$stats_names_items]

    test {stats slabs: the class's 15 names, then active_slabs and total_malloced} {
        stats_names $fd slabs
    } [list {*}$stats_names_slabs]

    test {mcds's own names come after memcached's} {
        set names [stats_names $fd]
        list [lsearch $names mcds_version] [lsearch $names queue_ready] [lsearch [stats_names $fd settings] data_dir]
    } {92 * 7*} {mcds-only}

    test {stats settings: shutdown_command is no without -A} {
        dict get [mc_stats $fd settings] shutdown_command
    } no

    test {stats slabs: total_pages covers total_malloced in 1 MB pages} {
        set s [mc_stats $fd slabs]
        list [dict get $s 1:total_pages] [dict get $s 1:used_chunks] [dict get $s 1:free_chunks]
    } {1 1 0} {mcds-only}
}

start_server {tags {stats} args {-A}} {
    test {stats settings: shutdown_command is yes with -A} {
        dict get [mc_stats [mc_connect] settings] shutdown_command
    } yes
}
