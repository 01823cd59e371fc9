/* The CUDA exact provider of op "gemm" (oracles/gemm/gemm_exact_provider.h):
 * every element's exact sum of products and exact sum of |products| on the
 * GPU, in one pass over the operands: split doubles within chunks of at
 * most 8192 products (oracles/gemm/gemm_split.h), the chunks added in
 * 128-bit fixed point and converted to the normalized double-double
 * (oracles/gemm/gemm_fixed.h). Independent of the kernels under audit,
 * which accumulate in fp32.
 *
 * Built two ways, by nvcc only (CI has neither nvcc nor a GPU):
 *  - included by harness/tp_gpu.h into every CUDA harness, which sets it
 *    as the provider (tp_gemm_exact_cuda_provider: no CUDA call until the
 *    first sums, because the harness forks its case processes after);
 *  - build/libtp_gemm_cuda.so (cudart static inside), which
 *    `tolproof check --device` dlopen()s (cli/tp_device_provider.c) and
 *    opens with tp_gemm_exact_cuda_open (probes the GPU at once).
 *
 * The kernel: 64 x 64 output tiles, 256 threads of 4 x 4 elements each,
 * k in steps of 16 through two stages of shared memory holding the operands
 * as doubles (the next step's tiles load while the current ones are used);
 * zero padding past K adds 0 to every sum. One launch per chunk of K; a
 * chunk's sums go into the 128-bit totals in global memory (each element
 * owned by one thread), and the last chunk writes the double-doubles. */
#include "oracles/gemm/gemm_exact_provider.h"
#include "oracles/gemm/gemm_fixed.h"
#include "oracles/gemm/gemm_split.h"

#include <cuda_fp16.h>

#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TP_GX_TILE 64 /* output rows and columns per block */
#define TP_GX_KSTEP 16
#define TP_GX_THREADS 16 /* per dimension: 16 x 16 threads, 4 x 4 elements each */

/* Set when a chunk's part is not what gemm_split.h argues, or a total has
 * no double-double (neither can happen for binary16 operands): the call
 * then fails instead of returning sums. */
__device__ static int tp_gx_outside;

/* An operand as the kernel reads it: element (r, c) at p[r * rs + c * cs],
 * binary32 values (the widened operands of a harness) or binary16
 * patterns (`tolproof check --device`: half the bytes to copy, and no
 * widened copy on the host). Widening is exact either way: binary16 to
 * binary32 by the hardware conversion (IEEE 754: exact, as every binary16
 * value is a binary32 value; core/tp_ieee.h's decoder, written out, kept
 * the 4096^3 kernel at 0.073 s against 0.061 s in --timings runs on the
 * H200 host), binary32 to binary64 likewise. */
struct tp_gx_f32 {
    const float *__restrict__ p;
    int64_t rs, cs;
    __device__ double at(int64_t r, int64_t c) const { return (double)p[r * rs + c * cs]; }
};

struct tp_gx_f16 {
    const uint16_t *__restrict__ p;
    int64_t rs, cs;
    __device__ double at(int64_t r, int64_t c) const { return (double)__half2float(__ushort_as_half(p[r * rs + c * cs])); }
};

/* Products k in [k0, k1) (at most TP_SD_K_CHUNK) of every element of the
 * block's tile, of the M x K A and the K x N B; first: no earlier chunk;
 * last: write the double-doubles, else the 128-bit totals tot (2 per
 * element: S, then A). */
template <class Op>
__global__ void __launch_bounds__(TP_GX_THREADS *TP_GX_THREADS)
    tp_gemm_split_kernel(int M, int N, int K, int k0, int k1, int first, int last, Op A, Op B,
                         tp_fx128 *__restrict__ tot, double *__restrict__ hi, double *__restrict__ lo,
                         double *__restrict__ ahi, double *__restrict__ alo)
{
    /* Two stages: while the block computes on one, each thread holds its
     * part of the next tiles in registers (their global loads in flight
     * during the arithmetic) and stores them into the other, so one
     * barrier per step remains and no load waits in front of it. +1: the
     * column writes of the A tile hit distinct banks. */
    __shared__ double As[2][TP_GX_KSTEP][TP_GX_TILE + 1];
    __shared__ double Bs[2][TP_GX_KSTEP][TP_GX_TILE];
    enum { PER = TP_GX_TILE * TP_GX_KSTEP / (TP_GX_THREADS * TP_GX_THREADS) };
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * TP_GX_THREADS + tx;
    const int row0 = blockIdx.y * TP_GX_TILE, col0 = blockIdx.x * TP_GX_TILE;
    tp_sd_acc acc[4][4];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++)
            acc[i][j].hi = acc[i][j].lo = acc[i][j].ahi = acc[i][j].alo = 0.0;
    double ra[PER], rb[PER];
/* this thread's elements of the tiles at k = kb into ra, rb (zero padding
 * past the matrix and past k1) */
#define TP_GX_LOAD(kb)                                                                                        \
    for (int p = 0; p < PER; p++) {                                                                          \
        const int l = tid + p * TP_GX_THREADS * TP_GX_THREADS;                                                 \
        const int r = l / TP_GX_KSTEP, ka = l % TP_GX_KSTEP; /* A is M x K: k contiguous */                   \
        const int kb_ = l / TP_GX_TILE, c = l % TP_GX_TILE;  /* B is K x N: columns contiguous */             \
        ra[p] = row0 + r < M && (kb) + ka < k1 ? A.at(row0 + r, (kb) + ka) : 0.0;                              \
        rb[p] = (kb) + kb_ < k1 && col0 + c < N ? B.at((kb) + kb_, col0 + c) : 0.0;                            \
    }
#define TP_GX_STORE(s)                                                                                        \
    for (int p = 0; p < PER; p++) {                                                                          \
        const int l = tid + p * TP_GX_THREADS * TP_GX_THREADS;                                                 \
        As[s][l % TP_GX_KSTEP][l / TP_GX_KSTEP] = ra[p];                                                       \
        Bs[s][l / TP_GX_TILE][l % TP_GX_TILE] = rb[p];                                                         \
    }
    TP_GX_LOAD(k0)
    TP_GX_STORE(0)
    __syncthreads();
    int s = 0;
    for (int kb = k0; kb < k1; kb += TP_GX_KSTEP) {
        const int more = kb + TP_GX_KSTEP < k1;
        if (more)
            TP_GX_LOAD(kb + TP_GX_KSTEP)
#pragma unroll 4
        for (int kk = 0; kk < TP_GX_KSTEP; kk++) {
            double a[4], b[4];
#pragma unroll
            for (int i = 0; i < 4; i++) {
                a[i] = As[s][kk][ty + TP_GX_THREADS * i];
                b[i] = Bs[s][kk][tx + TP_GX_THREADS * i];
            }
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 4; j++)
                    tp_sd_mac(&acc[i][j], a[i], b[j]);
        }
        if (more)
            TP_GX_STORE(s ^ 1)
        __syncthreads();
        s ^= 1;
    }
#undef TP_GX_LOAD
#undef TP_GX_STORE
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) {
            int r = row0 + ty + TP_GX_THREADS * i, c = col0 + tx + TP_GX_THREADS * j;
            if (r < M && c < N) {
                size_t idx = (size_t)r * N + c;
                tp_fx128 s = {0, 0}, sa = {0, 0};
                if (!first) {
                    s = tot[2 * idx];
                    sa = tot[2 * idx + 1];
                }
                if (tp_fx_add_double(&s, acc[i][j].hi) | tp_fx_add_double(&s, acc[i][j].lo) |
                    tp_fx_add_double(&sa, acc[i][j].ahi) | tp_fx_add_double(&sa, acc[i][j].alo))
                    tp_gx_outside = 1;
                if (!last) {
                    tot[2 * idx] = s;
                    tot[2 * idx + 1] = sa;
                } else if (tp_fx_to_dd(s, &hi[idx], &lo[idx]) | tp_fx_to_dd(sa, &ahi[idx], &alo[idx]))
                    tp_gx_outside = 1;
            }
        }
}

static char tp_gx_device_name[256];

static const char *tp_gx_device(void) { return tp_gx_device_name; }

static int tp_gx_call(cudaError_t e, const char *what, char *err, size_t errlen)
{
    if (e == cudaSuccess)
        return 0;
    snprintf(err, errlen, "%s: %s", what, cudaGetErrorString(e));
    return -1;
}

/* The current device (the harness's, or device 0), its name recorded. */
static int tp_gx_probe(char *err, size_t errlen)
{
    int n = 0, dev = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        snprintf(err, errlen, "no GPU: %s", cudaGetErrorString(e));
        return -1;
    }
    if (n < 1) {
        snprintf(err, errlen, "no GPU: the CUDA runtime reports no device");
        return -1;
    }
    cudaDeviceProp p;
    if (tp_gx_call(cudaGetDevice(&dev), "cudaGetDevice", err, errlen) ||
        tp_gx_call(cudaGetDeviceProperties(&p, dev), "cudaGetDeviceProperties", err, errlen))
        return -1;
    snprintf(tp_gx_device_name, sizeof tp_gx_device_name, "%s", p.name);
    return 0;
}

/* The GPU's context is made in the background while the check reads its
 * files (0.1 to 0.15 s of a --device check on the H200 host), and joined
 * before the first sums, or at exit when there are none (registered after
 * the CUDA runtime's own exit handler, so it runs before it). */
static pthread_t tp_gx_warm_thread;
static int tp_gx_warming;

static void *tp_gx_warm(void *unused)
{
    (void)unused;
    cudaFree(0); /* creates the current device's primary context; an error shows again at the first real call */
    return NULL;
}

static void tp_gx_warm_join(void)
{
    if (tp_gx_warming) {
        pthread_join(tp_gx_warm_thread, NULL);
        tp_gx_warming = 0;
    }
}

/* The phases of a call on stderr, as `tolproof check --timings` prints
 * its own (the command turns them on through
 * tp_gemm_exact_cuda_timings). */
static int tp_gx_timings;

static double tp_gx_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void tp_gx_phase(double *t, const char *what)
{
    if (!tp_gx_timings)
        return;
    cudaDeviceSynchronize(); /* the phase's GPU work is done: its own time, not the next one's */
    double now = tp_gx_now();
    fprintf(stderr, "tolproof: timing: GPU exact provider: %s: %.3f s\n", what, now - *t);
    *t = now;
}

/* The result arrays are fresh memory: its pages fault in (the kernel
 * zeroes them) when first written. Left to the copy from the GPU, that
 * happened one page at a time in the driver's thread: 0.18 s of the
 * 0.26 s GPU pass of a 4096^2 output on the H200 host. Touched here by
 * several threads while the GPU computes, the faults cost no wall time. */
typedef struct {
    char *p;
    size_t bytes;
} tp_gx_span;

static void *tp_gx_touch(void *arg)
{
    const tp_gx_span *s = (const tp_gx_span *)arg;
    for (size_t off = 0; off < s->bytes; off += 4096)
        s->p[off] = 0;
    return NULL;
}

#define TP_GX_TOUCH_THREADS 8

static void tp_gx_touch_all(double *const arrays[4], size_t bytes)
{
    tp_gx_span span[4 * TP_GX_TOUCH_THREADS];
    pthread_t th[4 * TP_GX_TOUCH_THREADS];
    int started[4 * TP_GX_TOUCH_THREADS] = {0};
    /* TP_GX_TOUCH_THREADS / 4 pieces per array, a thread each */
    const int per = TP_GX_TOUCH_THREADS / 4;
    size_t piece = (bytes / (size_t)per + 4095) / 4096 * 4096;
    int n = 0;
    for (int a = 0; a < 4; a++)
        for (int k = 0; k < per; k++) {
            size_t off = (size_t)k * piece;
            if (off >= bytes)
                break;
            span[n].p = (char *)arrays[a] + off;
            span[n].bytes = bytes - off < piece ? bytes - off : piece;
            started[n] = pthread_create(&th[n], NULL, tp_gx_touch, &span[n]) == 0;
            if (!started[n])
                tp_gx_touch(&span[n]); /* no thread: touched here, same result */
            n++;
        }
    for (int k = 0; k < n; k++)
        if (started[k])
            pthread_join(th[k], NULL);
}

/* The sums of the last computation, on the GPU: freed at once by
 * tp_gx_sums, kept by tp_gx_sums_kept until tp_gx_release. */
static double *tp_gx_dH, *tp_gx_dL, *tp_gx_dAH, *tp_gx_dAL;
static size_t tp_gx_n;

static void tp_gx_release(void)
{
    cudaFree(tp_gx_dH);
    cudaFree(tp_gx_dL);
    cudaFree(tp_gx_dAH);
    cudaFree(tp_gx_dAL);
    tp_gx_dH = tp_gx_dL = tp_gx_dAH = tp_gx_dAL = NULL;
    tp_gx_n = 0;
}

/* The operands as the host holds them: elem bytes per element (4:
 * floats, 2: binary16 patterns), na and nb elements, op(A) and op(B)
 * read with the strides. */
typedef struct {
    const void *a, *b;
    size_t elem, na, nb;
    int64_t ars, acs, brs, bcs;
} tp_gx_operands;

template <class Op>
static void tp_gx_launch(const tp_gx_operands *o, const void *dA, const void *dB, int M, int N, int K, int k0, int k1,
                         int first, int last, tp_fx128 *dT)
{
    dim3 block(TP_GX_THREADS, TP_GX_THREADS),
        grid((unsigned)((N + TP_GX_TILE - 1) / TP_GX_TILE), (unsigned)((M + TP_GX_TILE - 1) / TP_GX_TILE));
    Op A = {(decltype(A.p))dA, o->ars, o->acs}, B = {(decltype(B.p))dB, o->brs, o->bcs};
    tp_gemm_split_kernel<Op><<<grid, block>>>(M, N, K, k0, k1, first, last, A, B, dT, tp_gx_dH, tp_gx_dL, tp_gx_dAH,
                                             tp_gx_dAL);
}

/* The sums into tp_gx_dH .. tp_gx_dAL; touch: host arrays whose pages
 * are faulted in while the kernel runs (NULL: none). */
static int tp_gx_compute(int M, int N, int K, const tp_gx_operands *o, double *const *touch, char *err, size_t errlen)
{
    double tw = tp_gx_timings ? tp_gx_now() : 0.0;
    const int warming = tp_gx_warming;
    tp_gx_warm_join();
    if (warming)
        tp_gx_phase(&tw, "waited for the CUDA context (made in the background since the provider loaded)");
    tp_gx_release();
    if (M < 0 || N < 0 || K < 0 || K > TP_FX_K_MAX) {
        snprintf(err, errlen, "K = %d: the exact sums on the GPU are argued for K <= %d", K, TP_FX_K_MAX);
        return -1;
    }
    if ((M + TP_GX_TILE - 1) / TP_GX_TILE > 65535) {
        snprintf(err, errlen, "M = %d: more than 65535 row tiles of %d", M, TP_GX_TILE);
        return -1;
    }
    if (!tp_gx_device_name[0] && tp_gx_probe(err, errlen) != 0)
        return -1;
    size_t n = (size_t)M * N, na = o->na, nb = o->nb;
    if (n == 0)
        return 0;
    int chunks = K == 0 ? 1 : (K + TP_SD_K_CHUNK - 1) / TP_SD_K_CHUNK, outside = 0;
    double t = tp_gx_timings ? tp_gx_now() : 0.0;
    void *dA = NULL, *dB = NULL;
    tp_fx128 *dT = NULL;
    int rc = -1;
    if (tp_gx_call(cudaMalloc(&dA, (na ? na : 1) * o->elem), "cudaMalloc (A)", err, errlen) ||
        tp_gx_call(cudaMalloc(&dB, (nb ? nb : 1) * o->elem), "cudaMalloc (B)", err, errlen) ||
        tp_gx_call(cudaMalloc((void **)&tp_gx_dH, n * sizeof(double)), "cudaMalloc (hi)", err, errlen) ||
        tp_gx_call(cudaMalloc((void **)&tp_gx_dL, n * sizeof(double)), "cudaMalloc (lo)", err, errlen) ||
        tp_gx_call(cudaMalloc((void **)&tp_gx_dAH, n * sizeof(double)), "cudaMalloc (abs hi)", err, errlen) ||
        tp_gx_call(cudaMalloc((void **)&tp_gx_dAL, n * sizeof(double)), "cudaMalloc (abs lo)", err, errlen) ||
        (chunks > 1 &&
         tp_gx_call(cudaMalloc((void **)&dT, 2 * n * sizeof *dT), "cudaMalloc (128-bit totals)", err, errlen)) ||
        tp_gx_call(cudaMemcpyToSymbol(tp_gx_outside, &outside, sizeof outside), "cudaMemcpyToSymbol", err, errlen))
        goto out;
    tp_gx_n = n;
    tp_gx_phase(&t, "device memory allocated");
    if (tp_gx_call(cudaMemcpy(dA, o->a, na * o->elem, cudaMemcpyHostToDevice), "cudaMemcpy (A)", err, errlen) ||
        tp_gx_call(cudaMemcpy(dB, o->b, nb * o->elem, cudaMemcpyHostToDevice), "cudaMemcpy (B)", err, errlen))
        goto out;
    tp_gx_phase(&t, "operands copied to the GPU");
    for (int c = 0; c < chunks; c++) {
        int k0 = c * TP_SD_K_CHUNK, k1 = K - k0 < TP_SD_K_CHUNK ? K : k0 + TP_SD_K_CHUNK;
        if (o->elem == 2)
            tp_gx_launch<tp_gx_f16>(o, dA, dB, M, N, K, k0, k1, c == 0, c == chunks - 1, dT);
        else
            tp_gx_launch<tp_gx_f32>(o, dA, dB, M, N, K, k0, k1, c == 0, c == chunks - 1, dT);
        if (tp_gx_call(cudaGetLastError(), "exact GEMM kernel launch", err, errlen))
            goto out;
    }
    if (touch)
        tp_gx_touch_all(touch, n * sizeof(double));
    if (tp_gx_call(cudaDeviceSynchronize(), "exact GEMM kernel", err, errlen) ||
        tp_gx_call(cudaMemcpyFromSymbol(&outside, tp_gx_outside, sizeof outside), "cudaMemcpyFromSymbol", err,
                   errlen))
        goto out;
    tp_gx_phase(&t, touch ? "exact sums (the kernel, while the host touches the result pages)" : "exact sums");
    if (outside) {
        snprintf(err, errlen, "a chunk's split-double sum left the range that oracles/gemm/gemm_split.h argues "
                              "(operands not binary16 values?)");
        goto out;
    }
    rc = 0;
out:
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dT);
    if (rc != 0)
        tp_gx_release();
    return rc;
}

/* All kept sums into the host arrays. */
static int tp_gx_fetch(double *hi, double *lo, double *ahi, double *alo, char *err, size_t errlen)
{
    double t = tp_gx_timings ? tp_gx_now() : 0.0;
    size_t n = tp_gx_n;
    if (n && (tp_gx_call(cudaMemcpy(hi, tp_gx_dH, n * sizeof *hi, cudaMemcpyDeviceToHost), "cudaMemcpy (hi)", err,
                         errlen) ||
              tp_gx_call(cudaMemcpy(lo, tp_gx_dL, n * sizeof *lo, cudaMemcpyDeviceToHost), "cudaMemcpy (lo)", err,
                         errlen) ||
              tp_gx_call(cudaMemcpy(ahi, tp_gx_dAH, n * sizeof *ahi, cudaMemcpyDeviceToHost), "cudaMemcpy (abs hi)",
                         err, errlen) ||
              tp_gx_call(cudaMemcpy(alo, tp_gx_dAL, n * sizeof *alo, cudaMemcpyDeviceToHost), "cudaMemcpy (abs lo)",
                         err, errlen)))
        return -1;
    tp_gx_phase(&t, "sums copied back");
    return 0;
}

static int tp_gx_sums(int M, int N, int K, const float *a, const float *b, double *hi, double *lo, double *ahi,
                      double *alo, char *err, size_t errlen)
{
    double *const res[4] = {hi, lo, ahi, alo};
    const tp_gx_operands o = {a, b, sizeof *a, (size_t)M * K, (size_t)K * N, K, 1, N, 1};
    int rc = tp_gx_compute(M, N, K, &o, res, err, errlen);
    if (rc == 0)
        rc = tp_gx_fetch(hi, lo, ahi, alo, err, errlen);
    double t = tp_gx_timings ? tp_gx_now() : 0.0;
    tp_gx_release();
    tp_gx_phase(&t, "device memory freed");
    return rc;
}

#ifdef TP_GX_DEVICE_CHECK
#include "oracles/gemm/gemm_check_cuda.cuh"

static int tp_gx_sums_kept(int M, int N, int K, const tp_gemm_f16_operand *a, const tp_gemm_f16_operand *b, char *err,
                           size_t errlen)
{
    const tp_gx_operands o = {a->h, b->h, 2, (size_t)M * K, (size_t)K * N, a->rs, a->cs, b->rs, b->cs};
    return tp_gx_compute(M, N, K, &o, NULL, err, errlen);
}

static int tp_gx_gather(size_t ns, const size_t *idx, double *hi, double *lo, double *ahi, double *alo, char *err,
                        size_t errlen)
{
    if (ns == 0)
        return 0;
    size_t *dI = NULL;
    double *dV = NULL, *v = (double *)malloc(4 * ns * sizeof *v);
    int rc = -1;
    if (!v) {
        snprintf(err, errlen, "out of memory for %zu gathered sums", ns);
        return -1;
    }
    if (!tp_gx_call(cudaMalloc((void **)&dI, ns * sizeof *dI), "cudaMalloc (sample)", err, errlen) &&
        !tp_gx_call(cudaMalloc((void **)&dV, 4 * ns * sizeof *dV), "cudaMalloc (gathered)", err, errlen) &&
        !tp_gx_call(cudaMemcpy(dI, idx, ns * sizeof *dI, cudaMemcpyHostToDevice), "cudaMemcpy (sample)", err,
                    errlen)) {
        tp_gc_gather<<<(unsigned)((ns + TP_GC_THREADS - 1) / TP_GC_THREADS), TP_GC_THREADS>>>(
            ns, dI, tp_gx_dH, tp_gx_dL, tp_gx_dAH, tp_gx_dAL, dV);
        if (!tp_gx_call(cudaGetLastError(), "gather kernel launch", err, errlen) &&
            !tp_gx_call(cudaMemcpy(v, dV, 4 * ns * sizeof *v, cudaMemcpyDeviceToHost), "cudaMemcpy (gathered)", err,
                        errlen)) {
            memcpy(hi, v, ns * sizeof *hi);
            memcpy(lo, v + ns, ns * sizeof *lo);
            memcpy(ahi, v + 2 * ns, ns * sizeof *ahi);
            memcpy(alo, v + 3 * ns, ns * sizeof *alo);
            rc = 0;
        }
    }
    cudaFree(dI);
    cudaFree(dV);
    free(v);
    return rc;
}

static int tp_gx_check_f16(const uint16_t *out, double terms, double atol, double rtol, int64_t chunk,
                           void *tallies, size_t ns, const size_t *sample, void *sample_tallies, size_t tally_size,
                           char *err, size_t errlen)
{
    if (tally_size != sizeof(tp_check_tally)) {
        snprintf(err, errlen, "the caller's tally is %zu bytes, the provider's %zu: not built from one tree",
                 tally_size, sizeof(tp_check_tally));
        return -1;
    }
    if (chunk <= 0 || chunk % TP_GC_RUN != 0) {
        snprintf(err, errlen, "chunks of %lld elements: a multiple of %d expected", (long long)chunk, TP_GC_RUN);
        return -1;
    }
    const int64_t n = (int64_t)tp_gx_n, nruns = (n + TP_GC_RUN - 1) / TP_GC_RUN, nchunks = (n + chunk - 1) / chunk;
    if (n == 0)
        return 0;
    double t = tp_gx_timings ? tp_gx_now() : 0.0;
    uint16_t *dO = NULL;
    size_t *dI = NULL;
    tp_check_tally *dR = NULL, *dC = NULL, *dS = NULL;
    int rc = -1;
    if (tp_gx_call(cudaMalloc((void **)&dO, (size_t)n * sizeof *dO), "cudaMalloc (output)", err, errlen) ||
        tp_gx_call(cudaMalloc((void **)&dR, (size_t)nruns * sizeof *dR), "cudaMalloc (run tallies)", err, errlen) ||
        tp_gx_call(cudaMalloc((void **)&dC, (size_t)nchunks * sizeof *dC), "cudaMalloc (tallies)", err, errlen) ||
        (ns && (tp_gx_call(cudaMalloc((void **)&dI, ns * sizeof *dI), "cudaMalloc (sample)", err, errlen) ||
                tp_gx_call(cudaMalloc((void **)&dS, ns * sizeof *dS), "cudaMalloc (sample tallies)", err, errlen) ||
                tp_gx_call(cudaMemcpy(dI, sample, ns * sizeof *dI, cudaMemcpyHostToDevice), "cudaMemcpy (sample)",
                           err, errlen))) ||
        tp_gx_call(cudaMemcpy(dO, out, (size_t)n * sizeof *dO, cudaMemcpyHostToDevice), "cudaMemcpy (output)", err,
                   errlen))
        goto out;
    tp_gx_phase(&t, "element check: output copied to the GPU");
    tp_gc_runs<<<(unsigned)((nruns + TP_GC_THREADS - 1) / TP_GC_THREADS), TP_GC_THREADS>>>(
        n, tp_gx_dH, tp_gx_dL, tp_gx_dAH, tp_gx_dAL, dO, terms, atol, rtol, dR);
    tp_gc_chunks<<<(unsigned)((nchunks + TP_GC_THREADS - 1) / TP_GC_THREADS), TP_GC_THREADS>>>(
        nruns, chunk / TP_GC_RUN, nchunks, dR, dC);
    if (ns)
        tp_gc_sample<<<(unsigned)((ns + TP_GC_THREADS - 1) / TP_GC_THREADS), TP_GC_THREADS>>>(
            ns, dI, tp_gx_dH, tp_gx_dL, tp_gx_dAH, tp_gx_dAL, dO, terms, atol, rtol, dS);
    if (tp_gx_call(cudaGetLastError(), "element check kernel launch", err, errlen) ||
        tp_gx_call(cudaDeviceSynchronize(), "element check kernels", err, errlen))
        goto out;
    tp_gx_phase(&t, "element check kernels");
    if (tp_gx_call(cudaMemcpy(tallies, dC, (size_t)nchunks * sizeof *dC, cudaMemcpyDeviceToHost),
                   "cudaMemcpy (tallies)", err, errlen) ||
        (ns && tp_gx_call(cudaMemcpy(sample_tallies, dS, ns * sizeof *dS, cudaMemcpyDeviceToHost),
                          "cudaMemcpy (sample tallies)", err, errlen)))
        goto out;
    tp_gx_phase(&t, "element check: tallies copied back");
    rc = 0;
out:
    cudaFree(dO);
    cudaFree(dI);
    cudaFree(dR);
    cudaFree(dC);
    cudaFree(dS);
    return rc;
}
#define TP_GX_KEPT tp_gx_sums_kept, tp_gx_gather, tp_gx_fetch, tp_gx_check_f16, tp_gx_release
#else
#define TP_GX_KEPT NULL, NULL, NULL, NULL, NULL /* harnesses check on the CPU */
#endif

static const tp_gemm_exact_provider tp_gemm_exact_cuda = {
    "cuda",
    "exact sums of products and of |products| in one pass on the GPU: split doubles (1.5 * 2^44, FMA) within "
    "chunks of 8192 products, the chunks added in 128-bit fixed point (multiples of 2^-48), "
    "oracles/gemm/gemm_exact_cuda.cu with oracles/gemm/gemm_split.h and oracles/gemm/gemm_fixed.h",
    tp_gx_sums,
    tp_gx_device,
    TP_GX_KEPT,
};

/* The provider, opened lazily (first sums): no CUDA call here. */
extern "C" const tp_gemm_exact_provider *tp_gemm_exact_cuda_provider(void) { return &tp_gemm_exact_cuda; }

/* The provider, its GPU probed now: NULL and one line in err ("no GPU:
 * ...") when there is none. */
extern "C" const tp_gemm_exact_provider *tp_gemm_exact_cuda_open(char *err, size_t errlen)
{
    if (tp_gx_probe(err, errlen) != 0)
        return NULL;
    if (!tp_gx_warming && pthread_create(&tp_gx_warm_thread, NULL, tp_gx_warm, NULL) == 0) {
        tp_gx_warming = 1;
        atexit(tp_gx_warm_join);
    }
    return &tp_gemm_exact_cuda;
}

/* --timings: the phases of each call on stderr. */
extern "C" void tp_gemm_exact_cuda_timings(int on) { tp_gx_timings = on; }
