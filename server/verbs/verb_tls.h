/*
 * verb_tls: refresh_certs, memcached's verb that reloads the TLS
 * certificate, key and CA files.
 */
#ifndef MCDS_VERB_TLS_H
#define MCDS_VERB_TLS_H

#include "proto/cmd.h"

enum conn_parse_result tls_cmd_refresh(conn *c, struct cmd_line *l);

/* This file's entries of the command table, ended by one with no name. */
extern const struct cmd_def tls_cmds[];

#endif
