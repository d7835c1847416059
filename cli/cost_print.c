/* cli/cost_print.c -- text, CSV and JSON of `gpuidx cost`.
 *
 * Every figure is printed from the fixed-point integers cost/ computed:
 * money with 6 decimals (USD per million acceptable tokens, USD per
 * GPU-hour), tokens/s with 3, acceptance with 6, shares and distances in
 * percent with 2 ("+50.00%").  JSON numbers are written as the same exact
 * decimals (never through a double); a value that does not apply is null
 * in JSON, empty in CSV and "-" in text.  API prices are only ever a
 * column beside the cost (margin).
 */
#include "cli/cost_print.h"

#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

/* ---- small formatters ---- */

static const char *fx(char b[32], int64_t v, int dp) { return gpi_fixed_format(v, dp, b); }

static const char *sfx(char b[32], int64_t v, int dp)
{
    char t[32];
    gpi_fixed_format(v, dp, t);
    snprintf(b, 32, "%s%s", v >= 0 ? "+" : "", t);
    return b;
}

/* A relative distance in 0.01 % units as "+12.34%", or "n/a". */
static const char *pct(char b[32], int64_t bp)
{
    if (bp == COST_NA) return strcpy(b, "n/a");
    char t[32];
    gpi_fixed_format(bp, 2, t);
    snprintf(b, 32, "%s%s%%", bp >= 0 ? "+" : "", t);
    return b;
}

const char *cp_axis_name(int axis)
{
    return axis == COST_AXIS_GPUS ? "GPUs" : "acceptable output tokens/s";
}

const char *cp_cap(char buf[32], int64_t v, int axis)
{
    if (axis == COST_AXIS_GPUS) {
        snprintf(buf, 32, "%lld", (long long)v);
        return buf;
    }
    return gpi_fixed_format(v, 3, buf);
}

static const char *src_name(const cost_point *p)
{
    if (p->dep->rent_micro >= 0) return "own rent";
    return p->level >= 0 ? gpi_level_name(p->level) : "-";
}

static const char *dash(const char *s) { return s && *s ? s : "-"; }

static int label_width(const cost_deployments *ds)
{
    int w = 10;
    char l[2 * COST_NAME_MAX + 2];
    for (size_t i = 0; i < ds->n; i++) {
        int k = (int)strlen(cost_label(&ds->v[i], l));
        if (k > w) w = k;
    }
    return w > 40 ? 40 : w;
}

/* ---- JSON helpers: exact decimals, escaped strings ---- */

static void jstr(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

static void jkey(FILE *f, const char *k)
{
    fprintf(f, ",\"%s\":", k);
}

static void jfix(FILE *f, const char *k, int64_t v, int dp, int present)
{
    char b[32];
    jkey(f, k);
    fputs(present ? gpi_fixed_format(v, dp, b) : "null", f);
}

static void jtext(FILE *f, const char *k, const char *s)
{
    jkey(f, k);
    jstr(f, s);
}

/* The fields of a point, after an opening "{" (or a first field and a comma). */
static void j_point_fields(FILE *f, const cost_point *p)
{
    const cost_deployment *r = p->dep;
    char l[2 * COST_NAME_MAX + 2], date[11];
    gpi_date_format(p->day, date);
    fputs("\"date\":", f);
    jstr(f, date);
    jtext(f, "label", cost_label(r, l));
    jtext(f, "operator", r->op);
    jtext(f, "deployment", r->name[0] ? r->name : NULL);
    jtext(f, "workload", r->workload);
    jtext(f, "latency_target", r->latency);
    jtext(f, "gpu", r->gpu);
    jtext(f, "grade", r->grade[0] ? r->grade : NULL);
    jtext(f, "price_source", r->rent_micro >= 0 ? "own rent" : "index");
    jtext(f, "level", p->level >= 0 ? gpi_level_name(p->level) : NULL);
    jtext(f, "status", cost_status_name(p->status));
    int ok = p->status == COST_OK;
    jfix(f, "price_usd_per_gpu_hour", p->price_micro, 6, ok);
    jfix(f, "tokens_per_s", r->tps_milli, 3, 1);
    jfix(f, "acceptance", r->accept_ppm, 6, 1);
    fprintf(f, ",\"gpus\":%lld", (long long)r->gpus);
    jfix(f, "usd_per_m_acceptable", p->cost_micro, COST_DP, ok);
    jfix(f, "total_usd_per_m_acceptable", p->total_micro, COST_DP, ok && p->has_total);
    jfix(f, "rent_share_pct", p->rent_share_bp, 2, ok && p->has_total);
    jfix(f, "api_usd_per_m", r->api_micro, 6, r->api_micro >= 0);
    jfix(f, "margin_usd_per_m", p->margin_micro, COST_DP, ok && p->has_api);
    jfix(f, "margin_pct", p->margin_bp, 2, ok && p->has_api && r->api_micro > 0);
    fprintf(f, ",\"line\":%ld", r->line);
}

static void jpct(FILE *f, const char *k, int64_t bp)
{
    jfix(f, k, bp, 2, bp != COST_NA);
}

/* ---- CSV ---- */

static const char csv_point_cols[] =
    "operator,deployment,workload,latency_target,gpu,grade,price_source,level,"
    "price_usd_per_gpu_hour,tokens_per_s,acceptance,gpus,usd_per_m_acceptable,"
    "total_usd_per_m_acceptable,rent_share_pct,api_usd_per_m,margin_usd_per_m,margin_pct,"
    "status,line";

static void csv_opt(FILE *f, int64_t v, int dp, int present)
{
    char b[32];
    fputc(',', f);
    if (present) fputs(gpi_fixed_format(v, dp, b), f);
}

static void csv_point(FILE *f, const cost_point *p)
{
    const cost_deployment *r = p->dep;
    int ok = p->status == COST_OK;
    char b[32];
    gpi_csv_text(f, r->op);
    fputc(',', f);
    gpi_csv_text(f, r->name);
    fputc(',', f);
    gpi_csv_text(f, r->workload);
    fputc(',', f);
    gpi_csv_text(f, r->latency);
    fputc(',', f);
    gpi_csv_text(f, r->gpu);
    fprintf(f, ",%s,%s,%s", r->grade, r->rent_micro >= 0 ? "own rent" : "index",
            p->level >= 0 ? gpi_level_name(p->level) : "");
    csv_opt(f, p->price_micro, 6, ok);
    fprintf(f, ",%s", fx(b, r->tps_milli, 3));
    fprintf(f, ",%s,%lld", fx(b, r->accept_ppm, 6), (long long)r->gpus);
    csv_opt(f, p->cost_micro, COST_DP, ok);
    csv_opt(f, p->total_micro, COST_DP, ok && p->has_total);
    csv_opt(f, p->rent_share_bp, 2, ok && p->has_total);
    csv_opt(f, r->api_micro, 6, r->api_micro >= 0);
    csv_opt(f, p->margin_micro, COST_DP, ok && p->has_api);
    csv_opt(f, p->margin_bp, 2, ok && p->has_api && r->api_micro > 0);
    fprintf(f, ",%s,%ld", cost_status_name(p->status), r->line);
}

/* ---- text: the optional columns (other costs, API price) ---- */

static void text_extra_head(FILE *f, const cost_deployments *ds)
{
    if (ds->has_other) fprintf(f, "  %11s  %7s", "total USD/M", "rent");
    if (ds->has_api) fprintf(f, "  %11s  %11s  %8s", "API USD/M", "margin", "margin");
}

static void text_extra(FILE *f, const cost_deployments *ds, const cost_point *p)
{
    char a[32], b[32], c[32];
    int ok = p->status == COST_OK;
    if (ds->has_other) {
        if (ok && p->has_total)
            fprintf(f, "  %11s  %6s%%", fx(a, p->total_micro, COST_DP), fx(b, p->rent_share_bp, 2));
        else
            fprintf(f, "  %11s  %7s", "-", "-");
    }
    if (ds->has_api) {
        if (ok && p->has_api)
            fprintf(f, "  %11s  %11s  %8s", fx(a, p->dep->api_micro, 6),
                    sfx(b, p->margin_micro, COST_DP),
                    p->dep->api_micro > 0 ? pct(c, p->margin_bp) : "n/a");
        else if (p->dep->api_micro >= 0)
            fprintf(f, "  %11s  %11s  %8s", fx(a, p->dep->api_micro, 6), "-", "-");
        else
            fprintf(f, "  %11s  %11s  %8s", "-", "-", "-");
    }
}

/* ---- curve ---- */

static void curve_title(FILE *f, const cost_curve *c)
{
    char date[11];
    gpi_date_format(c->day, date);
    fprintf(f, "cost curve on %s: workload %s, latency target %s", date,
            c->sel.workload && *c->sel.workload ? c->sel.workload : "(none)", c->sel.latency);
    if (c->sel.grade) fprintf(f, ", grade %s", c->sel.grade);
    fputc('\n', f);
}

void cp_curve_text(FILE *f, const cost_curve *c, const cost_deployments *ds, const char *op,
                   const char *price_note)
{
    char a[32], b[32], e[32], g[32], h[32], k[32], m1[32], m2[32], l[2 * COST_NAME_MAX + 2];
    int w = label_width(ds);
    curve_title(f, c);
    fprintf(f, "USD per million acceptable output tokens = price per GPU-hour / (tokens/s x 3600 x "
               "acceptance) x 1e6\n");
    fprintf(f, "GPU-hour prices: %s; capacity in %s\n\n", price_note, cp_axis_name(c->sel.axis));
    fprintf(f, "rank  %-*s  %-14s  %-18s  %11s  %-8s  %10s  %8s  %6s  %13s  %13s  %11s  %11s  %10s",
            w, "deployment", "gpu", "grade", "USD/GPU-h", "price", "tok/s/GPU", "accept", "GPUs",
            "capacity", "cumulative", "USD/M acc", "vs cheapest", "vs median");
    text_extra_head(f, ds);
    fputc('\n', f);
    for (size_t i = 0; i < c->n; i++) {
        const cost_entry *en = &c->v[i];
        const cost_deployment *r = en->pt.dep;
        fprintf(f, "%4zu  %-*s  %-14s  %-18s  %11s  %-8s  %10s  %8s  %6lld  %13s  %13s  %11s  %11s  %10s",
                en->rank, w, cost_label(r, l), r->gpu, dash(r->grade), fx(a, en->pt.price_micro, 6),
                src_name(&en->pt), fx(b, r->tps_milli, 3), fx(e, r->accept_ppm, 6),
                (long long)r->gpus, cp_cap(g, en->cap, c->sel.axis),
                cp_cap(h, en->cum_to, c->sel.axis), fx(k, en->pt.cost_micro, COST_DP),
                pct(m1, en->to_cheapest_bp), pct(m2, en->to_median_bp));
        text_extra(f, ds, &en->pt);
        fputc('\n', f);
    }
    if (c->n == 0) fprintf(f, "   -  (no deployment with a cost on this day)\n");
    else
        fprintf(f, "\n%zu deployments; cheapest %s, median %s (capacity-weighted: %s), total capacity %s\n",
                c->n, fx(a, c->cheapest_micro, COST_DP), fx(b, c->median_micro, COST_DP),
                cost_label(c->v[c->median_at].pt.dep, l), cp_cap(e, c->total_cap, c->sel.axis));
    if (c->n_off) {
        fprintf(f, "not on the curve (no index value on the day):\n");
        for (size_t i = 0; i < c->n_off; i++)
            fprintf(f, "   -  %-*s  %-14s  %-18s  %s\n", w, cost_label(c->off[i].dep, l),
                    c->off[i].dep->gpu, c->off[i].dep->grade, cost_status_name(c->off[i].status));
    }
    if (!op) return;
    int found = 0;
    for (size_t i = 0; i < c->n; i++) {
        const cost_entry *en = &c->v[i];
        if (strcmp(en->pt.dep->op, op) != 0) continue;
        found = 1;
        fprintf(f, "\n%s: %s USD per million acceptable tokens, rank %zu of %zu; %s (%s) vs the "
                   "cheapest, %s (%s) vs the median",
                cost_label(en->pt.dep, l), fx(a, en->pt.cost_micro, COST_DP), en->rank, c->n,
                pct(b, en->to_cheapest_bp), sfx(e, en->to_cheapest_micro, COST_DP),
                pct(g, en->to_median_bp), sfx(h, en->to_median_micro, COST_DP));
        if (en->pt.has_total)
            fprintf(f, "; with other costs %s (rent %s%%)", fx(a, en->pt.total_micro, COST_DP),
                    fx(b, en->pt.rent_share_bp, 2));
        fputc('\n', f);
    }
    for (size_t i = 0; i < c->n_off; i++)
        if (strcmp(c->off[i].dep->op, op) == 0) {
            found = 1;
            fprintf(f, "\n%s: no cost on this day (%s %s)\n", cost_label(c->off[i].dep, l),
                    c->off[i].dep->grade, cost_status_name(c->off[i].status));
        }
    if (!found) fprintf(f, "\n%s: no deployment on this curve\n", op);
}

static const char csv_curve_tail[] =
    ",capacity,cum_capacity_from,cum_capacity_to,to_cheapest_usd,to_cheapest_pct,"
    "to_median_usd,to_median_pct\n";

void cp_curve_csv(FILE *f, const cost_curve *c, const cost_deployments *ds)
{
    (void)ds;
    char date[11], a[32];
    gpi_date_format(c->day, date);
    fprintf(f, "date,rank,%s%s", csv_point_cols, csv_curve_tail);
    for (size_t i = 0; i < c->n; i++) {
        const cost_entry *en = &c->v[i];
        fprintf(f, "%s,%zu,", date, en->rank);
        csv_point(f, &en->pt);
        fprintf(f, ",%s", cp_cap(a, en->cap, c->sel.axis));
        fprintf(f, ",%s", cp_cap(a, en->cum_from, c->sel.axis));
        fprintf(f, ",%s", cp_cap(a, en->cum_to, c->sel.axis));
        csv_opt(f, en->to_cheapest_micro, COST_DP, 1);
        csv_opt(f, en->to_cheapest_bp, 2, en->to_cheapest_bp != COST_NA);
        csv_opt(f, en->to_median_micro, COST_DP, 1);
        csv_opt(f, en->to_median_bp, 2, en->to_median_bp != COST_NA);
        fputc('\n', f);
    }
    for (size_t i = 0; i < c->n_off; i++) {
        fprintf(f, "%s,,", date);
        csv_point(f, &c->off[i]);
        fprintf(f, ",%s,,,,,,\n", cp_cap(a, cost_capacity(c->off[i].dep, c->sel.axis), c->sel.axis));
    }
}

static void j_curve(FILE *f, const cost_curve *c, const char *price_note)
{
    char date[11], a[32];
    gpi_date_format(c->day, date);
    fputs("{\"date\":", f);
    jstr(f, date);
    jtext(f, "workload", c->sel.workload);
    jtext(f, "latency_target", c->sel.latency);
    jtext(f, "grade", c->sel.grade);
    jtext(f, "capacity_axis", c->sel.axis == COST_AXIS_GPUS ? "gpus" : "tokens");
    if (price_note) jtext(f, "prices", price_note);
    jfix(f, "cheapest_usd_per_m", c->cheapest_micro, COST_DP, c->n > 0);
    jfix(f, "median_usd_per_m", c->median_micro, COST_DP, c->n > 0);
    jkey(f, "total_capacity");
    fputs(cp_cap(a, c->total_cap, c->sel.axis), f);
    fputs(",\n \"deployments\":[", f);
    for (size_t i = 0; i < c->n; i++) {
        const cost_entry *en = &c->v[i];
        fprintf(f, "%s\n  {\"rank\":%zu,", i ? "," : "", en->rank);
        j_point_fields(f, &en->pt);
        jkey(f, "capacity");
        fputs(cp_cap(a, en->cap, c->sel.axis), f);
        jkey(f, "cum_capacity_from");
        fputs(cp_cap(a, en->cum_from, c->sel.axis), f);
        jkey(f, "cum_capacity_to");
        fputs(cp_cap(a, en->cum_to, c->sel.axis), f);
        jfix(f, "to_cheapest_usd", en->to_cheapest_micro, COST_DP, 1);
        jpct(f, "to_cheapest_pct", en->to_cheapest_bp);
        jfix(f, "to_median_usd", en->to_median_micro, COST_DP, 1);
        jpct(f, "to_median_pct", en->to_median_bp);
        fputc('}', f);
    }
    fputs("],\n \"off_curve\":[", f);
    for (size_t i = 0; i < c->n_off; i++) {
        fprintf(f, "%s\n  {\"rank\":null,", i ? "," : "");
        j_point_fields(f, &c->off[i]);
        fputc('}', f);
    }
    fputs("]}", f);
}

void cp_curve_json(FILE *f, const cost_curve *c, const cost_deployments *ds, const char *price_note)
{
    (void)ds;
    j_curve(f, c, price_note);
    fputc('\n', f);
}

/* ---- days ---- */

void cp_days_text(FILE *f, const cost_point *p, size_t n, const cost_deployments *ds,
                  const char *price_note)
{
    char a[32], b[32], e[32], k[32], date[11], l[2 * COST_NAME_MAX + 2];
    int w = label_width(ds);
    fprintf(f, "cost per acceptable output token, per deployment and day (USD per million "
               "acceptable output tokens)\nGPU-hour prices: %s\n\n", price_note);
    fprintf(f, "%-10s  %-*s  %-16s  %-14s  %-18s  %11s  %-8s  %10s  %8s  %6s  %11s", "date", w,
            "deployment", "workload", "gpu", "grade", "USD/GPU-h", "price", "tok/s/GPU", "accept",
            "GPUs", "USD/M acc");
    text_extra_head(f, ds);
    fputc('\n', f);
    for (size_t i = 0; i < n; i++) {
        const cost_point *q = &p[i];
        const cost_deployment *r = q->dep;
        int ok = q->status == COST_OK;
        gpi_date_format(q->day, date);
        fprintf(f, "%-10s  %-*s  %-16s  %-14s  %-18s  %11s  %-8s  %10s  %8s  %6lld  %11s", date, w,
                cost_label(r, l), dash(r->workload), r->gpu, dash(r->grade),
                ok ? fx(a, q->price_micro, 6) : "-",
                ok ? src_name(q) : cost_status_name(q->status), fx(b, r->tps_milli, 3),
                fx(e, r->accept_ppm, 6), (long long)r->gpus,
                ok ? fx(k, q->cost_micro, COST_DP) : "-");
        text_extra(f, ds, q);
        fputc('\n', f);
    }
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += p[i].status != COST_OK;
    fprintf(f, "\n%zu deployment-days, %zu without an index value (suspended or not built)\n", n,
            bad);
}

void cp_days_csv(FILE *f, const cost_point *p, size_t n, const cost_deployments *ds)
{
    (void)ds;
    char date[11];
    fprintf(f, "date,%s\n", csv_point_cols);
    for (size_t i = 0; i < n; i++) {
        gpi_date_format(p[i].day, date);
        fprintf(f, "%s,", date);
        csv_point(f, &p[i]);
        fputc('\n', f);
    }
}

void cp_days_json(FILE *f, const cost_point *p, size_t n, const cost_deployments *ds,
                  const char *price_note)
{
    (void)ds;
    fputs("{\"prices\":", f);
    jstr(f, price_note);
    fputs(",\n \"days\":[", f);
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%s\n  {", i ? "," : "");
        j_point_fields(f, &p[i]);
        fputc('}', f);
    }
    fputs("]}\n", f);
}

/* ---- moves ---- */

/* 1 when label ("op" or "op/deployment") belongs to operator op (NULL: all). */
static int op_match(const char *label, const char *op)
{
    if (!op) return 1;
    size_t n = strlen(op);
    return strncmp(label, op, n) == 0 && (label[n] == '\0' || label[n] == '/');
}

void cp_moves_text(FILE *f, const cost_moves *m, int every, const char *op, const char *price_note)
{
    if (m->n_curves == 0) return;
    const cost_curve *c0 = &m->curves[0], *c1 = &m->curves[m->n_curves - 1];
    char a[32], b[32], e[32], g[32], h[32], k[32], m1[32], m2[32], d0[11], d1[11];
    gpi_date_format(c0->day, d0);
    gpi_date_format(c1->day, d1);
    fprintf(f, "positions on the cost curve %s .. %s (every %d day%s, %zu curves): workload %s, "
               "latency target %s",
            d0, d1, every, every == 1 ? "" : "s", m->n_curves,
            c0->sel.workload && *c0->sel.workload ? c0->sel.workload : "(none)", c0->sel.latency);
    if (c0->sel.grade) fprintf(f, ", grade %s", c0->sel.grade);
    fprintf(f, "\nGPU-hour prices: %s; costs in USD per million acceptable output tokens;\n"
               "change = index effect (GPU-hour price) + throughput effect (tokens/s x acceptance)\n\n",
            price_note);
    int w = 10;
    for (size_t i = 0; i < m->n; i++)
        if ((int)strlen(m->m[i].label) > w) w = (int)strlen(m->m[i].label);
    if (w > 40) w = 40;
    fprintf(f, "%-*s  %-10s  %7s  %11s  %-10s  %7s  %11s  %11s  %11s  %11s  %10s  %-9s  %-9s  %s\n",
            w, "deployment", "first", "rank", "USD/M acc", "last", "rank", "USD/M acc", "change",
            "index eff.", "thruput eff.", "tok/s x acc", "vs median", "vs median", "note");
    for (size_t i = 0; i < m->n; i++) {
        const cost_move *v = &m->m[i];
        if (!op_match(v->label, op)) continue;
        if (!v->first) {
            fprintf(f, "%-*s  (never on the curve on a sampled day: no index value)\n", w, v->label);
            continue;
        }
        char r0[24], r1[24], note[96] = "";
        snprintf(r0, sizeof r0, "%zu/%zu", v->first->rank, v->first_of);
        snprintf(r1, sizeof r1, "%zu/%zu", v->last->rank, v->last_of);
        gpi_date_format(v->first_day, d0);
        gpi_date_format(v->last_day, d1);
        if (v->improved && v->fell_back) snprintf(note, sizeof note, "improved, yet fell back");
        else if (v->improved) snprintf(note, sizeof note, "improved");
        else if (v->fell_back) snprintf(note, sizeof note, "fell back");
        if (v->first_day == v->last_day) snprintf(note, sizeof note, "one sampled day");
        fprintf(f, "%-*s  %-10s  %7s  %11s  %-10s  %7s  %11s  %11s  %11s  %11s  %10s  %-9s  %-9s  %s\n",
                w, v->label, d0, r0, fx(a, v->first->pt.cost_micro, COST_DP), d1, r1,
                fx(b, v->last->pt.cost_micro, COST_DP), sfx(e, v->change_micro, COST_DP),
                sfx(g, v->price_effect_micro, COST_DP), sfx(h, v->eff_effect_micro, COST_DP),
                pct(k, v->eff_change_bp), pct(m1, v->first->to_median_bp),
                pct(m2, v->last->to_median_bp), note);
    }
    fputc('\n', f);
    for (size_t i = 0; i < m->n; i++) {
        const cost_move *v = &m->m[i];
        if (!v->first || !op_match(v->label, op)) continue;
        gpi_date_format(v->best_day, d0);
        gpi_date_format(v->worst_day, d1);
        fprintf(f, "%-*s  on %zu of %zu sampled curves; best rank %zu (%s), worst %zu (%s)\n", w,
                v->label, v->n_on, m->n_curves, v->best_rank, d0, v->worst_rank, d1);
    }
}

void cp_moves_csv(FILE *f, const cost_moves *m)
{
    char date[11], a[32], l[2 * COST_NAME_MAX + 2];
    fputs("date,rank,of,label,gpu,grade,price_usd_per_gpu_hour,tokens_per_s,acceptance,"
          "usd_per_m_acceptable,to_cheapest_pct,to_median_pct,median_usd_per_m,status\n",
          f);
    for (size_t k = 0; k < m->n_curves; k++) {
        const cost_curve *c = &m->curves[k];
        gpi_date_format(c->day, date);
        for (size_t i = 0; i < c->n; i++) {
            const cost_entry *en = &c->v[i];
            fprintf(f, "%s,%zu,%zu,", date, en->rank, c->n);
            gpi_csv_text(f, cost_label(en->pt.dep, l));
            fputc(',', f);
            gpi_csv_text(f, en->pt.dep->gpu);
            fprintf(f, ",%s", en->pt.dep->grade);
            csv_opt(f, en->pt.price_micro, 6, 1);
            fprintf(f, ",%s", fx(a, en->pt.dep->tps_milli, 3));
            fprintf(f, ",%s", fx(a, en->pt.dep->accept_ppm, 6));
            csv_opt(f, en->pt.cost_micro, COST_DP, 1);
            csv_opt(f, en->to_cheapest_bp, 2, en->to_cheapest_bp != COST_NA);
            csv_opt(f, en->to_median_bp, 2, en->to_median_bp != COST_NA);
            csv_opt(f, c->median_micro, COST_DP, 1);
            fputs(",ok\n", f);
        }
        for (size_t i = 0; i < c->n_off; i++) {
            const cost_point *p = &c->off[i];
            fprintf(f, "%s,,%zu,", date, c->n);
            gpi_csv_text(f, cost_label(p->dep, l));
            fputc(',', f);
            gpi_csv_text(f, p->dep->gpu);
            fprintf(f, ",%s,,%s", p->dep->grade, fx(a, p->dep->tps_milli, 3));
            /* usd_per_m_acceptable, to_cheapest_pct and to_median_pct empty */
            fprintf(f, ",%s,,,", fx(a, p->dep->accept_ppm, 6));
            csv_opt(f, c->median_micro, COST_DP, c->n > 0);
            fprintf(f, ",%s\n", cost_status_name(p->status));
        }
    }
}

void cp_moves_json(FILE *f, const cost_moves *m, int every, const char *price_note)
{
    char d0[11];
    fprintf(f, "{\"every_days\":%d", every);
    jtext(f, "prices", price_note);
    fputs(",\n \"producers\":[", f);
    for (size_t i = 0; i < m->n; i++) {
        const cost_move *v = &m->m[i];
        fprintf(f, "%s\n  {\"label\":", i ? "," : "");
        jstr(f, v->label);
        fprintf(f, ",\"sampled_days_on_curve\":%zu", v->n_on);
        if (!v->first) {
            fputs(",\"first\":null,\"last\":null}", f);
            continue;
        }
        const cost_entry *ends[2] = {v->first, v->last};
        const int32_t days[2] = {v->first_day, v->last_day};
        const size_t of[2] = {v->first_of, v->last_of};
        for (int k = 0; k < 2; k++) {
            gpi_date_format(days[k], d0);
            fprintf(f, ",\"%s\":{\"date\":\"%s\",\"rank\":%zu,\"of\":%zu", k ? "last" : "first", d0,
                    ends[k]->rank, of[k]);
            jfix(f, "usd_per_m_acceptable", ends[k]->pt.cost_micro, COST_DP, 1);
            jfix(f, "price_usd_per_gpu_hour", ends[k]->pt.price_micro, 6, 1);
            jfix(f, "tokens_per_s", ends[k]->pt.dep->tps_milli, 3, 1);
            jfix(f, "acceptance", ends[k]->pt.dep->accept_ppm, 6, 1);
            jpct(f, "to_cheapest_pct", ends[k]->to_cheapest_bp);
            jpct(f, "to_median_pct", ends[k]->to_median_bp);
            fputc('}', f);
        }
        jfix(f, "change_usd_per_m", v->change_micro, COST_DP, 1);
        jfix(f, "index_effect_usd_per_m", v->price_effect_micro, COST_DP, 1);
        jfix(f, "throughput_effect_usd_per_m", v->eff_effect_micro, COST_DP, 1);
        jpct(f, "throughput_x_acceptance_change_pct", v->eff_change_bp);
        fprintf(f, ",\"improved\":%s,\"fell_back\":%s", v->improved ? "true" : "false",
                v->fell_back ? "true" : "false");
        gpi_date_format(v->best_day, d0);
        fprintf(f, ",\"best_rank\":%zu,\"best_day\":\"%s\"", v->best_rank, d0);
        gpi_date_format(v->worst_day, d0);
        fprintf(f, ",\"worst_rank\":%zu,\"worst_day\":\"%s\"}", v->worst_rank, d0);
    }
    fputs("],\n \"curves\":[", f);
    for (size_t k = 0; k < m->n_curves; k++) {
        fputs(k ? ",\n" : "\n", f);
        j_curve(f, &m->curves[k], NULL);
    }
    fputs("]}\n", f);
}
