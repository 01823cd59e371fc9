/* libFuzzer target: the fill grammar (core/tp_rng.c): the first byte picks
 * the tensor's dtype and rank, the rest is the fill; a fill the check
 * accepts fills a small tensor. Seeds: every fill of the contracts (contracts/NAME.toml)
 * (tests/fuzz/seeds.sh). */
#include "tests/fuzz/fuzz_util.h" /* first: it asks for _GNU_SOURCE */
#include "core/tp_format.h"
#include "core/tp_rng.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    tp_dtype dt = (tp_dtype)(data[0] % TP_NDTYPES);
    int rank = 1 + (data[0] / TP_NDTYPES) % 4;
    char *text = fuzz_text(data + 1, size - 1);
    tp_grammar_error e;
    int ok = tp_fill_check(text, dt, rank, &e) == 0;
    if (!ok && (!e.what[0] || !e.expected[0]))
        abort();
    static const int64_t shape[4] = {3, 4, 2, 5};
    int64_t numel = 1;
    for (int d = 0; d < rank; d++)
        numel *= shape[d];
    uint64_t buf[120];
    char err[1600];
    const tp_format *fmt = tp_format_of(dt);
    int rc = fmt ? tp_fill_float(fmt, buf, rank, shape, text, 7, "A", err, sizeof err)
                 : tp_fill_int(buf, dt == TP_I64, numel, text, 7, "idx", err, sizeof err);
    /* the run-time parser and the contract check agree */
    if ((rc == 0) != ok)
        abort();
    free(text);
    return 0;
}
