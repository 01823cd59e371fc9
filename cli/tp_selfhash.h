/* Self-hashed JSON: the integrity scheme of a bundle's manifest.json and
 * timing.json, the two files the manifest's list of hashes cannot cover
 * (the manifest cannot hash itself; timing.json differs between runs).
 * Each ends in a last key "self_sha256" whose value is the SHA-256 of
 * every byte of the file before that key's opening quote: computed on the
 * raw bytes, not on a parsed form, so a flipped whitespace byte fails too. */
#ifndef TP_SELFHASH_H
#define TP_SELFHASH_H
#include <jansson.h>
#include <stddef.h>

/* Writes j as sorted, indented JSON ending in "self_sha256". 0 or -1. */
int tp_write_selfhashed(const char *path, const json_t *j);
/* Reads such a file: checks the layout and the hash on the raw bytes,
 * then parses it (duplicate keys rejected). NULL with err set. *bad is 1
 * when the file was read but fails the check (0 when unreadable). */
json_t *tp_read_selfhashed(const char *path, int *bad, char *err, size_t errlen);
#endif
