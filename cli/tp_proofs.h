/* A bundle's proofs/ORACLE.json: each oracle's WP report as proofs/wp.sh
 * writes it (goals, proved, provers, tiers), plus each goal's prover and
 * status read from its Frama-C log, without times: times go to timing.json
 * so that the report depends on the proof alone. */
#ifndef TP_PROOFS_H
#define TP_PROOFS_H
#include <jansson.h>
#include <stddef.h>

/* Copies the reports of folder `from` (ORACLE.json and ORACLE.log, as
 * wp.sh writes them) into DIR/proofs, their "seconds" into timing (by
 * oracle). A missing folder is no error (no proofs yet: the bundle has
 * none). -1 with err set on a report that cannot be read or written. */
int tp_proofs_import(const char *from, const char *dir, json_t *timing, char *err, size_t errlen);

/* The bundle's proofs/ORACLE.json reports under root, sorted by file name;
 * NULL with err set when one cannot be parsed. */
json_t *tp_proofs_load(const char *root, char *err, size_t errlen);
#endif
