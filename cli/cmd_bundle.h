/* `tolproof bundle`: writes an evidence bundle (the layout is described at
 * the top of cmd_bundle.c and in docs/manifest.schema.json); `tolproof
 * audit` (cmd_audit.h) re-checks one. */
#ifndef TP_CMD_BUNDLE_H
#define TP_CMD_BUNDLE_H
#include <stdio.h>

/* The synopsis line, indented to follow "usage: ". */
extern const char tp_bundle_usage[];
/* The synopsis, what the command does, its options and exit status. */
void tp_bundle_help(FILE *f);
/* argv as main's (argv[1] is "bundle"). 0 written, 2 bad arguments or a
 * file that cannot be read or written. */
int tp_bundle_main(int argc, char **argv);
#endif
