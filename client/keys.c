/*
 * keys.c - building memcached keys for the structures.
 *
 * Every key is "mcds:<kind>:<name>" followed by structure-specific parts.
 * Names and members may hold any bytes: everything outside printable ASCII,
 * plus '%' and ':', is written as %XX. The escaping is one-to-one, so two
 * different names or members never share a key, and ':' only ever appears
 * as a separator written by libmcds itself.
 */
#include <stdio.h>
#include <string.h>

#include "mcds_int.h"

static mcds_status_t key_putc(mcds__key_t *k, char c)
{
    if (k->len >= MCDS_KEY_MAX)
        return MCDS_KEY_TOO_LONG;
    k->s[k->len++] = c;
    k->s[k->len] = '\0';
    return MCDS_OK;
}

mcds_status_t mcds__key_add(mcds__key_t *k, const char *text)
{
    size_t n = strlen(text);
    if (k->len + n > MCDS_KEY_MAX)
        return MCDS_KEY_TOO_LONG;
    memcpy(k->s + k->len, text, n + 1);
    k->len += n;
    return MCDS_OK;
}

static int needs_escape(unsigned char c)
{
    return c <= 0x20 || c >= 0x7f || c == '%' || c == ':';
}

mcds_status_t mcds__key_add_escaped(mcds__key_t *k, const void *data,
                                    size_t len)
{
    static const char hex[] = "0123456789ABCDEF";
    const unsigned char *p = data;
    mcds_status_t st = MCDS_OK;
    size_t i;

    for (i = 0; i < len && st == MCDS_OK; i++) {
        if (!needs_escape(p[i])) {
            st = key_putc(k, (char)p[i]);
            continue;
        }
        st = key_putc(k, '%');
        if (st == MCDS_OK)
            st = key_putc(k, hex[p[i] >> 4]);
        if (st == MCDS_OK)
            st = key_putc(k, hex[p[i] & 15]);
    }
    return st;
}

mcds_status_t mcds__key_add_uint(mcds__key_t *k, unsigned long long n)
{
    char num[24];
    snprintf(num, sizeof num, "%llu", n);
    return mcds__key_add(k, num);
}

mcds_status_t mcds__key_base(mcds__key_t *k, const char *kind,
                             const char *name)
{
    mcds_status_t st;

    k->len = 0;
    k->s[0] = '\0';
    if (name == NULL || name[0] == '\0')
        return MCDS_INVALID;
    st = mcds__key_add(k, "mcds:");
    if (st == MCDS_OK)
        st = mcds__key_add(k, kind);
    if (st == MCDS_OK)
        st = mcds__key_add(k, ":");
    if (st == MCDS_OK)
        st = mcds__key_add_escaped(k, name, strlen(name));
    return st;
}
