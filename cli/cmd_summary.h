/* `tolproof summary RUN_DIR...`: prints a Markdown table, one row per run. */
#ifndef TP_CMD_SUMMARY_H
#define TP_CMD_SUMMARY_H
#include <stdio.h>

/* The synopsis line, indented to follow "usage: ". */
extern const char tp_summary_usage[];
/* The synopsis, what the command prints and its exit status. */
void tp_summary_help(FILE *f);
/* argv as main's (argv[1] is "summary"). 0, or 2 when a results.json
 * cannot be read. */
int tp_summary_main(int argc, char **argv);
#endif
