/*
 * records: reading the record framing shared by log files and snapshots
 * (wal.h describes it), with every length and checksum checked.
 */
#ifndef MCDS_RECORDS_H
#define MCDS_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rec {
    uint8_t type, op;
    const uint8_t *payload;     /* valid until the next rec_next */
    size_t len;
};

struct rec_file {
    int fd;
    uint8_t *buf;
    size_t cap, len, pos;       /* buf[pos, len) is unread; buf[0] is at file offset base */
    uint64_t base;
    uint64_t size;              /* the file's size when opened */
    bool eof;
};

/* 0, or -1 (errno set) when the file cannot be opened. */
int rec_file_open(struct rec_file *f, const char *path);
void rec_file_close(struct rec_file *f);
/* The next record: 1 (*off its offset in the file), 0 at a clean end of
 * the file, -1 at a record that is cut short or fails its checks (*off
 * where it starts), -2 when the file cannot be read. */
int rec_next(struct rec_file *f, struct rec *r, uint64_t *off);
/* Reads on from offset off of the file: 0, or -1 (errno). */
int rec_file_seek(struct rec_file *f, uint64_t off);
/* Whether a valid record starts anywhere after offset off (*next: the
 * first one): a bad record with none after it is a torn tail, one with
 * records after it is corruption in the middle. */
bool rec_next_valid(const char *path, uint64_t off, uint64_t *next);
bool rec_any_after(const char *path, uint64_t off);

/* A record at the start of p[0, n) (a replication stream): 1 when a whole
 * valid one is there (*size its bytes), 0 when it needs *size bytes and
 * fewer are there, -1 when the bytes are not a record. */
int rec_parse(const uint8_t *p, size_t n, struct rec *r, size_t *size);
/* rec_parse's framing without the checksum, for a sender that needs only
 * the records' boundaries (its replica checks every checksum): 1 when a
 * whole record is there (*size its bytes), 0 when it needs *size bytes,
 * -1 when the bytes do not start a record. */
int rec_frame(const uint8_t *p, size_t n, size_t *size);

#endif
