#ifndef TP_CMD_SUMMARY_H
#define TP_CMD_SUMMARY_H
/* `tolproof summary RUN_DIR...`: prints a Markdown table, one row per run. */
int tp_summary_main(int argc, char **argv);
#endif
