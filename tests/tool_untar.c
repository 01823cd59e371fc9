/* tool_untar: the audit's archive reader and tree check (cli/tp_untar.c,
 * cli/tp_tree.c) with limits small enough to test:
 *   tool_untar [LIMITS] ARCHIVE INTO     extract into the empty directory INTO
 *   tool_untar [LIMITS] --tree DIR       check a directory as the audit does
 *   tool_untar --is-bundle BASE ARCHIVE  what `tolproof bundle` asks of DIR.tar.gz
 * LIMITS: --entries N --file-bytes N --total-bytes N --depth N --path N
 * (default: the audit's own). Prints the top-level directory, or the
 * reason for refusing; exit 0 accepted, 1 refused, 2 bad arguments. */
#include "cli/tp_tree.h"
#include "cli/tp_untar.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    tp_limits lim = tp_bundle_limits();
    const char *pos[2] = {NULL, NULL}, *tree = NULL, *base = NULL;
    int npos = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        long long v = i + 1 < argc ? atoll(argv[i + 1]) : -1;
        if (strcmp(a, "--entries") == 0 && v >= 0)
            lim.max_entries = v, i++;
        else if (strcmp(a, "--file-bytes") == 0 && v >= 0)
            lim.max_file_bytes = v, i++;
        else if (strcmp(a, "--total-bytes") == 0 && v >= 0)
            lim.max_total_bytes = v, i++;
        else if (strcmp(a, "--depth") == 0 && v >= 0)
            lim.max_depth = (int)v, i++;
        else if (strcmp(a, "--path") == 0 && v >= 0)
            lim.max_path_len = (size_t)v, i++;
        else if (strcmp(a, "--tree") == 0 && i + 1 < argc)
            tree = argv[++i];
        else if (strcmp(a, "--is-bundle") == 0 && i + 1 < argc)
            base = argv[++i];
        else if (a[0] != '-' && npos < 2)
            pos[npos++] = a;
        else {
            fprintf(stderr, "tool_untar: bad argument %s\n", a);
            return 2;
        }
    }
    char err[1200], top[256];
    if (tree) {
        int rc = tp_tree_check(tree, &lim, err, sizeof err);
        printf("%s\n", rc ? err : "accepted");
        return rc ? 1 : 0;
    }
    if (base && npos == 1) {
        int yes = tp_untar_is_bundle_archive(pos[0], base, &lim);
        printf("%s\n", yes ? "an archive of a bundle" : "not an archive of a bundle");
        return yes ? 0 : 1;
    }
    if (npos != 2) {
        fprintf(stderr, "usage: tool_untar [LIMITS] ARCHIVE INTO | --tree DIR | --is-bundle BASE ARCHIVE\n");
        return 2;
    }
    if (tp_untar(pos[0], pos[1], &lim, top, sizeof top, err, sizeof err) != 0) {
        printf("%s\n", err);
        return 1;
    }
    printf("%s\n", top);
    return 0;
}
