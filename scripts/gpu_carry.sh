#!/usr/bin/env bash
# Packs what scripts/torch_api_demo.py needs on a GPU host that has Python,
# NumPy and PyTorch but none of Debian's packages, into build/carry/:
#   libtolproof.so   the C API (same objects as build/libtolproof.so),
#                    with RUNPATH $ORIGIN/lib
#   lib/             the shared libraries it needs beyond libc and libm:
#                    libmpfr, libgmp, libjansson, libgomp (from this machine)
#   gen/             the built plans (contract names resolve there)
#   tolproof         the command, linked statically but for libc, for the
#                    file-based timing the demo compares with
#   libtp_gemm_cuda.so  the GPU exact provider `tolproof check --device`
#                    loads from next to the binary (when nvcc built it:
#                    `ninja gpu_provider`)
#   bench_gemm       `ninja bench`'s GEMM benchmark (tests/bench/bench_gemm.c),
#                    linked statically but for libc: the one-thread exact
#                    reference against plain double (scripts/bench_issue10.sh)
#   harnesses/       the CUDA harnesses of gemm_fwd, gemm_bwd_a and
#                    gemm_bwd_b when built (scripts/gpu_exact_check.sh runs
#                    them; run them from a checkout, which has kernels/)
# Run after `ninja lib` (and `ninja build/tests/bench/bench_gemm` for bench_gemm);
# the folder is about 15 MiB (35 with the harnesses).
set -euo pipefail
cd "$(dirname "$0")/.."
out=build/carry
rm -rf "$out"
mkdir -p "$out/lib" "$out/gen"
so_objs=(build/obj/api/tolproof.o build/libtolproof_cli.a build/libtolproof.a)
gcc -shared -o "$out/libtolproof.so" "${so_objs[@]}" -Wl,--version-script=api/tolproof.map -Wl,--exclude-libs,ALL \
    -Wl,--as-needed -Wl,-rpath,'$ORIGIN/lib' -Wl,-Bstatic -lmpfi -lcrypto -Wl,-Bdynamic -ljansson -lmpfr -lgmp -lm -fopenmp
gcc -o "$out/tolproof" build/obj/cli/main.o build/libtolproof_cli.a build/libtolproof.a \
    -Wl,-Bstatic -lmpfi -lmpfr -lgmp -ljansson -lcrypto -lz -lgomp -Wl,-Bdynamic -lm -ldl -lpthread
[ -f build/obj/tests/bench/bench_gemm.o ] &&
    gcc -o "$out/bench_gemm" build/obj/tests/bench/bench_gemm.o build/libtolproof_cli.a build/libtolproof.a \
        -Wl,-Bstatic -lmpfi -lmpfr -lgmp -ljansson -lcrypto -lz -lgomp -Wl,-Bdynamic -lm -ldl -lpthread
for l in $(ldd "$out/libtolproof.so" | awk '/=>/ {print $1}'); do
    case "$l" in libc.so.* | libm.so.* | ld-linux*) ;; *) cp -L "$(ldd "$out/libtolproof.so" | awk -v l="$l" '$1 == l {print $3}')" "$out/lib/" ;; esac
done
cp build/gen/*.plan.json "$out/gen/"
[ -f build/libtp_gemm_cuda.so ] && cp build/libtp_gemm_cuda.so "$out/"
for h in gemm_fwd gemm_bwd_a gemm_bwd_b; do
    [ -x "build/harnesses/cuda/$h" ] && mkdir -p "$out/harnesses" && cp "build/harnesses/cuda/$h" "$out/harnesses/"
done
echo "build/carry: $(du -sh "$out" | cut -f1); libtolproof.so needs: $(ldd "$out/libtolproof.so" | awk '/=>/ {print $1}' | tr '\n' ' ')"
