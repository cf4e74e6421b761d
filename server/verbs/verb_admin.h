/*
 * verb_admin: the server verbs (stats flush_all version verbosity quit
 * shutdown cache_memlimit debugtime), as entries of the command table.
 */
#ifndef MCDS_VERB_ADMIN_H
#define MCDS_VERB_ADMIN_H

#include "proto/cmd.h"

enum conn_parse_result admin_stats(conn *c, struct cmd_line *l);
enum conn_parse_result admin_flush_all(conn *c, struct cmd_line *l);
enum conn_parse_result admin_version(conn *c, struct cmd_line *l);
enum conn_parse_result admin_verbosity(conn *c, struct cmd_line *l);
enum conn_parse_result admin_quit(conn *c, struct cmd_line *l);
enum conn_parse_result admin_shutdown(conn *c, struct cmd_line *l);
enum conn_parse_result admin_cache_memlimit(conn *c, struct cmd_line *l);
enum conn_parse_result admin_debugtime(conn *c, struct cmd_line *l);
enum conn_parse_result admin_debugdeadpause(conn *c, struct cmd_line *l);
enum conn_parse_result admin_debugcrash(conn *c, struct cmd_line *l);
enum conn_parse_result admin_debugsnappause(conn *c, struct cmd_line *l);
enum conn_parse_result admin_debuggrouppause(conn *c, struct cmd_line *l);
enum conn_parse_result admin_debughashpause(conn *c, struct cmd_line *l);
enum conn_parse_result admin_debugctreehold(conn *c, struct cmd_line *l);
enum conn_parse_result admin_debugfault(conn *c, struct cmd_line *l);
enum conn_parse_result admin_debugrecord(conn *c, struct cmd_line *l);
enum conn_parse_result admin_snapshot(conn *c, struct cmd_line *l);

/* This file's entries of the command table, ended by one with no name. */
extern const struct cmd_def admin_cmds[];

#endif
