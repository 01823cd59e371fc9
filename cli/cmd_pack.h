/* `tolproof pack RUN_DIR...` and `tolproof unpack RUN_DIR...`: a run's
 * output tensors from .npy to the compact .tpr and back. */
#ifndef TP_CMD_PACK_H
#define TP_CMD_PACK_H
#include <stdio.h>

/* The synopsis lines, indented to follow "usage: ". */
extern const char tp_pack_usage[], tp_unpack_usage[];
/* The synopsis, what the command does and its exit status. */
void tp_pack_help(FILE *f);
void tp_unpack_help(FILE *f);
/* argv as main's (argv[1] is "pack" or "unpack"). 0 every output
 * converted, 1 one could not be, 2 a run directory cannot be read. */
int tp_pack_main(int argc, char **argv);
int tp_unpack_main(int argc, char **argv);
#endif
