#include "oracles/generic/ew_tab.h"

#include "oracles/generic/ew_admit.h"
#include "oracles/generic/ew_exact.h"

#include <stdlib.h>
#include <string.h>

#define NPAT 65536

void ew_tabs_plan(const ew_prog *p, const tp_format *const *fmt, ew_tabs *t)
{
    memset(t, 0, sizeof *t);
    memset(t->tab_of, -1, sizeof t->tab_of);
    unsigned dep[EW_MAX_NODES];
    int fn[EW_MAX_NODES], parent[EW_MAX_NODES];
    for (int i = 0; i < p->n; i++) {
        const ew_node *nd = &p->node[i];
        parent[i] = -1;
        dep[i] = nd->kind == EW_INPUT ? 1u << nd->input : 0u;
        fn[i] = nd->kind >= EW_FIRST_FN;
        const int ch[3] = {nd->a, nd->b, nd->c};
        for (int j = 0; j < 3; j++)
            if (ch[j] >= 0) {
                dep[i] |= dep[ch[j]], fn[i] |= fn[ch[j]];
                parent[ch[j]] = i;
            }
    }
    /* one input (a single bit of dep) of a 16-bit format, and a device function */
    int cand[EW_MAX_NODES];
    for (int i = 0; i < p->n; i++) {
        const unsigned d = dep[i];
        cand[i] = d && !(d & (d - 1)) && fn[i] && fmt[__builtin_ctz(d)] && fmt[__builtin_ctz(d)]->size == 2 &&
                  !EW_IS_COMPARISON(p->node[i].kind);
    }
    for (int i = 0; i < p->n && t->n < EW_MAX_TABS; i++) {
        if (!cand[i] || (parent[i] >= 0 && cand[parent[i]]))
            continue;
        const int k = t->n++;
        t->root[k] = i;
        t->input[k] = __builtin_ctz(dep[i]);
        t->tab_of[i] = (signed char)k;
        /* the subtree: nodes whose chain of parents reaches i */
        for (int j = 0; j <= i; j++) {
            int q = j;
            while (q >= 0 && q != i)
                q = parent[q];
            if (q == i) {
                t->mask[k][j] = 1;
                if (j != i)
                    t->skip[j] = 1;
            }
        }
    }
}

void ew_tabs_free(ew_tabs *t)
{
    for (int k = 0; k < t->n; k++) {
        if (t->exact[k])
            for (int h = 0; h < NPAT; h++)
                mpfi_clear(t->exact[k][h]);
        free(t->exact[k]), free(t->efail[k]), free(t->ival[k]), free(t->fnode[k]), free(t->fwhy[k]);
        t->exact[k] = NULL, t->efail[k] = NULL, t->ival[k] = NULL, t->fnode[k] = NULL, t->fwhy[k] = NULL;
    }
}

int ew_tabs_build(ew_tabs *t, const ew_prog *p, const ew_model *m, const tp_format *const *fmt, int exact)
{
    for (int k = 0; k < t->n; k++) {
        t->ival[k] = malloc(NPAT * sizeof *t->ival[k]);
        t->fnode[k] = malloc(NPAT * sizeof *t->fnode[k]);
        t->fwhy[k] = malloc(NPAT * sizeof *t->fwhy[k]);
        if (exact) {
            t->exact[k] = malloc(NPAT * sizeof *t->exact[k]);
            t->efail[k] = calloc(NPAT, 1);
        }
        if (!t->ival[k] || !t->fnode[k] || !t->fwhy[k] || (exact && (!t->exact[k] || !t->efail[k]))) {
            free(t->exact[k]), t->exact[k] = NULL;
            ew_tabs_free(t);
            return -1;
        }
        if (exact)
            for (int h = 0; h < NPAT; h++)
                mpfi_init2(t->exact[k][h], EW_EXACT_PREC);
        const tp_format *f = fmt[t->input[k]];
        const int root = t->root[k], in = t->input[k];
#pragma omp parallel
        {
            ew_exact_ws *w = exact ? malloc(sizeof *w) : NULL;
            if (w)
                ew_exact_init(w, p);
#pragma omp for schedule(dynamic, 256)
            for (int h = 0; h < NPAT; h++) {
                float x[EW_MAX_INPUTS] = {0};
                x[in] = (float)f->decode((uint32_t)h);
                int node = -1;
                const char *why = "";
                tp_ival32 r = {0.0f, 0.0f};
                if (f->is_nan((uint32_t)h) || f->is_inf((uint32_t)h) ||
                    ew_admit_nodes(p, m, x, root, t->mask[k], NULL, NULL, &r, &node, &why) != 0)
                    node = node < 0 ? root : node;
                else
                    node = -1;
                t->ival[k][h] = r;
                t->fnode[k][h] = (int16_t)node;
                t->fwhy[k][h] = why;
                if (w) {
                    if (!f->is_nan((uint32_t)h) && !f->is_inf((uint32_t)h) && ew_exact_nodes(w, p, x, root, t->mask[k], NULL, NULL) == 0)
                        mpfi_set(t->exact[k][h], w->v[root]);
                    else
                        t->efail[k][h] = 1;
                }
            }
            if (w) {
                ew_exact_clear(w);
                free(w);
            }
        }
    }
    return 0;
}
