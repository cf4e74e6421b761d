# The list verbs' CLIENT_ERROR lines say which argument is wrong
# (doc/protocol.md, lists, "Errors"): noreply out of place is named, a
# refused command with valid lengths still skips its blocks, one whose
# lengths cannot be read is the connection's last (its blocks never run),
# and noreply silences every other error.

start_server {tags {list mcds-only}} {
    set fd [mc_connect]

    # A verb with data blocks names the token and skips its blocks, however
    # many tokens the line has (a block is never run as a command); ltrim,
    # which has none, answers a count over its own with ERROR.
    test {a token after noreply: named and the blocks skipped; ERROR for ltrim, which has no block} {
        mc_exchange $fd [string cat [l_blocks "rpush e1 1" a] [l_blocks "lset e1 0 1 noreply x" b] \
                             [l_blocks "lrem e1 0 1 noreply x" b] "ltrim e1 0 1 noreply x\r\n" \
                             [l_blocks "rpush e1 1 noreply 1" c d] "lrange e1 0 10\r\n"]
    } [string cat "1\r\n" [string repeat "CLIENT_ERROR noreply must be the last token\r\n" 2] "ERROR\r\n" \
           "CLIENT_ERROR noreply must be the last token\r\n" "VALUE e1 0 1\r\na\r\nEND\r\n"]

    # The lengths after a noreply in a length's place can be read: the
    # blocks are skipped, never read as commands.
    test {lset, linsert: noreply in a length's place is named; the blocks are skipped} {
        mc_exchange $fd [string cat [l_blocks "lset e1 0 noreply 1" b] [l_blocks "ltrim e1 0 noreply 1"] \
                             [l_blocks "linsert e1 after 1 noreply 1" a c] "lrange e1 0 10\r\n"]
    } [string cat "CLIENT_ERROR noreply must be the last token\r\n" \
           "CLIENT_ERROR bad limit\r\n" \
           "CLIENT_ERROR noreply must be the last token\r\n" \
           "VALUE e1 0 1\r\na\r\nEND\r\n"]

    # A length that is not one: the blocks cannot be told from commands,
    # so the error is the connection's last reply, noreply or not, and
    # nothing the blocks hold runs (here, flush_all would empty the cache).
    test {a length that cannot be read: the error, then the connection closes; no block runs} {
        mc_set $fd keep v
        set r {}
        foreach req [list "rpush e9 9 9 junk\r\nflush_all\r\nflush_all\r\n" \
                         "rpush e9 9 9 junk 9\r\nflush_all\r\nflush_all\r\nflush_all\r\n" \
                         "lpush e9 9 abc 9\r\nflush_all\r\nflush_all\r\n" \
                         "rpush e9 1x noreply\r\nflush_all\r\n" \
                         "lset e9 0 x\r\nflush_all\r\n" "lrem e9 0 -1\r\nflush_all\r\n" \
                         "linsert e9 after 1 y\r\na\r\nflush_all\r\n" "lexists e9 z\r\nflush_all\r\n"] {
            lappend r [mc_last_reply $req]
        }
        lappend r [mc_get $fd keep] [mc_exchange $fd "llen e9\r\n"]
    } [list {*}[lrepeat 8 "CLIENT_ERROR bad length\r\n"] v "NOT_FOUND\r\n"]

    test {an unknown option is echoed without its value, cut at 32 bytes} {
        mc_exchange $fd "lcreate e2 [string repeat q 50]=1\r\nlpop e2 1 x\001y=2\r\n"
    } "CLIENT_ERROR unknown option [string repeat q 32]\r\nCLIENT_ERROR unknown option x?y\r\n"

    test {noreply silences the new errors} {
        mc_exchange $fd [string cat [l_blocks "lset e1 x 1 noreply" b] [l_blocks "lrem e1 x 1 noreply" b] \
                             [l_blocks "linsert e1 middle 1 1 noreply" a c] \
                             "ltrim e1 x 1 noreply\r\nltrim e1 0 x noreply\r\n" \
                             [l_blocks "rpush [string repeat k 251] 1 noreply" a] "lrange e1 0 10\r\n"]
    } "VALUE e1 0 1\r\na\r\nEND\r\n"
}
