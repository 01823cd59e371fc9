/* `tolproof check`: checks tensors produced by anything (PyTorch, cuBLAS,
 * a user's own kernel), given as .npy files, against a contract's
 * operation and numeric model, with the harness's per-element report. */
#ifndef TP_CMD_CHECK_H
#define TP_CMD_CHECK_H
#include <stdio.h>

/* tolproof's own argc/argv: argv[0] is the binary (the plans are found
 * next to it), argv[1] "check", then the options. Exit status: 0 every element
 * within its bound, 1 a violation, 2 bad input (a message on stderr). */
int tp_check_main(int argc, char **argv);

/* The synopsis lines, indented to follow "usage: ". */
extern const char tp_check_usage[];
/* The synopsis, what the command does, its options and exit status. */
void tp_check_help(FILE *f);
#endif
