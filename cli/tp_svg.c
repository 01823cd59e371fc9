/* The bundle's plots, written by hand as SVG text: Debian has no C
 * plotting library worth a dependency, and hand-written text with fixed
 * number formats is byte-for-byte reproducible, which the bundle needs
 * (two runs with the same seeds give the same plots).
 *
 * One plot per output tensor of a re-derived case: the histogram of
 * err/bound over all elements (40 bins on [0, 1] plus one bin for elements
 * outside their admitted interval), counts on a log scale, and the table
 * of the worst elements that results.json records. err/bound is the
 * checker's: |y - exact| over the distance from exact to the admitted end
 * on the side of y, so an admitted element has err/bound <= 1. */
#define _POSIX_C_SOURCE 200809L
#include "cli/tp_svg.h"

#include "harness/tp_check.h"
#include "core/tp_format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NBINS 40

static void xml_text(FILE *f, const char *s)
{
    for (; s && *s; s++)
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
}

static void index_text(char *buf, size_t len, const json_t *idx)
{
    size_t n = 0, k;
    json_t *d;
    buf[0] = 0;
    json_array_foreach(idx, k, d) n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%lld", k ? "," : "",
                                                        (long long)json_integer_value(d));
}

static void svg(FILE *f, const char *title, const int64_t *counts, int64_t n, const json_t *orec)
{
    const json_t *worst = json_object_get(orec, "worst");
    size_t nworst = json_array_size(worst);
    const int X0 = 70, Y0 = 50, W = 615, H = 200;
    int height = Y0 + H + 70 + 18 * (int)(nworst + 1);
    int64_t maxc = 1;
    for (int b = 0; b <= NBINS; b++)
        maxc = counts[b] > maxc ? counts[b] : maxc;
    double top = ceil(log10((double)maxc + 1));
    if (top < 1)
        top = 1;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"720\" height=\"%d\" viewBox=\"0 0 720 %d\" "
               "font-family=\"sans-serif\" font-size=\"11\">\n", height, height);
    fprintf(f, "<rect x=\"0\" y=\"0\" width=\"720\" height=\"%d\" fill=\"white\"/>\n", height);
    fprintf(f, "<text x=\"360\" y=\"20\" text-anchor=\"middle\" font-size=\"13\">");
    xml_text(f, title);
    fprintf(f, "</text>\n");
    fprintf(f, "<text x=\"360\" y=\"38\" text-anchor=\"middle\">%s: %lld elements, %lld outside the bound, max "
               "err/bound %.6g</text>\n",
            json_string_value(json_object_get(orec, "verdict")), (long long)n,
            (long long)json_integer_value(json_object_get(orec, "violations")),
            tp_json_to_num(json_object_get(orec, "max_err_over_bound")));
    /* axes and decade grid: counts are drawn as log10(1 + count) */
    for (int k = -1; k < (int)top; k++) {
        double c = k < 0 ? 0 : pow(10, k), y = Y0 + H - H * log10(c + 1) / top;
        fprintf(f, "<line x1=\"%d\" y1=\"%.2f\" x2=\"%d\" y2=\"%.2f\" stroke=\"#dddddd\"/>\n", X0, y, X0 + W, y);
        fprintf(f, "<text x=\"%d\" y=\"%.2f\" text-anchor=\"end\">%.0f</text>\n", X0 - 6, y + 4, c);
    }
    double bw = (double)W / (NBINS + 1);
    for (int b = 0; b <= NBINS; b++) {
        if (!counts[b])
            continue;
        double h = H * log10((double)counts[b] + 1) / top;
        fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"><title>%s%.3f, %.3f%s: "
                   "%lld</title></rect>\n",
                X0 + b * bw, Y0 + H - h, bw - 1, h, b == NBINS ? "#c0392b" : "#4682b4", b == NBINS ? "(" : "[",
                b == NBINS ? 1.0 : (double)b / NBINS, b == NBINS ? INFINITY : (double)(b + 1) / NBINS,
                b == NBINS ? ")" : b == NBINS - 1 ? "]" : ")", (long long)counts[b]);
    }
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", X0, Y0 + H, X0 + W, Y0 + H);
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", X0, Y0, X0, Y0 + H);
    for (int q = 0; q <= 4; q++)
        fprintf(f, "<text x=\"%.2f\" y=\"%d\" text-anchor=\"middle\">%.2f</text>\n", X0 + q * (NBINS / 4) * bw,
                Y0 + H + 15, q / 4.0);
    fprintf(f, "<text x=\"%.2f\" y=\"%d\" text-anchor=\"middle\" fill=\"#c0392b\">&gt;1</text>\n",
            X0 + (NBINS + 0.5) * bw, Y0 + H + 15);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">err/bound (1 = on an end of the admitted "
               "interval; &gt;1 = outside it)</text>\n", X0 + W / 2, Y0 + H + 32);
    fprintf(f, "<text x=\"14\" y=\"%d\" transform=\"rotate(-90 14 %d)\" text-anchor=\"middle\">elements "
               "(log scale)</text>\n", Y0 + H / 2, Y0 + H / 2);
    /* the worst elements, as the checker recorded them */
    int y = Y0 + H + 58;
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">worst elements: index / got / exact / admitted / "
               "err/bound</text>\n", X0, y);
    size_t i;
    json_t *w;
    json_array_foreach(worst, i, w)
    {
        char idx[96];
        index_text(idx, sizeof idx, json_object_get(w, "index"));
        const json_t *al = json_object_get(w, "allowed");
        y += 18;
        fprintf(f, "<text x=\"%d\" y=\"%d\">[%s]  %.10g  %.10g  [%.10g, %.10g]  %.6g</text>\n", X0, y, idx,
                tp_json_to_num(json_object_get(w, "got")), tp_json_to_num(json_object_get(w, "exact")), tp_json_to_num(json_array_get(al, 0)),
                tp_json_to_num(json_array_get(al, 1)), tp_json_to_num(json_object_get(w, "err_over_bound")));
    }
    fprintf(f, "</svg>\n");
}

int tp_svg_case_plots(tp_bfiles *out, const char *run, const tp_plan *plan, const json_t *rec, const tp_case *c,
                      char *err, size_t errlen)
{
    const tp_op *op = tp_op_find(plan->op);
    const tp_value *model = plan->model;
    if (!op) {
        snprintf(err, errlen, "unknown op \"%s\"", plan->op);
        return -1;
    }
    if (op->check_model(model, err, errlen) != 0 || tp_op_check_outputs(op, c, err, errlen) != 0)
        return -1;
    for (int t = 0; t < c->ntensors; t++) {
        const tp_tensor *tt = &c->tensors[t];
        if (plan->tensors[t].role != TP_ROLE_OUTPUT || !tp_format_of(tt->dtype))
            continue;
        tp_ref *ref = malloc((size_t)(tt->numel ? tt->numel : 1) * sizeof *ref);
        if (!ref || tp_op_reference(op, model, c, tt->name, ref, err, errlen) != 0) {
            free(ref);
            return -1;
        }
        int64_t counts[NBINS + 1] = {0};
        for (int64_t i = 0; i < tt->numel; i++) {
            const tp_ref *r = &ref[i];
            double y = tp_output_value(tt, i);
            int ok = !isnan(y) && r->allow_lo <= y && y <= r->allow_hi;
            double q = tp_side_ratio(y, r);
            int b = !ok || !(q <= 1) ? NBINS : q >= 1 ? NBINS - 1 : (int)(q * NBINS);
            counts[b]++;
        }
        free(ref);
        char title[400], path[600];
        snprintf(title, sizeof title, "%s / %s / %s: err/bound of every element", run, c->name, tt->name);
        snprintf(path, sizeof path, "plots/%s/%s/%s.svg", run, c->name, tt->name);
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        svg(f, title, counts, tt->numel, json_object_get(json_object_get(rec, "outputs"), tt->name));
        fclose(f);
        tp_bfiles_add(out, path, buf, len);
    }
    return 0;
}
