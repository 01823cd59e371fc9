#define _POSIX_C_SOURCE 200809L
#include "cli/tp_untar.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define BLOCK 512
/* the data of a GNU long-name or pax header: a path, never more */
#define MAX_META_BYTES 65536

typedef struct {
    gzFile gz;
    const tp_limits *lim;
    const char *into; /* NULL: only read (tp_untar_is_bundle_archive) */
    const char *want_base;
    char top[256];
    int have_top, saw_manifest;
    long long members, headers, bytes;
    char *err;
    size_t errlen;
} reader;

static int fail(reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, r->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* Exactly n bytes (or, with buf NULL, skips them). */
static int read_exact(reader *r, void *buf, long long n)
{
    char sink[65536];
    while (n > 0) {
        unsigned want = n > (long long)sizeof sink ? (unsigned)sizeof sink : (unsigned)n;
        int got = gzread(r->gz, buf ? buf : sink, want);
        if (got <= 0) {
            int code;
            const char *msg = gzerror(r->gz, &code);
            return fail(r, "%s", code != Z_OK && code != Z_BUF_ERROR ? msg : "the archive ends early (truncated)");
        }
        if (buf)
            buf = (char *)buf + got;
        n -= got;
    }
    return 0;
}

static long long padded(long long n) { return (n + BLOCK - 1) / BLOCK * BLOCK; }

/* An octal header field (leading spaces, trailing spaces or NULs);
 * -1 when it is not one (base-256 sizes are 8 GiB and more: refused). */
static long long octal(const unsigned char *f, size_t len)
{
    size_t i = 0;
    while (i < len && f[i] == ' ')
        i++;
    long long v = 0;
    int digits = 0;
    for (; i < len && f[i] >= '0' && f[i] <= '7'; i++, digits++) {
        if (v > (1LL << 56))
            return -1;
        v = v * 8 + (f[i] - '0');
    }
    for (; i < len; i++)
        if (f[i] != ' ' && f[i] != 0)
            return -1;
    return digits ? v : -1;
}

static int checksum_ok(const unsigned char *h)
{
    long long want = octal(h + 148, 8);
    long long sum = 0;
    for (int i = 0; i < BLOCK; i++)
        sum += i >= 148 && i < 156 ? ' ' : h[i];
    return want == sum;
}

static const char *type_name(char t)
{
    switch (t) {
    case '1': return "a hard link";
    case '2': return "a symbolic link";
    case '3': return "a character device";
    case '4': return "a block device";
    case '6': return "a FIFO";
    case 'S': return "a GNU sparse file";
    case 'K': return "a GNU long link name";
    case 'V': return "a volume label";
    case 'M': return "a multi-volume continuation";
    default: return NULL;
    }
}

/* Normalises a member name in place ("./" and "." parts dropped, a
 * trailing "/" removed) and checks it: relative, no "..", no empty part,
 * no control character, within the path and depth limits. */
static int clean_name(reader *r, char *name)
{
    char out[4096];
    size_t n = 0;
    int depth = 0;
    if (name[0] == '/')
        return fail(r, "member %.200s: an absolute path", name);
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return fail(r, "member %.200s...: a name with a control character", name);
    char *save = NULL, *copy = strdup(name);
    if (!copy)
        return fail(r, "out of memory");
    for (char *part = strtok_r(copy, "/", &save); part; part = strtok_r(NULL, "/", &save)) {
        if (strcmp(part, ".") == 0)
            continue;
        if (strcmp(part, "..") == 0) {
            free(copy);
            return fail(r, "member %.200s: a name with \"..\"", name);
        }
        size_t pl = strlen(part);
        if (n + pl + 2 > sizeof out || n + pl + 1 > r->lim->max_path_len) {
            free(copy);
            return fail(r, "member %.200s...: a name longer than %zu bytes", name, r->lim->max_path_len);
        }
        if (n)
            out[n++] = '/';
        memcpy(out + n, part, pl);
        n += pl;
        depth++;
    }
    free(copy);
    /* "a//b" hides nothing, but no writer we know makes it */
    if (strstr(name, "//"))
        return fail(r, "member %.200s: a name with an empty part", name);
    if (n == 0)
        return fail(r, "member \"%.200s\": an empty name", name);
    if (depth - 1 > r->lim->max_depth)
        return fail(r, "member %.200s: nested deeper than %d directories", name, r->lim->max_depth);
    out[n] = 0;
    memcpy(name, out, n + 1);
    return 0;
}

/* The first part of every member is the one top-level directory. */
static int check_top(reader *r, const char *name, int is_dir)
{
    size_t tl = strcspn(name, "/");
    if (!name[tl] && !is_dir)
        return fail(r, "member %.200s: a file at the top level (a bundle archive holds one directory)", name);
    if (tl >= sizeof r->top)
        return fail(r, "member %.200s: a top-level name longer than %zu bytes", name, sizeof r->top - 1);
    if (!r->have_top) {
        memcpy(r->top, name, tl);
        r->top[tl] = 0;
        r->have_top = 1;
    } else if (strlen(r->top) != tl || strncmp(r->top, name, tl) != 0)
        return fail(r, "members under both %s/ and %.*s/ (a bundle archive holds one directory)", r->top, (int)tl,
                    name);
    return 0;
}

/* mkdir -p of `rel` under into: every part a directory this reader made
 * (nothing else can be there: it writes no links). */
static int make_dirs(reader *r, const char *rel, int last_too)
{
    char path[8192];
    int n = snprintf(path, sizeof path, "%s/", r->into);
    for (const char *p = rel; *p; p++) {
        if (*p == '/' || (!p[1] && last_too)) {
            size_t end = (size_t)(p - rel) + (*p == '/' ? 0 : 1);
            snprintf(path + n, sizeof path - (size_t)n, "%.*s", (int)end, rel);
            struct stat st;
            if (mkdir(path, 0755) != 0 && !(errno == EEXIST && lstat(path, &st) == 0 && S_ISDIR(st.st_mode)))
                return fail(r, "member %.200s: cannot create directory %.*s", rel, (int)end, rel);
        }
    }
    return 0;
}

static int write_member(reader *r, const char *name, long long size)
{
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", r->into, name);
    if (make_dirs(r, name, 0) != 0)
        return -1;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return fail(r, errno == EEXIST ? "member %.200s: given twice" : "member %.200s: cannot be created", name);
    char buf[65536];
    long long left = size;
    int rc = 0;
    while (!rc && left > 0) {
        size_t chunk = left > (long long)sizeof buf ? sizeof buf : (size_t)left;
        rc = read_exact(r, buf, (long long)chunk);
        for (size_t done = 0; !rc && done < chunk;) {
            ssize_t w = write(fd, buf + done, chunk - done);
            if (w <= 0)
                rc = fail(r, "member %.200s: cannot be written", name);
            else
                done += (size_t)w;
        }
        left -= (long long)chunk;
    }
    if (close(fd) != 0 && !rc)
        rc = fail(r, "member %.200s: cannot be written", name);
    return rc ? rc : read_exact(r, NULL, padded(size) - size);
}

/* The "path" record of a pax header ("LEN path=VALUE\n" records). */
static int pax_path(reader *r, const char *data, long long len, char *name, size_t namelen)
{
    long long at = 0;
    while (at < len) {
        char *end;
        long long rl = strtoll(data + at, &end, 10);
        if (rl <= 0 || at + rl > len || *end != ' ' || data[at + rl - 1] != '\n')
            return fail(r, "a pax header that is not a list of records");
        const char *kv = end + 1, *eq = memchr(kv, '=', (size_t)(data + at + rl - kv));
        if (!eq)
            return fail(r, "a pax record without '='");
        size_t kl = (size_t)(eq - kv), vl = (size_t)(data + at + rl - 1 - (eq + 1));
        if (kl == 4 && memcmp(kv, "path", 4) == 0) {
            if (vl + 1 > namelen || memchr(eq + 1, 0, vl))
                return fail(r, "a pax path longer than %zu bytes", namelen - 1);
            memcpy(name, eq + 1, vl);
            name[vl] = 0;
        } else if ((kl == 4 && memcmp(kv, "size", 4) == 0) || (kl == 8 && memcmp(kv, "linkpath", 8) == 0) ||
                   (kl > 12 && memcmp(kv, "GNU.sparse.", 11) == 0))
            return fail(r, "a pax record \"%.*s\", which a bundle archive does not need", (int)kl, kv);
        at += rl;
    }
    return 0;
}

static int read_all(reader *r)
{
    unsigned char h[BLOCK];
    char name[4200] = "";
    int pending = 0; /* name holds a GNU long name or pax path for the next member */
    for (;;) {
        if (read_exact(r, h, BLOCK) != 0)
            return fail(r, "the archive ends without its end-of-archive block (truncated, or not a tar archive)");
        int zero = 1;
        for (int i = 0; i < BLOCK && zero; i++)
            zero = h[i] == 0;
        if (zero)
            break;
        if (!checksum_ok(h))
            return fail(r, "header %lld: bad checksum (not a tar archive, or a damaged one)", r->headers + 1);
        if (++r->headers > 3 * r->lim->max_entries)
            return fail(r, "more than %lld headers", 3 * r->lim->max_entries);
        long long size = octal(h + 124, 12);
        char type = (char)h[156];
        if (size < 0)
            return fail(r, "header %lld: the size field is not an octal number", r->headers);
        if (type == 'L' || type == 'x' || type == 'g') {
            if (size > MAX_META_BYTES)
                return fail(r, "header %lld: %lld bytes of names or attributes", r->headers, size);
            char *data = malloc((size_t)padded(size) + 1);
            if (!data || read_exact(r, data, padded(size)) != 0) {
                free(data);
                return data ? -1 : fail(r, "out of memory");
            }
            data[size] = 0;
            int rc = 0;
            char given[sizeof name] = "";
            if (type == 'L') {
                if (strlen(data) >= sizeof given)
                    rc = fail(r, "a GNU long name longer than %zu bytes", sizeof given - 1);
                else
                    snprintf(given, sizeof given, "%s", data);
            } else if (type == 'x')
                rc = pax_path(r, data, size, given, sizeof given);
            free(data);
            if (rc)
                return rc;
            if (given[0]) {
                memcpy(name, given, sizeof name);
                pending = 1;
            }
            continue;
        }
        if (!pending) {
            /* POSIX ustar puts a prefix before the name; GNU's magic ("ustar  ") uses that space otherwise */
            int posix = memcmp(h + 257, "ustar\0", 6) == 0;
            char prefix[156] = "", base[101];
            if (posix)
                snprintf(prefix, sizeof prefix, "%.155s", (const char *)h + 345);
            snprintf(base, sizeof base, "%.100s", (const char *)h);
            snprintf(name, sizeof name, "%s%s%s", prefix, prefix[0] ? "/" : "", base);
        }
        pending = 0;
        char shown[300];
        snprintf(shown, sizeof shown, "%.200s", name);
        int is_dir = type == '5', is_file = type == '0' || type == 0 || type == '7';
        if (!is_dir && !is_file) {
            const char *what = type_name(type);
            if (what)
                return fail(r, "member %s: %s; a bundle archive holds regular files and directories only", shown, what);
            return fail(r, "member %s: of tar type '%c'; a bundle archive holds regular files and directories only",
                        shown, type >= 0x20 && type < 0x7f ? type : '?');
        }
        if (clean_name(r, name) != 0 || check_top(r, name, is_dir) != 0)
            return -1;
        if (++r->members > r->lim->max_entries)
            return fail(r, "member %s: more than %lld files and directories", shown, r->lim->max_entries);
        if (is_dir) {
            if (size != 0 && read_exact(r, NULL, padded(size)) != 0)
                return -1;
            if (r->into && make_dirs(r, name, 1) != 0)
                return -1;
            continue;
        }
        if (size > r->lim->max_file_bytes)
            return fail(r, "member %s: %lld bytes, over the %lld a bundle file may have", shown, size,
                        r->lim->max_file_bytes);
        if ((r->bytes += size) > r->lim->max_total_bytes)
            return fail(r, "member %s: the files up to it hold more than the %lld bytes a bundle may have", shown,
                        r->lim->max_total_bytes);
        if (r->want_base && strcmp(name + strlen(r->top), "/manifest.json") == 0)
            r->saw_manifest = 1;
        if (r->into ? write_member(r, name, size) != 0 : read_exact(r, NULL, padded(size)) != 0)
            return -1;
    }
    if (!r->have_top)
        return fail(r, "an empty archive");
    return 0;
}

static int open_archive(reader *r, const char *archive)
{
    /* O_NONBLOCK: a FIFO given as the archive is refused, not waited on */
    int fd = open(archive, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0)
            close(fd);
        return fail(r, fd < 0 ? "cannot be opened" : "not a regular file");
    }
    r->gz = gzdopen(fd, "rb");
    if (!r->gz) {
        close(fd);
        return fail(r, "cannot be read");
    }
    gzbuffer(r->gz, 1 << 17);
    return 0;
}

int tp_untar(const char *archive, const char *into, const tp_limits *lim, char *top, size_t toplen, char *err,
             size_t errlen)
{
    reader r = {.lim = lim, .into = into, .err = err, .errlen = errlen};
    err[0] = 0;
    if (open_archive(&r, archive) != 0)
        return -1;
    int rc = read_all(&r);
    gzclose(r.gz);
    if (!rc)
        snprintf(top, toplen, "%s", r.top);
    return rc;
}

int tp_untar_is_bundle_archive(const char *archive, const char *base, const tp_limits *lim)
{
    char err[600];
    reader r = {.lim = lim, .want_base = base, .err = err, .errlen = sizeof err};
    if (open_archive(&r, archive) != 0)
        return 0;
    int rc = read_all(&r);
    gzclose(r.gz);
    return rc == 0 && strcmp(r.top, base) == 0 && r.saw_manifest;
}
