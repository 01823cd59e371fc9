/* The CUDA exact provider of op "gemm" (oracles/gemm/gemm_exact_provider.h):
 * every element's exact sum of products and exact sum of |products| in
 * 128-bit fixed point on the GPU, in one pass, with the arithmetic of
 * oracles/gemm/gemm_fixed.h (integers only: independent of the kernels
 * under audit, which accumulate in fp32, and of the CPU path, which splits
 * double products).
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
 * k in steps of 16 through shared memory holding the operands unpacked by
 * tp_fx_pack; zero padding past K adds 0 to both integer sums. */
#include "oracles/gemm/gemm_exact_provider.h"
#include "oracles/gemm/gemm_fixed.h"

#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TP_GX_TILE 64 /* output rows and columns per block */
#define TP_GX_KSTEP 16
#define TP_GX_THREADS 16 /* per dimension: 16 x 16 threads, 4 x 4 elements each */

__global__ void __launch_bounds__(TP_GX_THREADS *TP_GX_THREADS)
    tp_gemm_fixed_kernel(int M, int N, int K, const float *__restrict__ A, const float *__restrict__ B,
                         double *__restrict__ hi, double *__restrict__ lo, double *__restrict__ ahi,
                         double *__restrict__ alo)
{
    /* +1: the column writes of the A tile hit distinct banks */
    __shared__ int32_t As[TP_GX_KSTEP][TP_GX_TILE + 1];
    __shared__ int32_t Bs[TP_GX_KSTEP][TP_GX_TILE];
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * TP_GX_THREADS + tx;
    const int row0 = blockIdx.y * TP_GX_TILE, col0 = blockIdx.x * TP_GX_TILE;
    tp_fx128 acc[4][4], aacc[4][4];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) {
            acc[i][j].lo = 0;
            acc[i][j].hi = 0;
            aacc[i][j].lo = 0;
            aacc[i][j].hi = 0;
        }
    for (int k0 = 0; k0 < K; k0 += TP_GX_KSTEP) {
        for (int l = tid; l < TP_GX_TILE * TP_GX_KSTEP; l += TP_GX_THREADS * TP_GX_THREADS) {
            int r = l / TP_GX_KSTEP, kk = l % TP_GX_KSTEP; /* A is M x K: k contiguous */
            int gr = row0 + r, gk = k0 + kk;
            As[kk][r] = gr < M && gk < K ? tp_fx_pack(A[(size_t)gr * K + gk]) : 0;
        }
        for (int l = tid; l < TP_GX_TILE * TP_GX_KSTEP; l += TP_GX_THREADS * TP_GX_THREADS) {
            int kk = l / TP_GX_TILE, c = l % TP_GX_TILE; /* B is K x N: columns contiguous */
            int gk = k0 + kk, gc = col0 + c;
            Bs[kk][c] = gk < K && gc < N ? tp_fx_pack(B[(size_t)gk * N + gc]) : 0;
        }
        __syncthreads();
#pragma unroll 4
        for (int kk = 0; kk < TP_GX_KSTEP; kk++) {
            int32_t ma[4], mb[4];
            int ea[4], eb[4];
#pragma unroll
            for (int i = 0; i < 4; i++) {
                int32_t pa = As[kk][ty + TP_GX_THREADS * i], pb = Bs[kk][tx + TP_GX_THREADS * i];
                ma[i] = tp_fx_mant(pa);
                ea[i] = tp_fx_exp(pa);
                mb[i] = tp_fx_mant(pb);
                eb[i] = tp_fx_exp(pb);
            }
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 4; j++)
                    tp_fx_mac(&acc[i][j], &aacc[i][j], ma[i], ea[i], mb[j], eb[j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) {
            int r = row0 + ty + TP_GX_THREADS * i, c = col0 + tx + TP_GX_THREADS * j;
            if (r < M && c < N) {
                size_t idx = (size_t)r * N + c;
                double h = 0.0, l = 0.0, ah = 0.0, al = 0.0;
                /* out of range: cannot happen for K <= TP_FX_K_MAX */
                if (tp_fx_to_dd(acc[i][j], &h, &l) != 0)
                    h = l = __longlong_as_double(0x7ff8000000000000LL);
                if (tp_fx_to_dd(aacc[i][j], &ah, &al) != 0)
                    ah = al = __longlong_as_double(0x7ff8000000000000LL);
                hi[idx] = h;
                lo[idx] = l;
                ahi[idx] = ah;
                alo[idx] = al;
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

static int tp_gx_sums(int M, int N, int K, const float *a, const float *b, double *hi, double *lo, double *ahi,
                      double *alo, char *err, size_t errlen)
{
    tp_gx_warm_join();
    if (M < 0 || N < 0 || K < 0 || K > TP_FX_K_MAX) {
        snprintf(err, errlen, "K = %d: the 128-bit fixed-point sums are argued for K <= %d", K, TP_FX_K_MAX);
        return -1;
    }
    if ((M + TP_GX_TILE - 1) / TP_GX_TILE > 65535) {
        snprintf(err, errlen, "M = %d: more than 65535 row tiles of %d", M, TP_GX_TILE);
        return -1;
    }
    if (!tp_gx_device_name[0] && tp_gx_probe(err, errlen) != 0)
        return -1;
    size_t n = (size_t)M * N, na = (size_t)M * K, nb = (size_t)K * N;
    if (n == 0)
        return 0;
    float *dA = NULL, *dB = NULL;
    double *dH = NULL, *dL = NULL, *dAH = NULL, *dAL = NULL;
    int rc = -1;
    if (tp_gx_call(cudaMalloc((void **)&dA, (na ? na : 1) * sizeof *dA), "cudaMalloc (A)", err, errlen) ||
        tp_gx_call(cudaMalloc((void **)&dB, (nb ? nb : 1) * sizeof *dB), "cudaMalloc (B)", err, errlen) ||
        tp_gx_call(cudaMalloc((void **)&dH, n * sizeof *dH), "cudaMalloc (hi)", err, errlen) ||
        tp_gx_call(cudaMalloc((void **)&dL, n * sizeof *dL), "cudaMalloc (lo)", err, errlen) ||
        tp_gx_call(cudaMalloc((void **)&dAH, n * sizeof *dAH), "cudaMalloc (abs hi)", err, errlen) ||
        tp_gx_call(cudaMalloc((void **)&dAL, n * sizeof *dAL), "cudaMalloc (abs lo)", err, errlen) ||
        tp_gx_call(cudaMemcpy(dA, a, na * sizeof *dA, cudaMemcpyHostToDevice), "cudaMemcpy (A)", err, errlen) ||
        tp_gx_call(cudaMemcpy(dB, b, nb * sizeof *dB, cudaMemcpyHostToDevice), "cudaMemcpy (B)", err, errlen))
        goto out;
    {
        dim3 block(TP_GX_THREADS, TP_GX_THREADS),
            grid((unsigned)((N + TP_GX_TILE - 1) / TP_GX_TILE), (unsigned)((M + TP_GX_TILE - 1) / TP_GX_TILE));
        tp_gemm_fixed_kernel<<<grid, block>>>(M, N, K, dA, dB, dH, dL, dAH, dAL);
    }
    if (tp_gx_call(cudaGetLastError(), "exact GEMM kernel launch", err, errlen) ||
        tp_gx_call(cudaDeviceSynchronize(), "exact GEMM kernel", err, errlen) ||
        tp_gx_call(cudaMemcpy(hi, dH, n * sizeof *hi, cudaMemcpyDeviceToHost), "cudaMemcpy (hi)", err, errlen) ||
        tp_gx_call(cudaMemcpy(lo, dL, n * sizeof *lo, cudaMemcpyDeviceToHost), "cudaMemcpy (lo)", err, errlen) ||
        tp_gx_call(cudaMemcpy(ahi, dAH, n * sizeof *ahi, cudaMemcpyDeviceToHost), "cudaMemcpy (abs hi)", err, errlen) ||
        tp_gx_call(cudaMemcpy(alo, dAL, n * sizeof *alo, cudaMemcpyDeviceToHost), "cudaMemcpy (abs lo)", err, errlen))
        goto out;
    rc = 0;
out:
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dH);
    cudaFree(dL);
    cudaFree(dAH);
    cudaFree(dAL);
    return rc;
}

static const tp_gemm_exact_provider tp_gemm_exact_cuda = {
    "cuda",
    "exact sums of products and of |products| in one pass, in 128-bit fixed point (integer multiples of 2^-48, "
    "two 64-bit limbs) on the GPU, oracles/gemm/gemm_exact_cuda.cu with oracles/gemm/gemm_fixed.h",
    tp_gx_sums,
    tp_gx_device,
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
