/* build/tests/libtp_gemm_emulated.so: a stand-in for build/libtp_gemm_cuda.so
 * with the same entry point, tp_gemm_exact_cuda_open, returning the GPU's
 * fixed-point arithmetic run on the host (tests/fixed_provider.h), so that
 * `tolproof check --device` can be tested end to end without a GPU
 * (TP_GEMM_CUDA_LIB names it). Like the GPU library it keeps its sums and
 * checks the output where they are (the kept-sums entries), with the GPU
 * check's structure: a tally per run of 256 elements, the runs merged in
 * order per chunk (oracles/gemm/gemm_check_cuda.cuh), in plain C.
 * Environment:
 *  - TP_EMULATED_WRONG_AT=I: element I of every output's sums wrong by
 *    2^-48;
 *  - TP_EMULATED_CHECK_WRONG_AT=I: element I's output pattern read with
 *    its last bit flipped in the element check (the sums right);
 *  - TP_EMULATED_NO_KEPT=1: no kept-sums entries (the sums come back
 *    whole and the CPU checks, as before the GPU check existed). */
#include "tests/fixed_provider.h"

#include "oracles/gemm/gemm_check_one.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const tp_gemm_exact_provider *tp_gemm_exact_cuda_open(char *err, size_t errlen);

static double *kept;      /* hi, lo, ahi, alo: 4 arrays of kept_n */
static size_t kept_n;
static long check_wrong_at = -1;

static void emu_release(void)
{
    free(kept);
    kept = NULL;
    kept_n = 0;
}

/* the binary16 operand widened, row-major R x C */
static float *widen(const tp_gemm_f16_operand *o, int R, int C)
{
    float *f = malloc(((size_t)R * (size_t)C + 1) * sizeof *f);
    for (int r = 0; f && r < R; r++)
        for (int c = 0; c < C; c++)
            f[(size_t)r * C + c] = (float)tp_ieee_decode(o->h[r * o->rs + c * o->cs], 5, 10);
    return f;
}

static int emu_sums_kept(int M, int N, int K, const tp_gemm_f16_operand *ha, const tp_gemm_f16_operand *hb, char *err,
                         size_t errlen)
{
    emu_release();
    size_t n = (size_t)M * (size_t)N;
    float *a = widen(ha, M, K), *b = widen(hb, K, N);
    kept = malloc(4 * (n ? n : 1) * sizeof *kept);
    int rc = -1;
    if (!kept || !a || !b)
        snprintf(err, errlen, "out of memory");
    else {
        kept_n = n;
        rc = fixed_provider_sums(M, N, K, a, b, kept, kept + n, kept + 2 * n, kept + 3 * n, err, errlen);
    }
    free(a);
    free(b);
    return rc;
}

static int emu_gather(size_t ns, const size_t *idx, double *hi, double *lo, double *ahi, double *alo, char *err,
                      size_t errlen)
{
    (void)err;
    (void)errlen;
    for (size_t q = 0; q < ns; q++) {
        hi[q] = kept[idx[q]];
        lo[q] = kept[kept_n + idx[q]];
        ahi[q] = kept[2 * kept_n + idx[q]];
        alo[q] = kept[3 * kept_n + idx[q]];
    }
    return 0;
}

static int emu_fetch(double *hi, double *lo, double *ahi, double *alo, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    size_t b = kept_n * sizeof *kept;
    memcpy(hi, kept, b);
    memcpy(lo, kept + kept_n, b);
    memcpy(ahi, kept + 2 * kept_n, b);
    memcpy(alo, kept + 3 * kept_n, b);
    return 0;
}

/* tp_gc_element of the GPU check on the host; the wrong element is read
 * with the last bit of its output pattern flipped (a GPU that reads it
 * wrong) */
static void emu_element(int64_t i, const uint16_t *out, double terms, double atol, double rtol, tp_check_tally *t)
{
    const size_t n = kept_n;
    const uint16_t y = i == check_wrong_at ? (uint16_t)(out[i] ^ 1u) : out[i];
    tp_gemm_check_one(i, kept[i], kept[n + i], kept[2 * n + i], kept[3 * n + i], y, terms, atol, rtol, t);
}

enum { RUN = 256 };

static int emu_check_f16(const uint16_t *out, double terms, double atol, double rtol, int64_t chunk, void *tallies,
                         size_t ns, const size_t *sample, void *sample_tallies, size_t tally_size, char *err,
                         size_t errlen)
{
    if (tally_size != sizeof(tp_check_tally) || chunk <= 0 || chunk % RUN != 0) {
        snprintf(err, errlen, "tally of %zu bytes or chunk of %lld: not this provider's", tally_size,
                 (long long)chunk);
        return -1;
    }
    tp_check_tally *ct = tallies, *st = sample_tallies;
    const int64_t n = (int64_t)kept_n;
    for (int64_t k = 0; k * chunk < n; k++) {
        tp_check_tally merged;
        memset(&merged, 0, sizeof merged);
        for (int64_t from = k * chunk; from < (k + 1) * chunk && from < n; from += RUN) {
            tp_check_tally run;
            memset(&run, 0, sizeof run);
            for (int64_t i = from; i < from + RUN && i < n; i++)
                emu_element(i, out, terms, atol, rtol, &run);
            tp_check_tally_merge(&merged, &run);
        }
        ct[k] = merged;
    }
    for (size_t q = 0; q < ns; q++) {
        memset(&st[q], 0, sizeof st[q]);
        emu_element((int64_t)sample[q], out, terms, atol, rtol, &st[q]);
    }
    return 0;
}

static tp_gemm_exact_provider emulated;

const tp_gemm_exact_provider *tp_gemm_exact_cuda_open(char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    const char *w = getenv("TP_EMULATED_WRONG_AT"), *cw = getenv("TP_EMULATED_CHECK_WRONG_AT"),
               *nk = getenv("TP_EMULATED_NO_KEPT");
    fixed_provider_wrong_at = w && *w ? atol(w) : -1;
    check_wrong_at = cw && *cw ? atol(cw) : -1;
    emulated = fixed_provider;
    if (!(nk && *nk == '1')) {
        emulated.sums_kept = emu_sums_kept;
        emulated.gather = emu_gather;
        emulated.fetch = emu_fetch;
        emulated.check_f16 = emu_check_f16;
        emulated.release = emu_release;
    }
    return &emulated;
}
