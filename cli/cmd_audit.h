#ifndef TP_CMD_AUDIT_H
#define TP_CMD_AUDIT_H
/* `tolproof audit BUNDLE`: re-checks an evidence bundle without a GPU.
 * 0 everything matches, 1 a disagreement, 2 the bundle cannot be read. */
int tp_audit_main(int argc, char **argv);
#endif
