/* The element types a contract's tensors can have, described once: the
 * registry (build/gen/registry.json) publishes this table, and the
 * generator, the .npy reader and `tolproof check` read their names, sizes,
 * harness C types and NumPy descriptors from it. */
#ifndef TP_DTYPE_H
#define TP_DTYPE_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The floating-point dtypes have a format descriptor (core/tp_format.h).
 * bf16 comes last so that the others keep their codes. */
typedef enum { TP_F16 = 0, TP_F32, TP_I32, TP_I64, TP_BF16, TP_NDTYPES } tp_dtype;

/* A set of dtypes, e.g. the ones an op or a fill accepts. */
#define TP_DTYPE_BIT(t) (1u << (t))

typedef struct {
    tp_dtype dtype;
    const char *name;      /* as contracts and plans write it: "f16" */
    size_t size;           /* bytes per element */
    const char *c_type;    /* the element type in a generated harness: "__half" */
    const char *npy_descr; /* NumPy's little-endian descr: "<f2" */
    int index;             /* 1: integer indices (index fills); 0: floating-point values */
} tp_dtype_info;

const tp_dtype_info *tp_dtype_get(tp_dtype t);

size_t tp_dtype_size(tp_dtype t);
const char *tp_dtype_name(tp_dtype t); /* "f16", "f32", "i32", "i64", "bf16" */
int tp_dtype_parse(const char *name, tp_dtype *t);

/* Writes "A, B, C or D": every dtype's name (npy = 0) or NumPy descr
 * (npy = 1), for messages that say what was expected. Returns out. */
char *tp_dtype_list(int npy, char *out, size_t len);

#ifdef __cplusplus
}
#endif
#endif
