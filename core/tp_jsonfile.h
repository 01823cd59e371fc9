/* Whole text and JSON files as the readers of plans and results need
 * them, with a message that says what is wrong with the path itself (a
 * directory, an empty stream, a file too large) instead of jansson's
 * "'[' or '{' expected near end of file" for all three. */
#ifndef TP_JSONFILE_H
#define TP_JSONFILE_H
#include <jansson.h>
#include <stddef.h>

/* Files larger than this are refused: plans and results are kilobytes. */
#define TP_JSON_FILE_MAX ((size_t)256 << 20)

/* The whole content of path (a regular file, or a pipe such as
 * /dev/stdin, read to its end), NUL-terminated, its length in *len. NULL
 * with "PATH: what is wrong" in err. free() it. */
char *tp_file_text(const char *path, size_t max, size_t *len, char *err, size_t errlen);

/* A JSON document from path (jansson flags, e.g. JSON_REJECT_DUPLICATES).
 * NULL with "PATH: what is wrong" or "PATH:LINE: jansson's message" in
 * err. */
json_t *tp_json_file_load(const char *path, size_t flags, char *err, size_t errlen);
#endif
