/*
 * records: a buffered reader of framed records. A record is accepted only
 * whole: its magic, a length that fits, and a CRC-32C that matches over
 * its header and payload.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#include "persist/crc32c.h"
#include "persist/records.h"
#include "persist/wal.h"

#define REC_BUF_INIT (1024 * 1024)

int rec_file_open(struct rec_file *f, const char *path) {
    struct stat st;

    memset(f, 0, sizeof(*f));
    f->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (f->fd < 0)
        return -1;
    if (fstat(f->fd, &st) < 0) {
        close(f->fd);
        return -1;
    }
    f->size = (uint64_t)st.st_size;
    f->cap = REC_BUF_INIT;
    f->buf = malloc(f->cap);
    if (f->buf == NULL) {
        close(f->fd);
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

void rec_file_close(struct rec_file *f) {
    if (f->fd >= 0)
        close(f->fd);
    free(f->buf);
    f->fd = -1;
    f->buf = NULL;
}

/* Makes at least want unread bytes available: 1, 0 at end of file, -1 on
 * a read error or no memory. */
static int rec_fill(struct rec_file *f, size_t want) {
    while (f->len - f->pos < want) {
        ssize_t r;
        if (f->eof)
            return 0;
        if (f->pos > 0) {
            memmove(f->buf, f->buf + f->pos, f->len - f->pos);
            f->len -= f->pos;
            f->base += f->pos;
            f->pos = 0;
        }
        if (want > f->cap) {
            uint8_t *b = realloc(f->buf, want);
            if (b == NULL)
                return -1;
            f->buf = b;
            f->cap = want;
        }
        r = read(f->fd, f->buf + f->len, f->cap - f->len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            f->eof = true;
        f->len += (size_t)r;
    }
    return 1;
}

static uint32_t rec_le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Whether h (WAL_HEADER bytes) and the n payload bytes after it form a
 * record. */
static bool rec_valid(const uint8_t *h, size_t avail) {
    uint32_t plen = rec_le32(h + 4);

    if (h[0] != WAL_MAGIC || plen > WAL_RECORD_MAX || avail < WAL_HEADER + (size_t)plen)
        return false;
    return crc32c(crc32c(0, h, 8), h + WAL_HEADER, plen) == rec_le32(h + 8);
}

int rec_next(struct rec_file *f, struct rec *r, uint64_t *off) {
    uint32_t plen;
    int rc;
    const uint8_t *h;

    *off = f->base + f->pos;
    rc = rec_fill(f, WAL_HEADER);
    if (rc < 0)
        return -2;
    if (rc == 0)
        return f->len == f->pos ? 0 : -1;
    h = f->buf + f->pos;
    plen = rec_le32(h + 4);
    if (h[0] != WAL_MAGIC || plen > WAL_RECORD_MAX || *off + WAL_HEADER + plen > f->size)
        return -1;
    rc = rec_fill(f, WAL_HEADER + (size_t)plen);
    if (rc < 0)
        return -2;
    h = f->buf + f->pos;
    if (rc == 0 || !rec_valid(h, f->len - f->pos))
        return -1;
    r->type = h[1];
    r->op = h[2];
    r->payload = h + WAL_HEADER;
    r->len = plen;
    f->pos += WAL_HEADER + plen;
    return 1;
}

int rec_file_seek(struct rec_file *f, uint64_t off) {
    if (lseek(f->fd, (off_t)off, SEEK_SET) < 0)
        return -1;
    f->base = off;
    f->pos = f->len = 0;
    f->eof = false;
    return 0;
}

bool rec_next_valid(const char *path, uint64_t off, uint64_t *next) {
    struct rec_file f;
    bool found = false;

    if (rec_file_open(&f, path) < 0)
        return false;
    if (rec_file_seek(&f, off + 1) < 0) {
        rec_file_close(&f);
        return false;
    }
    /* Slide through the rest of the file one byte at a time. */
    while (!found && rec_fill(&f, WAL_HEADER) == 1) {
        const uint8_t *h = f.buf + f.pos;
        if (h[0] == WAL_MAGIC) {
            uint32_t plen = rec_le32(h + 4);
            if (f.base + f.pos + WAL_HEADER + plen <= f.size &&
                rec_fill(&f, WAL_HEADER + (size_t)plen) == 1 && rec_valid(f.buf + f.pos, f.len - f.pos))
                found = true;
        }
        if (!found)
            f.pos++;
    }
    if (found)
        *next = f.base + f.pos;
    rec_file_close(&f);
    return found;
}

bool rec_any_after(const char *path, uint64_t off) {
    uint64_t next;

    return rec_next_valid(path, off, &next);
}

int rec_frame(const uint8_t *p, size_t n, size_t *size) {
    uint32_t plen;

    if (n < WAL_HEADER) {
        *size = WAL_HEADER;
        return 0;
    }
    plen = rec_le32(p + 4);
    if (p[0] != WAL_MAGIC || p[3] != 0 || plen > WAL_RECORD_MAX)
        return -1;
    *size = WAL_HEADER + (size_t)plen;
    return n < *size ? 0 : 1;
}

int rec_parse(const uint8_t *p, size_t n, struct rec *r, size_t *size) {
    int rc = rec_frame(p, n, size);

    if (rc <= 0)
        return rc;
    if (!rec_valid(p, n))
        return -1;
    r->type = p[1];
    r->op = p[2];
    r->payload = p + WAL_HEADER;
    r->len = *size - WAL_HEADER;
    return 1;
}
