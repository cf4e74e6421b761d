# The documentation against the code: every option of mcds-server -h is in
# the man page and the README, the man pages format without warnings,
# contrib/mcds.conf starts the server through its wrapper, and every link in
# the Markdown documents leads to a file of the tree and a heading in it, and
# protocol.md's index names every verb of the command table (read from the
# server's sources) and links it to a section that names it.
# Reads files and runs mcds-server -h / -V only: no server is started.

# {letter long} of each option mcds-server -h prints.
proc help_options {} {
    lassign [run_server_cmd -h] status out
    assert_equal $status 0 "mcds-server -h: $out"
    set opts {}
    foreach line [split $out \n] {
        if {[regexp {^\s+-(\S), --([a-z_-]+)} $line -> letter long]} {
            lappend opts [list $letter $long]
        }
    }
    assert_true {[llength $opts] > 10} "no options found in: $out"
    return $opts
}

# {letter long} of each option entry (.BR \-x ", " \-\-long) of the man page.
proc man_options {} {
    set opts {}
    foreach line [split [read_file [file join [srcdir] man mcds-server.1]] \n] {
        if {[regexp {^\.BR \\-(\S) ", " \\-\\-(\S+)} $line -> letter long]} {
            lappend opts [list $letter [string map {\\- -} $long]]
        }
    }
    return $opts
}

# The headings of a Markdown file, in order, as {anchor level line}: GitHub's
# anchor of each (lower case, punctuation but - and _ dropped, spaces to
# dashes; a heading whose anchor came before gets -1, -2 ... as GitHub
# numbers them), its level (the number of #) and its line (from 0). Lines
# of fenced code blocks are not headings. The file is read as UTF-8, so that
# a character such as "…" is dropped whole, as GitHub drops it.
proc md_headings {md} {
    global md_headings_cache
    if {[info exists md_headings_cache($md)]} { return $md_headings_cache($md) }
    set out {}
    set seen [dict create]
    set fence 0
    set n -1
    foreach line [split [encoding convertfrom utf-8 [read_file $md]] \n] {
        incr n
        if {[regexp {^ {0,3}(```|~~~)} $line]} {
            set fence [expr {!$fence}]
            continue
        }
        if {$fence || ![regexp {^ {0,3}(#{1,6})\s+(.*?)\s*$} $line -> hashes title]} { continue }
        regsub {\s+#+$} $title {} title
        set slug [string tolower $title]
        set slug [regsub -all {[^[:alnum:] _-]} $slug {}]
        set slug [string map {" " -} $slug]
        set base $slug
        while {[dict exists $seen $slug]} {
            dict incr seen $base
            set slug $base-[dict get $seen $base]
        }
        dict set seen $slug 0
        lappend out [list $slug [string length $hashes] $n]
    }
    set md_headings_cache($md) $out
    return $out
}

proc md_has_anchor {md anchor} {
    foreach h [md_headings $md] {
        if {[lindex $h 0] eq $anchor} { return 1 }
    }
    return 0
}

# The text of the section under the heading with that anchor, the heading
# line included, up to the next heading of its level or above.
proc md_section {md anchor} {
    set lines [split [encoding convertfrom utf-8 [read_file $md]] \n]
    set from -1
    foreach h [md_headings $md] {
        lassign $h slug level n
        if {$from >= 0 && $level <= $flevel} {
            return [join [lrange $lines $from [expr {$n - 1}]] \n]
        }
        if {$from < 0 && $slug eq $anchor} {
            set from $n
            set flevel $level
        }
    }
    if {$from < 0} { return {} }
    join [lrange $lines $from end] \n
}

# The names of the text protocol's command table: the "name" of each entry
# of every `const struct cmd_def <table>[] = { ... };` in the server's .c
# files (verbs/verbs.c registers them; `help` lists the same names).
proc command_table_verbs {} {
    set verbs {}
    set dirs [list [file join [srcdir] server]]
    while {[llength $dirs]} {
        set dirs [lassign $dirs dir]
        lappend dirs {*}[glob -nocomplain -types d -directory $dir *]
        foreach f [glob -nocomplain -types f -directory $dir *.c] {
            set in 0
            foreach line [split [read_file $f] \n] {
                if {[regexp {struct cmd_def\s+\w+\s*\[\s*\]\s*=\s*\{} $line]} {
                    set in 1
                } elseif {$in && [regexp {^\s*\};} $line]} {
                    set in 0
                } elseif {$in} {
                    foreach {- name} [regexp -all -inline {\{\s*"([^"]+)"} $line] {
                        lappend verbs $name
                    }
                }
            }
        }
    }
    lsort -unique $verbs
}

# {text anchor} of each link to a heading of the same file in the "## Index"
# section of doc/protocol.md (backquotes dropped from the text).
proc protocol_index_links {} {
    set md [file join [srcdir] doc protocol.md]
    set text [read_file $md]
    assert_true {[regexp {\n## Index\n(.*?)\n## } $text -> index]} "no ## Index section in $md"
    set links {}
    foreach {- name anchor} [regexp -all -inline {\[([^\]]+)\]\(#([^)\s]+)\)} $index] {
        lappend links [list [string map {` {}} $name] $anchor]
    }
    return $links
}

tags {docs mcds-only} {
    test {the man page has an entry for every option of -h, in its order, and no other} {
        assert_equal [man_options] [help_options]
    }

    test {the README names every option of -h} {
        set readme [read_file [file join [srcdir] README.md]]
        set missing {}
        foreach o [help_options] {
            if {[string first "`-[lindex $o 0]" $readme] < 0} { lappend missing -[lindex $o 0] }
        }
        set missing
    } {}

    test {the man pages format without warnings} {
        if {[auto_execok groff] eq {}} { skip "groff is not installed (apt-get install groff-base)" }
        foreach page {mcds-server.1 libmcds.3} {
            lassign [run_cmd 20 groff -man -ww -z [file join [srcdir] man $page]] status out
            assert_equal "$status [string trim $out]" "0 " "groff on $page"
        }
    }

    test {libmcds(3) has an entry for every function of mcds.h} {
        set man [read_file [file join [srcdir] man libmcds.3]]
        set missing {}
        foreach name [lsort -unique [regexp -all -inline {\mmcds_[a-z_]+(?=\()} \
                [read_file [file join [srcdir] client mcds.h]]]] {
            if {![regexp "\\.B \[^\n\]*\\m$name\\(" $man]} {
                lappend missing $name
            }
        }
        set missing
    } {}

    set wrapper [file join [srcdir] contrib systemd mcds-server-wrapper]

    test {contrib/mcds.conf, every commented option enabled too, starts mcds-server} {
        set conf [read_file [file join [srcdir] contrib mcds.conf]]
        set all [file join [tmpdir] all.conf]
        set f [open $all w]
        puts $f [regsub -all -line {^# -} $conf -]
        close $f
        foreach c [list [file join [srcdir] contrib mcds.conf] $all] {
            lassign [run_cmd 10 env MCDS_SERVER=$::cfg(server) sh $wrapper $c -V] status out
            assert_equal $status 0 "$c: $out"
            assert_match {mcds-server *} $out
        }
    }

    test {the wrapper passes option lines in order and skips comments, -d, -h and other lines} {
        set conf [file join [tmpdir] skip.conf]
        set f [open $conf w]
        puts $f "# comment\n-d\n  -m 128   # memory\nlogfile /var/log/x.log\n\n-p 0\n-h\n*\n-l 127.0.0.1"
        close $f
        lassign [run_cmd 10 env MCDS_SERVER=/bin/echo sh $wrapper $conf -V] status out
        assert_equal $status 0 $out
        string trim $out
    } {-m 128 -p 0 -l 127.0.0.1 -V}

    test {every Markdown link leads to a file of the tree and to a heading in it} {
        set bad {}
        set files [list [file join [srcdir] README.md] [file join [srcdir] t README.md]]
        lappend files {*}[glob -nocomplain [file join [srcdir] doc *.md]]
        foreach md $files {
            set text [read_file $md]
            foreach {- target} [regexp -all -inline {\]\(([^)\s]+)\)} $text] {
                if {[regexp {^[a-z]+:} $target]} { continue }
                lassign [split $target #] path anchor
                set dest [expr {$path eq {} ? $md : [file join [file dirname $md] $path]}]
                if {![file exists $dest]} {
                    lappend bad "$md: $target (no such file)"
                    continue
                }
                if {$anchor ne {} && ![md_has_anchor $dest $anchor]} {
                    lappend bad "$md: $target (no such heading)"
                }
            }
        }
        join $bad \n
    } {}

    test {protocol.md's index names every verb of the command table} {
        set verbs [command_table_verbs]
        assert_true {[llength $verbs] > 60} "too few verbs found in the command tables: $verbs"
        set named {}
        foreach l [protocol_index_links] { lappend named [lindex $l 0] }
        set missing {}
        foreach v $verbs {
            if {$v ni $named} { lappend missing $v }
        }
        set missing
    } {}

    test {protocol.md's index links each verb to a section that names it} {
        set md [file join [srcdir] doc protocol.md]
        set verbs [command_table_verbs]
        set bad {}
        foreach l [protocol_index_links] {
            lassign $l name anchor
            if {$name ni $verbs} { continue }
            set section [md_section $md $anchor]
            if {![regexp "(^|\[^a-z_\])${name}(\[^a-z_\]|\$)" $section]} {
                lappend bad "$name -> #$anchor"
            }
        }
        join $bad \n
    } {}
}
