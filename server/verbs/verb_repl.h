/*
 * verb_repl: the replication verbs (doc/replication.md): `replicaof HOST
 * PORT`, `replicaof no one`, and `psync <lineage> <position>`, with which
 * a replica asks for the log (its connection then leaves its worker).
 */
#ifndef MCDS_VERB_REPL_H
#define MCDS_VERB_REPL_H

#include "proto/cmd.h"

/* This file's entries of the command table, ended by one with no name. */
extern const struct cmd_def repl_cmds[];

#endif
