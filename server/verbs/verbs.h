/*
 * verbs: every family of the text protocol's verbs (see verbs.c).
 */
#ifndef MCDS_VERBS_H
#define MCDS_VERBS_H

/* At start-up: the command table, its quick paths, Kestrel's reads and
 * the connection hooks. */
void verbs_init(void);

#endif
