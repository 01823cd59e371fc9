#define _POSIX_C_SOURCE 200809L
#include "core/tp_file.h"

#include <unistd.h>

int tp_write_atomic(const char *path, int (*fill)(FILE *f, const void *ctx), const void *ctx)
{
    char tmp[4200];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp)
        return -1;
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return -1;
    int ok = fill(f, ctx) == 0;
    ok = fflush(f) == 0 && ok && !ferror(f);
    ok = ok && fsync(fileno(f)) == 0;
    ok = fclose(f) == 0 && ok;
    ok = ok && rename(tmp, path) == 0;
    if (!ok)
        remove(tmp);
    return ok ? 0 : -1;
}
