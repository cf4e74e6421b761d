# The list verbs' CLIENT_ERROR lines say which argument is wrong
# (doc/protocol.md, lists, "Errors"): noreply out of place is named, a
# refused command with valid lengths still skips its blocks, and noreply
# silences every error.

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

    test {an unknown option is echoed without its value, cut at 32 bytes} {
        mc_exchange $fd "lcreate e2 [string repeat q 50]=1\r\nlpop e2 1 x\001y=2\r\n"
    } "CLIENT_ERROR unknown option [string repeat q 32]\r\nCLIENT_ERROR unknown option x?y\r\n"

    test {noreply silences the new errors} {
        mc_exchange $fd [string cat [l_blocks "lset e1 x 1 noreply" b] [l_blocks "lrem e1 x 1 noreply" b] \
                             [l_blocks "linsert e1 middle 1 1 noreply" a c] [l_blocks "rpush e1 1x noreply"] \
                             "ltrim e1 x 1 noreply\r\nltrim e1 0 x noreply\r\n" \
                             [l_blocks "rpush [string repeat k 251] 1 noreply" a] "lrange e1 0 10\r\n"]
    } "VALUE e1 0 1\r\na\r\nEND\r\n"
}
