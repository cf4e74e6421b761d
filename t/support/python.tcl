# python.tcl: finding the python3 that runs the suite's Python clients.

# A python3 that can import pymemcache, or a skip. Debian's /usr/bin/python3
# comes first: a python3 earlier on PATH (pyenv, a venv) may lack Debian's
# dist-packages.
proc pymemcache_python {} {
    if {[info exists ::pymc_python]} { return $::pymc_python }
    set candidates {}
    if {[file executable /usr/bin/python3]} { lappend candidates /usr/bin/python3 }
    set p [auto_execok python3]
    if {$p ne {} && [lindex $p 0] ni $candidates} { lappend candidates [lindex $p 0] }
    if {![llength $candidates]} { skip "python3 is not installed (apt-get install python3-pymemcache)" }
    foreach py $candidates {
        lassign [run_cmd 20 $py -c {import pymemcache}] status out
        if {$status eq "0"} {
            set ::pymc_python $py
            return $py
        }
    }
    skip "python3 -c 'import pymemcache' fails with [join $candidates {, }] (apt-get install python3-pymemcache): [string trim $out]"
}
