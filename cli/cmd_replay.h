/* `tolproof replay RUN_DIR...`: re-derives every recorded case of each run
 * and compares it with results.json. */
#ifndef TP_CMD_REPLAY_H
#define TP_CMD_REPLAY_H
#include <stdio.h>

/* The synopsis line, indented to follow "usage: ". */
extern const char tp_replay_usage[];
/* The synopsis, what the command does, its options and exit status. */
void tp_replay_help(FILE *f);
/* argv as main's (argv[1] is "replay"). 0 every case re-derives, 1 a
 * disagreement, 2 a run directory cannot be read. */
int tp_replay_main(int argc, char **argv);
#endif
