/* Recorded outputs as .tpr: the prediction and the file I/O around the
 * codec (cli/tp_packed_output.h). */
#define _POSIX_C_SOURCE 200809L /* fmemopen */
#include "cli/tp_packed_output.h"

#include "cli/tp_files.h"
#include "cli/tp_residual_codec.h"
#include "core/tp_format.h"
#include "core/tp_npy.h"
#include "core/tp_op.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int tp_output_predict(const tp_plan *plan, const tp_case *c, int t, uint32_t *pred, tp_ref **keep, char *err,
                      size_t errlen)
{
    if (keep)
        *keep = NULL;
    const tp_tensor *tt = &c->tensors[t];
    const tp_op *op = tp_op_find(plan->op);
    const tp_format *f = tp_format_of(tt->dtype);
    if (!op || !f) {
        snprintf(err, errlen, "output %s: %s", tt->name, !op ? "unknown op" : "not a floating-point tensor");
        return -1;
    }
    if (tp_op_check_model_keys(op, plan->model, err, errlen) != 0 || op->check_model(plan->model, err, errlen) != 0)
        return -1;
    size_t n = (size_t)tt->numel;
    /* a copy's reference is its bit pattern: NaN payloads and signed zeros too */
    if (op->reference_bits)
        return op->reference_bits(plan->model, c, tt->name, pred, err, errlen);
    tp_ref *ref = malloc((n ? n : 1) * sizeof *ref);
    if (!ref) {
        snprintf(err, errlen, "output %s: out of memory for its reference", tt->name);
        return -1;
    }
    int rc = tp_op_reference(op, plan->model, c, tt->name, ref, err, errlen);
    for (size_t i = 0; rc == 0 && i < n; i++)
        pred[i] = f->encode(ref[i].exact);
    if (rc == 0 && keep)
        *keep = ref;
    else
        free(ref);
    return rc;
}

/* The predictions for output t, or NULL with err. */
static uint32_t *predict(const tp_plan *plan, const tp_case *c, int t, const char *path, tp_ref **keep, char *err,
                         size_t errlen)
{
    size_t n = (size_t)c->tensors[t].numel;
    uint32_t *pred = malloc((n ? n : 1) * sizeof *pred);
    char inner[600];
    if (!pred)
        snprintf(err, errlen, "%s: out of memory for %zu predictions", path, n);
    else if (tp_output_predict(plan, c, t, pred, keep, inner, sizeof inner) != 0) {
        snprintf(err, errlen, "%s: cannot predict the patterns it is encoded against: %s", path, inner);
        free(pred);
        pred = NULL;
    }
    return pred;
}

unsigned char *tp_packed_output_read(const char *path, const tp_plan *plan, const tp_case *c, int t, size_t *len,
                                     tp_ref **keep, char *err, size_t errlen)
{
    if (keep)
        *keep = NULL;
    const tp_tensor *tt = &c->tensors[t];
    size_t flen;
    unsigned char *buf = (unsigned char *)tp_read_all(path, &flen);
    if (!buf) {
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
        return NULL;
    }
    tp_residual_file f;
    char inner[600];
    unsigned char *npy = NULL;
    const tp_format *fmt = tp_format_of(tt->dtype);
    if (tp_residual_parse(buf, flen, &f, inner, sizeof inner) != 0)
        snprintf(err, errlen, "%s: %s", path, inner);
    else if (!fmt || f.size != fmt->size || f.count != (uint64_t)tt->numel)
        snprintf(err, errlen, "%s: holds %llu elements of %u bytes; the plan's output %s has %lld of %zu", path,
                 (unsigned long long)f.count, f.size, tt->name, (long long)tt->numel, fmt ? fmt->size : 0);
    else {
        /* stored without prediction: decoded without the reference */
        int predicted = f.predictor != TP_RESIDUAL_PREDICT_NONE;
        uint32_t *pred = predicted ? predict(plan, c, t, path, keep, err, errlen) : NULL;
        int have_pred = pred != NULL || !predicted;
        int rc = have_pred ? tp_residual_decode(&f, pred, &npy, len, inner, sizeof inner) : -1;
        free(pred);
        if (rc == -2 && predicted)
            snprintf(err, errlen,
                     "%s: %s; decode it with the tolproof that wrote it and re-encode it "
                     "(recorded/migrations/recode.sh, recorded/MIGRATIONS.md 0004)",
                     path, inner);
        else if (rc != 0 && have_pred)
            snprintf(err, errlen, "%s: %s", path, inner);
    }
    free(buf);
    if (!npy && keep) {
        free(*keep);
        *keep = NULL;
    }
    return npy;
}

/* Writes bytes to path through a temporary file beside it. */
static int write_atomic(const char *path, const void *data, size_t len)
{
    char tmp[4300];
    if (tp_path_of(tmp, sizeof tmp, "%s.tmp", path) != 0)
        return -1;
    if (tp_write_all(tmp, data, len) != 0 || rename(tmp, path) != 0) {
        remove(tmp);
        return -1;
    }
    return 0;
}

int tp_packed_output_write(const char *npy_path, const char *tpr_path, const tp_plan *plan, const tp_case *c, int t,
                           size_t *raw, size_t *packed, char *err, size_t errlen)
{
    const tp_tensor *tt = &c->tensors[t];
    const tp_format *fmt = tp_format_of(tt->dtype);
    size_t len, outlen = 0, backlen = 0;
    unsigned char *npy = (unsigned char *)tp_read_all(npy_path, &len), *out = NULL, *back = NULL;
    uint32_t *pred = NULL;
    char inner[600];
    int rc = -1;
    if (!npy) {
        snprintf(err, errlen, "%s: cannot read: %s", npy_path, strerror(errno));
        return -1;
    }
    if (!fmt || len <= (size_t)tt->numel * fmt->size) {
        snprintf(err, errlen, "%s: %zu bytes cannot be output %s (%lld elements)", npy_path, len, tt->name,
                 (long long)tt->numel);
        goto out;
    }
    if (!(pred = predict(plan, c, t, npy_path, NULL, err, errlen)))
        goto out;
    if (tp_residual_encode(npy, len, (unsigned)fmt->size, pred, (size_t)tt->numel, &out, &outlen, inner,
                           sizeof inner) != 0) {
        snprintf(err, errlen, "%s: %s", npy_path, inner);
        goto out;
    }
    /* never store what would not decode to the same bytes */
    tp_residual_file f;
    if (tp_residual_parse(out, outlen, &f, inner, sizeof inner) != 0 ||
        tp_residual_decode(&f, pred, &back, &backlen, inner, sizeof inner) != 0 || backlen != len ||
        memcmp(back, npy, len) != 0) {
        snprintf(err, errlen, "%s: the encoding does not decode to the same bytes (%s)", npy_path, inner);
        goto out;
    }
    if (write_atomic(tpr_path, out, outlen) != 0) {
        snprintf(err, errlen, "%s: cannot write: %s", tpr_path, strerror(errno));
        goto out;
    }
    *raw = len;
    *packed = outlen;
    rc = 0;
out:
    free(npy);
    free(out);
    free(back);
    free(pred);
    return rc;
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

int tp_run_output_load(const char *dir, const tp_plan *plan, tp_case *c, int t, tp_ref **keep, char *err,
                       size_t errlen)
{
    tp_ref *ref = NULL;
    if (keep)
        *keep = NULL;
    tp_tensor *tt = &c->tensors[t];
    char npy_path[4200], tpr_path[4200], inner[4800];
    if (tp_path_of(npy_path, sizeof npy_path, "%s/outputs/%s/%s.npy", dir, c->name, tt->name) != 0 ||
        tp_path_of(tpr_path, sizeof tpr_path, "%s/outputs/%s/%s.tpr", dir, c->name, tt->name) != 0) {
        snprintf(err, errlen, "%s/outputs/%s/%s: path too long", dir, c->name, tt->name);
        return -1;
    }
    int have_npy = exists(npy_path), have_tpr = exists(tpr_path);
    if (have_npy && have_tpr) {
        snprintf(err, errlen, "%s and %s.tpr both exist (expected one: which is the record?)", npy_path, tt->name);
        return -1;
    }
    tp_dtype dt;
    int rank;
    int64_t shape[4];
    void *data;
    const char *shown = npy_path;
    if (have_tpr) {
        size_t len;
        unsigned char *bytes = tp_packed_output_read(tpr_path, plan, c, t, &len, &ref, err, errlen);
        if (!bytes)
            return -1;
        FILE *f = fmemopen(bytes, len, "rb");
        char label[4300];
        snprintf(label, sizeof label, "%s (decoded)", tpr_path);
        int rc = f ? tp_npy_read_stream(f, label, &dt, &rank, shape, &data, inner, sizeof inner) : -1;
        if (!f)
            snprintf(inner, sizeof inner, "%s: cannot open its decoded bytes: %s", tpr_path, strerror(errno));
        free(bytes);
        if (rc != 0) {
            snprintf(err, errlen, "%s", inner);
            free(ref);
            return -1;
        }
        shown = tpr_path;
    } else if (!have_npy) {
        snprintf(err, errlen, "%s: no such file (nor %s.tpr)", npy_path, tt->name);
        return -1;
    } else if (tp_npy_read(npy_path, &dt, &rank, shape, &data, inner, sizeof inner) != 0) {
        snprintf(err, errlen, "%s", inner);
        return -1;
    }
    int same = dt == tt->dtype && rank == tt->rank;
    for (int d = 0; same && d < rank; d++)
        same = shape[d] == tt->shape[d];
    if (!same) {
        free(data);
        free(ref);
        snprintf(err, errlen, "%s: dtype or shape differs from the plan's tensor %s", shown, tt->name);
        return -1;
    }
    free(tt->data);
    tt->data = data;
    if (keep)
        *keep = ref;
    else
        free(ref);
    return 0;
}
