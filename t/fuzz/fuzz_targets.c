/*
 * fuzz_targets: the four fuzz targets (one input = one run of the server,
 * see fuzz_server.h):
 *  - text: the input is what one client sends (the text protocol: every
 *    verb of server/proto/cmd.c's table, Kestrel reads);
 *  - bin: the same for the binary protocol (inputs not starting with its
 *    magic byte are skipped);
 *  - stream: a small header says how to cut the rest into writes and how
 *    to read (small socket buffers, a slow reader, a small output limit,
 *    an abrupt close); a text stream with no time-dependent reply must get
 *    byte for byte the replies it gets when sent whole;
 *  - multi: three clients on one server; control bytes switch client, hang
 *    one up, or let the server run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_server.h"

#define FUZZ_BIN_MAGIC 0x80
#define FUZZ_STREAM_HEADER 4
#define FUZZ_NCLIENTS 3
#define FUZZ_CTL_SWITCH 0x01    /* multi: the next client talks */
#define FUZZ_CTL_HANGUP 0x02    /* multi: the current client hangs up */
#define FUZZ_CTL_RUN 0x03       /* multi: the server runs until it settles */

/* Stream header flags (byte 0). */
#define FUZZ_SMALL_SOCKBUF 0x01
#define FUZZ_SLOW_READER 0x02
#define FUZZ_SMALL_OUTPUT 0x04
#define FUZZ_ABRUPT_CLOSE 0x08
#define FUZZ_ONE_REQ 0x10

/* Sends data whole from one client; returns its client (replies kept). */
static void fuzz_whole(struct fuzz_client *c, const uint8_t *data, size_t size,
                       const struct fuzz_limits *l) {
    struct fuzz_client *one[1] = { c };

    fuzz_server_start(l);
    if (fuzz_client_open(c, 0)) {
        fuzz_client_write(c, data, size);
        fuzz_run(one, 1);
        fuzz_client_hangup(c);
    }
    fuzz_server_stop();
}

int fuzz_text(const uint8_t *data, size_t size) {
    struct fuzz_limits l = { 0 };
    struct fuzz_client c;

    fuzz_whole(&c, data, size, &l);
    fuzz_client_free(&c);
    return 0;
}

int fuzz_bin(const uint8_t *data, size_t size) {
    if (size == 0 || data[0] != FUZZ_BIN_MAGIC)
        return 0;
    return fuzz_text(data, size);
}

/* Replies that depend on the clock, the random hash seed or the pace of
 * the run: a stream using these is not compared with the whole run. */
static const char *const fuzz_timed_words[] = {
    "stats", "wait", "/t", "debugtime", "scan", "dump", "watch", "crawler", "qstats",
    "qpending", "lease", "delay", "maxage", "ct", NULL
};

static bool fuzz_comparable(const uint8_t *data, size_t size, int flags) {
    int i;

    if (size == 0 || data[0] == FUZZ_BIN_MAGIC || (flags & FUZZ_ABRUPT_CLOSE))
        return false;
    for (i = 0; fuzz_timed_words[i] != NULL; i++)
        if (memmem(data, size, fuzz_timed_words[i], strlen(fuzz_timed_words[i])) != NULL)
            return false;
    return true;
}

/* The chunked run: writes of 1..64 bytes as the header's cut bytes say. */
static void fuzz_chunked(struct fuzz_client *c, const uint8_t *h, const uint8_t *data, size_t size) {
    struct fuzz_limits l = { 0 };
    struct fuzz_client *one[1] = { c };
    size_t off = 0, stop = size;
    int k = 0;

    if (h[0] & FUZZ_SMALL_OUTPUT)
        l.output_max = 4096;
    if (h[0] & FUZZ_ONE_REQ)
        l.reqs_per_event = 1;
    if (h[0] & FUZZ_ABRUPT_CLOSE)
        stop = size / 2;
    fuzz_server_start(&l);
    if (fuzz_client_open(c, (h[0] & FUZZ_SMALL_SOCKBUF) ? 1 : 0)) {
        if (h[0] & FUZZ_SLOW_READER)
            c->read_chunk = 1 + h[3] % 32;
        while (off < stop) {
            size_t n = 1 + h[1 + k % 2] % 64;
            if (n > stop - off)
                n = stop - off;
            fuzz_client_write(c, data + off, n);
            fuzz_run(one, 1);
            off += n;
            k++;
        }
        c->read_chunk = 0;
        fuzz_run(one, 1);
        fuzz_client_hangup(c);
    }
    fuzz_server_stop();
}

int fuzz_stream(const uint8_t *data, size_t size) {
    struct fuzz_limits l = { 0 };
    struct fuzz_client whole, cut;
    const uint8_t *h = data;

    if (size < FUZZ_STREAM_HEADER)
        return 0;
    data += FUZZ_STREAM_HEADER;
    size -= FUZZ_STREAM_HEADER;
    fuzz_chunked(&cut, h, data, size);
    if (fuzz_comparable(data, size, h[0])) {
        fuzz_whole(&whole, data, size, &l);
        if (whole.nreplies != cut.nreplies ||
            (whole.nreplies > 0 && memcmp(whole.replies, cut.replies, whole.nreplies) != 0)) {
            fprintf(stderr, "---- replies sent whole:\n%.*s\n---- replies cut:\n%.*s\n", (int)whole.nreplies,
                    whole.replies, (int)cut.nreplies, cut.replies);
            fuzz_fail("the stream cut in pieces got other replies than sent whole (%zu bytes whole, %zu cut)",
                      whole.nreplies, cut.nreplies);
        }
        fuzz_client_free(&whole);
    }
    fuzz_client_free(&cut);
    return 0;
}

/* Sends one segment of a multi input from client cur (reconnecting it
 * if it hung up). */
static void fuzz_multi_send(struct fuzz_client *cs, int cur, const uint8_t *p, size_t n) {
    if (n == 0)
        return;
    if (cs[cur].fd < 0) {
        fuzz_client_free(&cs[cur]);
        if (!fuzz_client_open(&cs[cur], 0))
            return;
    }
    fuzz_client_write(&cs[cur], p, n);
}

int fuzz_multi(const uint8_t *data, size_t size) {
    struct fuzz_limits l = { 0 };
    struct fuzz_client cs[FUZZ_NCLIENTS];
    struct fuzz_client *all[FUZZ_NCLIENTS];
    size_t start = 0, i;
    int cur = 0, k;

    fuzz_server_start(&l);
    for (k = 0; k < FUZZ_NCLIENTS; k++) {
        fuzz_client_open(&cs[k], 0);
        all[k] = &cs[k];
    }
    for (i = 0; i <= size; i++) {
        uint8_t b = i < size ? data[i] : 0;
        if (i < size && b != FUZZ_CTL_SWITCH && b != FUZZ_CTL_HANGUP && b != FUZZ_CTL_RUN)
            continue;
        fuzz_multi_send(cs, cur, data + start, i - start);
        start = i + 1;
        if (i == size)
            break;
        if (b == FUZZ_CTL_SWITCH)
            cur = (cur + 1) % FUZZ_NCLIENTS;
        else if (b == FUZZ_CTL_HANGUP)
            fuzz_client_hangup(&cs[cur]);
        else
            fuzz_run(all, FUZZ_NCLIENTS);
    }
    fuzz_run(all, FUZZ_NCLIENTS);
    for (k = 0; k < FUZZ_NCLIENTS; k++)
        fuzz_client_hangup(&cs[k]);
    fuzz_server_stop();
    for (k = 0; k < FUZZ_NCLIENTS; k++)
        fuzz_client_free(&cs[k]);
    return 0;
}
