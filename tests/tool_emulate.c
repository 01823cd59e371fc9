/* Runs a contract's cases through the harness runtime with the kernel
 * replaced by a CPU emulation of it, so the whole record/replay path can
 * be tested without a GPU. --mutant NAME plants a known error. */
#define _POSIX_C_SOURCE 200809L
#include "tp_fp16.h"
#include "tp_harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static float h2f(uint16_t h) { return (float)tp_f16_to_double(h); }

static void gemm(tp_case *c, const char *mutant)
{
    const tp_tensor *A = tp_case_tensor(c, "A"), *B = tp_case_tensor(c, "B"), *C = tp_case_tensor(c, "C");
    int M = (int)A->shape[0], K = (int)A->shape[1], N = (int)B->shape[1];
    const uint16_t *a = A->data, *b = B->data;
    uint16_t *out = C->data;
    int kend = strcmp(mutant, "drop_last_term") == 0 ? K - 1 : K;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float acc = 0.0f;
            for (int k = 0; k < kend; k++) {
                if (strcmp(mutant, "fp16_accumulate") == 0)
                    acc = h2f(tp_f16_from_float(fmaf(h2f(a[i * K + k]), h2f(b[k * N + j]), acc)));
                else
                    acc = fmaf(h2f(a[i * K + k]), h2f(b[k * N + j]), acc);
            }
            out[i * N + j] = tp_f16_from_float(acc);
        }
}

static void gelu_bwd(tp_case *c, const char *mutant)
{
    const tp_tensor *X = tp_case_tensor(c, "x"), *G = tp_case_tensor(c, "g"), *GI = tp_case_tensor(c, "gi");
    const uint16_t *x = X->data, *g = G->data;
    uint16_t *gi = GI->data;
    const float cc = strcmp(mutant, "wrong_constant") == 0 ? 0.7978f : 0.7978845608f, a = 0.044715f,
                k3a = 0.134145f;
    for (int64_t i = 0; i < X->numel; i++) {
        float xf = h2f(x[i]), gf = h2f(g[i]);
        float x2 = xf * xf;
        float x3 = x2 * xf;
        float inner = cc * (xf + a * x3);
        float t = tanhf(inner);
        float dinner = cc * (1.0f + k3a * x2);
        float f = 0.5f * (1.0f + t) + 0.5f * xf * (1.0f - t * t) * dinner;
        gi[i] = tp_f16_from_float(gf * f);
    }
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: tool_emulate PLAN.json OUT_DIR [--mutant drop_last_term|fp16_accumulate|wrong_constant] "
                        "[harness options...]\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        fprintf(stderr, "%s: cannot open\n", argv[1]);
        return 2;
    }
    static char plan[1 << 20];
    size_t n = fread(plan, 1, sizeof plan - 1, f);
    fclose(f);
    plan[n] = 0;
    json_t *p = json_loads(plan, 0, NULL);
    if (!p) {
        fprintf(stderr, "%s: not JSON\n", argv[1]);
        return 2;
    }
    const char *op = json_string_value(json_object_get(p, "op"));
    json_t *kernel = json_object_get(p, "kernel");
    const char *mutant = "none";
    char *hargv[64] = {argv[0], "--out", argv[2]};
    int hargc = 3;
    for (int i = 3; i < argc && hargc < 62; i++) {
        if (strcmp(argv[i], "--mutant") == 0 && i + 1 < argc)
            mutant = argv[++i];
        else
            hargv[hargc++] = argv[i];
    }
    tp_harness_info info = {json_string_value(json_object_get(p, "contract")), plan,
                            json_string_value(json_object_get(kernel, "source")),
                            json_string_value(json_object_get(kernel, "sha256")), "cuda", "cpu emulation (gcc)",
                            "tests/tool_emulate.c"};
    tp_run *run = tp_run_open(hargc, hargv, &info);
    if (!run)
        return 2;
    tp_run_set_device(run, "cpu-emulation", "x86_64", 0, 0);
    for (int i = 0; i < tp_run_ncases(run); i++) {
        if (!tp_run_case_selected(run, i))
            continue;
        tp_case *c = tp_run_case_begin(run, i);
        if (!c)
            continue;
        if (strcmp(op, "gemm") == 0)
            gemm(c, mutant);
        else if (strcmp(op, "gelu_bwd") == 0)
            gelu_bwd(c, mutant);
        else {
            tp_run_case_error(run, i, "no CPU emulation for this op");
            continue;
        }
        tp_run_case_end(run, i, 0.0, 1);
    }
    int rc = tp_run_close(run);
    json_decref(p);
    return rc;
}
