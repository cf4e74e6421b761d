/*
 * table_pred: a scan's predicate (doc/protocol.md, tscan): parsed once
 * from its tokens against the table's fields into a flat array of nodes
 * (the values copied into the same block), evaluated per row.
 *
 *   pred := term [or term]…   term := factor [and factor]…
 *   factor := not factor | ( pred ) | f op v | f prefix v | f is [not] null
 */
#include <stdlib.h>
#include <string.h>

#include "types/table_int.h"

enum tbl_pkind { TP_AND, TP_OR, TP_NOT, TP_CMP, TP_PREFIX, TP_NULL, TP_NOTNULL };
enum tbl_pop { TP_EQ, TP_NE, TP_LT, TP_LE, TP_GT, TP_GE };

struct tbl_pnode {
    enum tbl_pkind kind;
    enum tbl_pop op;
    int field;
    int a, b;                   /* children (AND, OR: both; NOT: a) */
    bool is_int;
    struct tbl_val v;
};

struct tbl_pred {
    int n, root;
    struct tbl_pnode node[];    /* then the values' bytes */
};

struct tbl_pparse {
    const struct table *t;
    char **tok;
    int ntok, at, depth;
    struct tbl_pred *p;
    uint8_t *data;              /* where the next value's bytes go */
    const char *bad;
};

static int tbl_pnew(struct tbl_pparse *ps, enum tbl_pkind kind, int a, int b) {
    struct tbl_pnode *n = &ps->p->node[ps->p->n];

    memset(n, 0, sizeof(*n));
    n->kind = kind;
    n->a = a;
    n->b = b;
    return ps->p->n++;
}

static bool tbl_ptok(struct tbl_pparse *ps, const char *w) {
    if (ps->at < ps->ntok && strcmp(ps->tok[ps->at], w) == 0) {
        ps->at++;
        return true;
    }
    return false;
}

static int tbl_pfail(struct tbl_pparse *ps) {
    if (ps->bad == NULL)
        ps->bad = ps->at < ps->ntok ? ps->tok[ps->at] : "end";
    return -1;
}

static const char *const tbl_pops[] = { "=", "!=", "<", "<=", ">", ">=", NULL };

/* f op v, f prefix v, f is [not] null */
static int tbl_pcompare(struct tbl_pparse *ps) {
    int f, op, n;
    char *vt;

    if (ps->at >= ps->ntok || (f = table_field(ps->t, ps->tok[ps->at], strlen(ps->tok[ps->at]))) < 0)
        return tbl_pfail(ps);
    ps->at++;
    if (tbl_ptok(ps, "is")) {
        bool not = tbl_ptok(ps, "not");

        if (!tbl_ptok(ps, "null"))
            return tbl_pfail(ps);
        n = tbl_pnew(ps, not ? TP_NOTNULL : TP_NULL, -1, -1);
        ps->p->node[n].field = f;
        return n;
    }
    for (op = 0; tbl_pops[op] != NULL; op++)
        if (ps->at < ps->ntok && strcmp(ps->tok[ps->at], tbl_pops[op]) == 0)
            break;
    if (tbl_pops[op] == NULL && (ps->at >= ps->ntok || strcmp(ps->tok[ps->at], "prefix") != 0 ||
                                 ps->t->s.type[f] != TBL_BYTES))
        return tbl_pfail(ps);
    ps->at++;
    if (ps->at >= ps->ntok)
        return tbl_pfail(ps);
    vt = ps->tok[ps->at];
    n = tbl_pnew(ps, tbl_pops[op] == NULL ? TP_PREFIX : TP_CMP, -1, -1);
    ps->p->node[n].op = (enum tbl_pop)op;
    ps->p->node[n].field = f;
    ps->p->node[n].is_int = ps->t->s.type[f] == TBL_INT;
    {
        size_t len = strlen(vt);
        char *copy = (char *)ps->data;

        memcpy(copy, vt, len + 1);
        if (!table_value_parse(copy, len, ps->t->s.type[f], &ps->p->node[n].v) || ps->p->node[n].v.null)
            return tbl_pfail(ps);
        ps->data += len + 1;
    }
    ps->at++;
    return n;
}

static int tbl_por(struct tbl_pparse *ps);

static int tbl_pfactor(struct tbl_pparse *ps) {
    int a;

    if (tbl_ptok(ps, "not")) {
        if (++ps->depth > 64 || (a = tbl_pfactor(ps)) < 0)
            return tbl_pfail(ps);
        ps->depth--;
        return tbl_pnew(ps, TP_NOT, a, -1);
    }
    if (ps->at < ps->ntok && strcmp(ps->tok[ps->at], "(") == 0) {
        if (ps->depth + 1 > TBL_PRED_DEPTH)
            return tbl_pfail(ps);
        ps->at++;
        ps->depth++;
        if ((a = tbl_por(ps)) < 0 || !tbl_ptok(ps, ")"))
            return tbl_pfail(ps);
        ps->depth--;
        return a;
    }
    return tbl_pcompare(ps);
}

static int tbl_pand(struct tbl_pparse *ps) {
    int a = tbl_pfactor(ps), b;

    while (a >= 0 && tbl_ptok(ps, "and")) {
        if ((b = tbl_pfactor(ps)) < 0)
            return -1;
        a = tbl_pnew(ps, TP_AND, a, b);
    }
    return a;
}

static int tbl_por(struct tbl_pparse *ps) {
    int a = tbl_pand(ps), b;

    while (a >= 0 && tbl_ptok(ps, "or")) {
        if ((b = tbl_pand(ps)) < 0)
            return -1;
        a = tbl_pnew(ps, TP_OR, a, b);
    }
    return a;
}

struct tbl_pred *table_pred_parse(const struct table *t, char **tok, int ntok, const char **bad, bool *nomem) {
    struct tbl_pparse ps = { .t = t, .tok = tok, .ntok = ntok };
    size_t data = 0;
    int i;

    *nomem = false;
    for (i = 0; i < ntok; i++)
        data += strlen(tok[i]) + 1;
    /* every token makes at most one node */
    ps.p = malloc(sizeof(*ps.p) + (size_t)(ntok + 1) * sizeof(struct tbl_pnode) + data);
    if (ps.p == NULL) {
        *nomem = true;
        return NULL;
    }
    ps.p->n = 0;
    ps.data = (uint8_t *)&ps.p->node[ntok + 1];
    ps.p->root = tbl_por(&ps);
    if (ps.p->root < 0 || ps.at < ps.ntok) {
        if (ps.bad == NULL)
            ps.bad = ps.at < ps.ntok ? ps.tok[ps.at] : "end";
        *bad = ps.bad;
        free(ps.p);
        return NULL;
    }
    return ps.p;
}

void table_pred_free(struct tbl_pred *p) {
    free(p);
}

static int tbl_pcmp(const struct tbl_pnode *n, const struct tbl_val *v) {
    if (n->is_int)
        return v->i < n->v.i ? -1 : v->i > n->v.i;
    return tskip_cmp(v->p, v->n, n->v.p, n->v.n);
}

static bool tbl_peval(const struct tbl_pred *p, int at, const struct tbl_val *row) {
    const struct tbl_pnode *n = &p->node[at];
    const struct tbl_val *v = n->kind >= TP_CMP ? &row[n->field] : NULL;
    int c;

    switch (n->kind) {
    case TP_AND:
        return tbl_peval(p, n->a, row) && tbl_peval(p, n->b, row);
    case TP_OR:
        return tbl_peval(p, n->a, row) || tbl_peval(p, n->b, row);
    case TP_NOT:
        return !tbl_peval(p, n->a, row);
    case TP_NULL:
        return v->null;
    case TP_NOTNULL:
        return !v->null;
    case TP_PREFIX:
        return !v->null && v->n >= n->v.n && (n->v.n == 0 || memcmp(v->p, n->v.p, n->v.n) == 0);
    case TP_CMP:
        break;
    }
    if (v->null)
        return false;
    c = tbl_pcmp(n, v);
    switch (n->op) {
    case TP_EQ: return c == 0;
    case TP_NE: return c != 0;
    case TP_LT: return c < 0;
    case TP_LE: return c <= 0;
    case TP_GT: return c > 0;
    case TP_GE: return c >= 0;
    }
    return false;
}

bool table_pred_eval(const struct tbl_pred *p, const struct tbl_val *v) {
    return tbl_peval(p, p->root, v);
}
