/* libFuzzer target: shape expressions (core/tp_expr*.c) in both spellings:
 * a plan's (tp_expr_eval) and a contract's (tp_expr_check, whose C
 * rendering is then evaluated as a plan would). The input is the text;
 * its first byte also picks the dims' values. Seeds: every expression of
 * the contracts (contracts/NAME.toml) and of the plans (tests/fuzz/seeds.sh). */
#include "tests/fuzz/fuzz_util.h" /* first: it asks for _GNU_SOURCE */
#include "core/tp_expr.h"

static const char *const dims[] = {"M", "N", "K", "V", "n", "D", "rows", "cols"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    int64_t values[8] = {1, 16, 64, 100, 1024, 65536, 2147483647, 3};
    if (size)
        values[data[0] % 8] = (int64_t)(int8_t)data[size - 1] * 1000003;
    int64_t v;
    char err[600], c[4096];
    if (tp_expr_eval(text, 8, dims, values, &v, err, sizeof err) != 0 && !err[0])
        abort();
    for (int kind = 0; kind < 2; kind++) {
        tp_grammar_error e;
        if (tp_expr_check(text, kind ? TP_EXPR_CONDITION : TP_EXPR_VALUE, 8, dims, c, sizeof c, &e) == 0) {
            /* what a contract accepts, a plan carries: it must parse again */
            if (tp_expr_eval(c, 8, dims, values, &v, err, sizeof err) != 0 && strstr(err, "expected"))
                abort();
        } else if (!e.what[0] || !e.expected[0])
            abort();
    }
    tp_grammar_error e;
    tp_expr_check_name(text, 1, &e);
    free(text);
    return 0;
}
