/*
 * table_schema: a table's schema from tcreate's and tindex's tokens:
 * fields and types, the primary key, index parts
 * (<field>[:desc][:nullslast] joined by '+').
 */
#include <string.h>

#include "types/table_int.h"

static bool table_name_ok(const char *s, size_t n) {
    size_t i;

    if (n == 0 || n > TBL_NAME_MAX)
        return false;
    for (i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
              s[i] == '_'))
            return false;
    return true;
}

static int table_schema_field(const struct tbl_schema *s, const char *n, size_t nn) {
    int f;

    for (f = 0; f < s->nf; f++)
        if (strlen(s->name[f]) == nn && memcmp(s->name[f], n, nn) == 0)
            return f;
    return -1;
}

int table_field(const struct table *t, const char *n, size_t nn) {
    return table_schema_field(&t->s, n, nn);
}

const struct tbl_schema *table_schema(const struct table *t) {
    return &t->s;
}

/* "<name>:<type>[,…]" */
static bool table_parse_fields(struct tbl_schema *s, const char *p) {
    while (*p != '\0') {
        const char *colon = strchr(p, ':'), *end = strchr(p, ',');
        size_t nt;

        if (end == NULL)
            end = p + strlen(p);
        if (colon == NULL || colon > end || s->nf == TBL_FIELDS_MAX || !table_name_ok(p, (size_t)(colon - p)) ||
            table_schema_field(s, p, (size_t)(colon - p)) >= 0)
            return false;
        nt = (size_t)(end - colon - 1);
        if (nt == 3 && memcmp(colon + 1, "int", 3) == 0)
            s->type[s->nf] = TBL_INT;
        else if (nt == 5 && memcmp(colon + 1, "bytes", 5) == 0)
            s->type[s->nf] = TBL_BYTES;
        else
            return false;
        memcpy(s->name[s->nf], p, (size_t)(colon - p));
        s->name[s->nf][colon - p] = '\0';
        s->nf++;
        p = *end == ',' ? end + 1 : end;
        if (*end == ',' && *p == '\0')
            return false;
    }
    return s->nf > 0;
}

/* "<field>[,…]" */
static bool table_parse_key(struct tbl_schema *s, const char *p) {
    int i, f;

    while (*p != '\0') {
        const char *end = strchr(p, ',');

        if (end == NULL)
            end = p + strlen(p);
        f = table_schema_field(s, p, (size_t)(end - p));
        if (f < 0 || s->nkey == TBL_KEY_MAX)
            return false;
        for (i = 0; i < s->nkey; i++)
            if (s->key[i] == f)
                return false;
        s->key[s->nkey++] = f;
        p = *end == ',' ? end + 1 : end;
        if (*end == ',' && *p == '\0')
            return false;
    }
    return s->nkey > 0;
}

/* One part: "<field>[:desc][:nullslast]" of n bytes. */
static bool table_parse_part(const struct tbl_schema *s, const char *p, size_t n, struct tbl_part *part) {
    const char *colon = memchr(p, ':', n);
    size_t nf = colon != NULL ? (size_t)(colon - p) : n;

    memset(part, 0, sizeof(*part));
    if ((part->field = table_schema_field(s, p, nf)) < 0)
        return false;
    while (colon != NULL) {
        const char *w = colon + 1, *next = memchr(w, ':', n - (size_t)(w - p));
        size_t nw = next != NULL ? (size_t)(next - w) : n - (size_t)(w - p);

        if (nw == 4 && memcmp(w, "desc", 4) == 0 && !part->desc)
            part->desc = true;
        else if (nw == 9 && memcmp(w, "nullslast", 9) == 0 && !part->nulls_last)
            part->nulls_last = true;
        else
            return false;
        colon = next;
    }
    return true;
}

bool table_index_parse(const struct tbl_schema *s, const char *name, const char *parts, struct tbl_index_def *d) {
    const char *p = parts;

    memset(d, 0, sizeof(*d));
    if (!table_name_ok(name, strlen(name)) || strcmp(name, "primary") == 0)
        return false;
    strcpy(d->name, name);
    while (*p != '\0') {
        const char *end = strchr(p, '+');

        if (end == NULL)
            end = p + strlen(p);
        if (d->nparts == TBL_PARTS_MAX || !table_parse_part(s, p, (size_t)(end - p), &d->part[d->nparts]))
            return false;
        d->nparts++;
        p = *end == '+' ? end + 1 : end;
        if (*end == '+' && *p == '\0')
            return false;
    }
    return d->nparts > 0;
}

/* "index=<name>:<parts>" into the next index of s. */
static bool table_parse_index(struct tbl_schema *s, char *v) {
    char *colon = strchr(v, ':');
    int i;

    if (colon == NULL || s->nidx == TBL_INDEXES_MAX - 1)
        return false;
    *colon = '\0';
    if (!table_index_parse(s, v, colon + 1, &s->idx[s->nidx])) {
        *colon = ':';
        return false;
    }
    *colon = ':';
    for (i = 0; i < s->nidx; i++)
        if (strcmp(s->idx[i].name, s->idx[s->nidx].name) == 0)
            return false;
    s->nidx++;
    return true;
}

bool table_schema_parse(struct tbl_schema *s, char **tok, int ntok, const char **bad) {
    int i;

    memset(s, 0, sizeof(*s));
    *bad = ntok > 0 ? tok[0] : "end";
    if (ntok == 0 || !table_parse_fields(s, tok[0]))
        return false;
    for (i = 1; i < ntok; i++) {
        *bad = tok[i];
        if (strncmp(tok[i], "key=", 4) == 0) {
            if (s->nkey > 0 || !table_parse_key(s, tok[i] + 4))
                return false;
        } else if (strncmp(tok[i], "index=", 6) != 0 || !table_parse_index(s, tok[i] + 6)) {
            return false;
        }
    }
    *bad = "key=";
    return s->nkey > 0;
}
