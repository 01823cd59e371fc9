#include "core/tp_dtype.h"

#include <stdio.h>
#include <string.h>

static const tp_dtype_info table[TP_NDTYPES] = {
    {TP_F16, "f16", 2, "__half", "<f2", 0},
    {TP_F32, "f32", 4, "float", "<f4", 0},
    {TP_I32, "i32", 4, "int", "<i4", 1},
    {TP_I64, "i64", 8, "long long", "<i8", 1},
    /* NumPy has no bfloat16: '<V2' (two opaque bytes, the bit pattern) is
     * what np.save writes for an ml_dtypes.bfloat16 array, so
     * np.load(f).view(ml_dtypes.bfloat16) gives the values back (plain
     * NumPy: .view('<u2') gives the patterns); '<u2' would be read back as
     * integers by every tool. Kernels see the patterns as tp_bf16
     * (harness/tp_hip.h: each vendor's bfloat16 type). */
    {TP_BF16, "bf16", 2, "tp_bf16", "<V2", 0},
};

const tp_dtype_info *tp_dtype_get(tp_dtype t)
{
    return (unsigned)t < TP_NDTYPES ? &table[t] : NULL;
}

size_t tp_dtype_size(tp_dtype t) { return table[t].size; }
const char *tp_dtype_name(tp_dtype t) { return table[t].name; }

int tp_dtype_parse(const char *name, tp_dtype *t)
{
    for (int i = 0; i < TP_NDTYPES; i++)
        if (strcmp(name, table[i].name) == 0) {
            *t = (tp_dtype)i;
            return 0;
        }
    return -1;
}

char *tp_dtype_list(int npy, char *out, size_t len)
{
    size_t n = 0;
    out[0] = 0;
    for (int i = 0; i < TP_NDTYPES && n < len; i++)
        n += (size_t)snprintf(out + n, len - n, "%s%s", i == 0 ? "" : i == TP_NDTYPES - 1 ? " or " : ", ",
                              npy ? table[i].npy_descr : table[i].name);
    return out;
}
