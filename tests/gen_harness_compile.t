#!/bin/bash
# TAP: the generated harness of every contract compiles with nvcc for sm_90
# and with hipcc for gfx90a (host + device code, to an object: linking needs
# the runtime library, which `ninja harnesses` covers); tp_hip.h's portable
# names compile on both; the build fingerprint reaches the object.
# A compiler that is absent gives "# SKIP", never a pass.
cd "$(dirname "$0")/.." || exit 1
PY=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

NVCC=""
if [ -x /usr/local/cuda/bin/nvcc ]; then NVCC=/usr/local/cuda/bin/nvcc; elif command -v nvcc >/dev/null; then NVCC=$(command -v nvcc); fi
HIPCC=$(command -v hipcc || true)
INC="-I. -Iharness -Ioracles"

n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
not_ok() {
    n=$((n + 1))
    fails=$((fails + 1))
    echo "not ok $n - $1"
    sed 's/^/#   /' "$2" | head -40
}

# compile BACKEND SRC OBJ: with the flags configure writes to config.ninja
compile() {
    case "$1" in
    cuda) "$NVCC" -arch=sm_90 -std=c++17 -O2 $INC -x cu -c "$2" -o "$3" ;;
    hip) "$HIPCC" --offload-arch=gfx90a -O2 -fno-gpu-flush-denormals-to-zero $INC -x hip -c "$2" -o "$3" ;;
    esac
}
have() { if [ "$1" = cuda ]; then [ -n "$NVCC" ]; else [ -n "$HIPCC" ]; fi; }
target() { if [ "$1" = cuda ]; then echo "nvcc sm_90"; else echo "hipcc gfx90a"; fi; }

# A kernel using the portability names: warp shuffles without masks,
# warpSize-wide reductions, the 16-bit CAS on a 32-bit word, fp16 and
# bf16 I/O.
cat >"$tmp/portable.hip" <<'EOF'
#include "tp_hip.h"
__global__ void k(const __half *x, __half *y, unsigned short *w, float *sum, const tp_bf16 *bx, tp_bf16 *by, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? __half2float(__ldg(&x[i])) : 0.0f;
    for (int d = warpSize / 2; d > 0; d /= 2)
        v += __shfl_down(v, d);
    if (threadIdx.x % warpSize == 0)
        atomicAdd(sum, v);
    if (i < n) {
        y[i] = __float2half(tanhf(expf(v)) * rsqrtf(2.0f) + fmaf(v, v, 1.0f));
        tp_atomic_cas_u16(&w[i], 0, 1);
        by[i] = tp_float2bf16(tp_bf162float(bx[i]) * v);
    }
    __syncthreads();
}
int main()
{
    int64_t g = tp_ceil_div(1000, 256) + tp_min(1, 2) + tp_max(1, 2) + tp_next_pow2(100);
    hipLaunchKernelGGL(k, dim3((unsigned)g), dim3(256), 0, 0, (const __half *)0, (__half *)0,
                       (unsigned short *)0, (float *)0, (const tp_bf16 *)0, (tp_bf16 *)0, 0);
    return hipGetLastError() == hipSuccess ? 0 : 1;
}
EOF

for b in cuda hip; do
    if ! have $b; then
        skip "tp_hip.h portable names compile with $(target $b)" "$( [ $b = cuda ] && echo nvcc || echo hipcc) not found"
    elif compile $b "$tmp/portable.hip" "$tmp/portable.$b.o" >"$tmp/log" 2>&1; then
        ok "tp_hip.h portable names compile with $(target $b)"
    else
        not_ok "tp_hip.h portable names compile with $(target $b)" "$tmp/log"
    fi
done

for c in contracts/*.toml; do
    name=$(basename "$c" .toml)
    for b in cuda hip; do
        src="$tmp/$b/$name.hip"
        if ! $PY gen/tpgen.py harness "$c" --backend $b -o "$src" 2>"$tmp/log"; then
            not_ok "$name: harness generated for $b" "$tmp/log"
            continue
        fi
        if ! have $b; then
            skip "$name: harness compiles with $(target $b)" "$( [ $b = cuda ] && echo nvcc || echo hipcc) not found"
            continue
        fi
        if compile $b "$src" "$tmp/$b/$name.o" >"$tmp/log" 2>&1 && [ -s "$tmp/$b/$name.o" ]; then
            ok "$name: harness compiles with $(target $b)"
        else
            not_ok "$name: harness compiles with $(target $b)" "$tmp/log"
        fi
    done
done

# the wrong backend's harness must refuse to compile (#error), not build silently
if [ -n "$NVCC" ] && [ -f "$tmp/hip/gemm_fwd.hip" ]; then
    if compile cuda "$tmp/hip/gemm_fwd.hip" "$tmp/wrong.o" >"$tmp/log" 2>&1; then
        echo "hip harness compiled with nvcc" >"$tmp/log"
        not_ok "a hip harness refuses to build with nvcc" "$tmp/log"
    elif grep -q "generated for the hip backend" "$tmp/log"; then
        ok "a hip harness refuses to build with nvcc"
    else
        not_ok "a hip harness refuses to build with nvcc" "$tmp/log"
    fi
else
    skip "a hip harness refuses to build with nvcc" "nvcc not found"
fi

# gen/tpgen.py cc records the compiler version and the exact command
for b in cuda hip; do
    if ! have $b; then
        skip "tpgen cc embeds the build fingerprint ($b)" "compiler not found"
        continue
    fi
    comp=$([ $b = cuda ] && echo "$NVCC" || echo "$HIPCC")
    out="$tmp/fp/$b.o"
    mkdir -p "$tmp/fp"
    if [ $b = cuda ]; then
        $PY gen/tpgen.py cc --backend cuda -o "$out" -- "$comp" -arch=sm_90 -std=c++17 -O2 $INC -x cu -c "$tmp/cuda/gemm_fwd.hip" -o "$out" >"$tmp/log" 2>&1
    else
        $PY gen/tpgen.py cc --backend hip -o "$out" -- "$comp" --offload-arch=gfx90a -O2 $INC -x hip -c "$tmp/hip/gemm_fwd.hip" -o "$out" >"$tmp/log" 2>&1
    fi
    rc=$?
    want=$([ $b = cuda ] && echo "Cuda compilation tools" || echo "HIP version")
    if [ $rc = 0 ] && grep -aq "$comp -include $out.buildinfo.h" "$out" && grep -aq "$want" "$out"; then
        ok "tpgen cc embeds the build fingerprint ($b)"
    else
        { echo "rc=$rc"; cat "$out.buildinfo.h" 2>/dev/null; } >>"$tmp/log"
        not_ok "tpgen cc embeds the build fingerprint ($b)" "$tmp/log"
    fi
done

echo "1..$n"
[ "$fails" = 0 ]
