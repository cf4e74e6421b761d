# The documentation against the code: every option of mcds-server -h is in
# the man page and the README, the man pages format without warnings,
# contrib/mcds.conf starts the server through its wrapper, and every link in
# the Markdown documents leads to a file of the tree and a heading in it.
# Reads files and runs mcds-server -h / -V only: no server is started.

# {letter long} of each option mcds-server -h prints.
proc help_options {} {
    lassign [run_server_cmd -h] status out
    assert_equal $status 0 "mcds-server -h: $out"
    set opts {}
    foreach line [split $out \n] {
        if {[regexp {^\s+-(\S), --([a-z-]+)} $line -> letter long]} {
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

# GitHub's anchor of a heading: lower case, punctuation but - and _ dropped,
# spaces to dashes.
proc md_has_anchor {md anchor} {
    foreach line [split [read_file $md] \n] {
        if {![regexp {^#+\s+(.*?)\s*$} $line -> title]} { continue }
        set slug [string tolower $title]
        set slug [regsub -all {[^[:alnum:] _-]} $slug {}]
        set slug [string map {" " -} $slug]
        if {$slug eq $anchor} { return 1 }
    }
    return 0
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
            if {![regexp "\\.B \[^\n\]*\\m[string map {_ \\_} $name]\\(" $man]} {
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
}
