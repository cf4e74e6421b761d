/*
 * proto_bin: memcached's binary protocol (deprecated upstream since 1.6,
 * still spoken by libmemcached and many older clients). A parser only: it
 * turns request packets into store calls and results into response packets.
 *
 * This header holds the wire format: the 24-byte header, the opcodes and
 * the status codes, as memcached's protocol_binary.h defines them.
 */
#ifndef MCDS_PROTO_BIN_H
#define MCDS_PROTO_BIN_H

#include <stdint.h>

#include "net/conn.h"

#define BIN_REQ_MAGIC 0x80
#define BIN_RES_MAGIC 0x81
#define BIN_HEADER_LEN 24

/* A packet header, decoded to host byte order. On the wire (big-endian):
 * magic(1) opcode(1) keylen(2) extlen(1) datatype(1) status/vbucket(2)
 * bodylen(4) opaque(4) cas(8); then extras, key and value, whose lengths
 * add up to bodylen. */
struct bin_header {
    uint8_t magic;
    uint8_t opcode;
    uint16_t keylen;
    uint8_t extlen;
    uint8_t datatype;       /* always 0 (raw bytes) */
    uint16_t status;        /* responses; vbucket id in requests (ignored) */
    uint32_t bodylen;
    uint32_t opaque;        /* echoed back unchanged */
    uint64_t cas;
};

enum bin_opcode {
    BIN_CMD_GET = 0x00,
    BIN_CMD_SET = 0x01,
    BIN_CMD_ADD = 0x02,
    BIN_CMD_REPLACE = 0x03,
    BIN_CMD_DELETE = 0x04,
    BIN_CMD_INCREMENT = 0x05,
    BIN_CMD_DECREMENT = 0x06,
    BIN_CMD_QUIT = 0x07,
    BIN_CMD_FLUSH = 0x08,
    BIN_CMD_GETQ = 0x09,
    BIN_CMD_NOOP = 0x0a,
    BIN_CMD_VERSION = 0x0b,
    BIN_CMD_GETK = 0x0c,
    BIN_CMD_GETKQ = 0x0d,
    BIN_CMD_APPEND = 0x0e,
    BIN_CMD_PREPEND = 0x0f,
    BIN_CMD_STAT = 0x10,
    BIN_CMD_SETQ = 0x11,
    BIN_CMD_ADDQ = 0x12,
    BIN_CMD_REPLACEQ = 0x13,
    BIN_CMD_DELETEQ = 0x14,
    BIN_CMD_INCREMENTQ = 0x15,
    BIN_CMD_DECREMENTQ = 0x16,
    BIN_CMD_QUITQ = 0x17,
    BIN_CMD_FLUSHQ = 0x18,
    BIN_CMD_APPENDQ = 0x19,
    BIN_CMD_PREPENDQ = 0x1a,
    BIN_CMD_VERBOSITY = 0x1b,   /* memcached 1.6 answers "Unknown command" */
    BIN_CMD_TOUCH = 0x1c,
    BIN_CMD_GAT = 0x1d,
    BIN_CMD_GATQ = 0x1e,
    BIN_CMD_SASL_LIST_MECHS = 0x20,
    BIN_CMD_SASL_AUTH = 0x21,
    BIN_CMD_SASL_STEP = 0x22,
    BIN_CMD_GATK = 0x23,
    BIN_CMD_GATKQ = 0x24,
};

enum bin_status {
    BIN_STATUS_OK = 0x00,
    BIN_STATUS_KEY_ENOENT = 0x01,
    BIN_STATUS_KEY_EEXISTS = 0x02,
    BIN_STATUS_E2BIG = 0x03,
    BIN_STATUS_EINVAL = 0x04,
    BIN_STATUS_NOT_STORED = 0x05,
    BIN_STATUS_DELTA_BADVAL = 0x06,
    BIN_STATUS_AUTH_ERROR = 0x20,
    BIN_STATUS_AUTH_CONTINUE = 0x21,
    BIN_STATUS_UNKNOWN_COMMAND = 0x81,
    BIN_STATUS_ENOMEM = 0x82,
    BIN_STATUS_EINTERNAL = 0x84,
};

/* Extras lengths of the requests that carry them. */
#define BIN_EXT_STORE 8         /* flags(4) expiration(4) */
#define BIN_EXT_ARITH 20        /* delta(8) initial(8) expiration(4) */
#define BIN_EXT_TOUCH 4         /* expiration(4): touch, gat, flush */
#define BIN_EXT_GET 4           /* flags(4), in get/gat/touch responses */

/* incr/decr expiration that means "do not create a missing key". */
#define BIN_ARITH_NO_CREATE 0xffffffffu

extern const struct conn_proto proto_bin;

#endif
