/* `tolproof verdicts`: the verdict-quality table of the variant corpus
 * (kernels/variants/, README "Verdict quality"). For every run directory
 * of a variant (plan.json has a "variant" key) it rebuilds each recorded
 * case as replay does and judges the stored outputs with four checkers
 * against the same exact reference: tolproof's admitted interval, the
 * pilots' 1e-2 check, torch.testing.assert_close's float16 defaults and
 * llm.c's tolerance. */
#ifndef TP_CMD_VERDICTS_H
#define TP_CMD_VERDICTS_H
#include <stdio.h>

/* The synopsis line, indented to follow "usage: ". */
extern const char tp_verdicts_usage[];
/* The synopsis, what the command does (with each checker's rule), its
 * options and exit status. */
void tp_verdicts_help(FILE *f);

/* argv as main's (argv[1] is "verdicts"). Exit status: 0 tolproof raised
 * no false alarm, 1 it did, 2 bad arguments or a run that cannot be read. */
int tp_verdicts_main(int argc, char **argv);
#endif
