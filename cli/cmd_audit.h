/* `tolproof audit BUNDLE`: re-checks an evidence bundle without a GPU. */
#ifndef TP_CMD_AUDIT_H
#define TP_CMD_AUDIT_H
#include <stdio.h>

/* The synopsis line, indented to follow "usage: ". */
extern const char tp_audit_usage[];
/* The synopsis, what the command does, its options and exit status. */
void tp_audit_help(FILE *f);
/* argv as main's (argv[1] is "audit"). 0 everything matches, 1 a
 * disagreement, 2 the bundle cannot be read. */
int tp_audit_main(int argc, char **argv);
#endif
