/* publish/review.c -- `gpuidx review`: the periodic review report a
 * benchmark committee reads (IOSCO Principle 10; METHODOLOGY.md §12.4).
 *
 * NOTES ON THE DESIGN
 * (1) Per grade of the set, over [from, to]:
 *       - data sufficiency and its trend: the days at each level, the
 *         providers behind a value, the settleable months, each for the
 *         whole range and for its two halves (the grade lab, idx_evaluate,
 *         run three times);
 *       - concentration: the top provider's share and the HHI (the lab);
 *       - the manipulation figures and their trend: the median and largest
 *         one-provider move and the median cost of a tick (the lab);
 *       - stale inputs: the stale share, the groups that never changed a
 *         price, the feeds flagged for repeating (index/stale.c);
 *       - segment bimodality: the lab's provider segments (index/segments.c):
 *         whether the grade's segments' median providers stand 2x apart;
 *       - the suspended and carried days with their reasons (the stored
 *         rows' notes, most frequent first);
 *       - restatements in the range;
 *       - a plain recommendation, keep, widen, split or retire, with the
 *         figures that decided it (note 2).
 *     Everything is read from the store at the cut-off: nothing is
 *     written to it.  The report goes to DIR/review-FROM-TO.md and .json,
 *     written whole under temporary names and renamed.
 * (2) The recommendation's rules, in this order (the first that applies):
 *       - retire: a value on fewer than half of the days;
 *       - widen: fewer than min_providers + 2 providers on the days with
 *         a value, an HHI above 0.4, or fewer settleable months than full
 *         months: a thin or concentrated grade;
 *       - split: the grade is bimodal (the lab's rule, index/segments.c):
 *         it blends two markets;
 *       - keep.
 *     A stale share of half or more adds, to whichever, "require fresh
 *     inputs (max_unchanged_days)" with the coverage that would leave.
 */
#include "publish/internal.h"
#include "index/stale.h"
#include "store/index_values.h"
#include "store/vintages.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define NOTES_MAX 8

typedef struct note_n {
    char text[160];
    long n;
} note_n;

typedef struct rows_st {
    int32_t from;           /* rows before it only feed the month's FSP */
    long carried, suspended, rows;
    note_n note[64];
    size_t n_note;
    pub_review_fsp fsp;     /* the months' manipulation figures (review_fsp.c) */
    int oom;
} rows_st;

static int on_row(const store_index_row *r, void *ud)
{
    rows_st *s = ud;
    if (pub_review_fsp_take(&s->fsp, r)) return s->oom = 1, -1;
    if (r->day < s->from) return 0;
    s->rows++;
    if (r->level != GPI_LEVEL_CARRIED && r->level != GPI_LEVEL_SUSPENDED) return 0;
    if (r->level == GPI_LEVEL_CARRIED) s->carried++;
    else s->suspended++;
    /* the reason without its day-specific counts' tail */
    char t[160];
    snprintf(t, sizeof t, "%s: %s", gpi_level_name(r->level), r->note[0] ? r->note : "(no note)");
    for (size_t i = 0; i < s->n_note; i++)
        if (strcmp(s->note[i].text, t) == 0) {
            s->note[i].n++;
            return 0;
        }
    if (s->n_note < sizeof s->note / sizeof s->note[0]) {
        snprintf(s->note[s->n_note].text, sizeof s->note[0].text, "%s", t);
        s->note[s->n_note++].n = 1;
    }
    return 0;
}

static int cmp_note(const void *a, const void *b)
{
    const note_n *x = a, *y = b;
    return (y->n > x->n) - (y->n < x->n);
}

typedef struct rs_st {
    const char *grade;
    int32_t from, to;
    long n, days;
    int32_t last_day;
} rs_st;

static int on_restatement(int32_t day, const char *grade, int vintage, int64_t old_e4,
                          int64_t new_e4, const char *reason, void *ud)
{
    (void)vintage, (void)old_e4, (void)new_e4, (void)reason;
    rs_st *s = ud;
    if (day < s->from || day > s->to || strcasecmp(grade, s->grade) != 0) return 0;
    s->n++;
    if (s->days == 0 || s->last_day != day) s->days++;
    s->last_day = day;
    return 0;
}

static json_t *num(double v)
{
    return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

static double value_share(const idx_grade_eval *e)
{
    long days = 0, v = 0;
    for (int l = 0; l < GPI_LEVEL__N; l++) days += e->n_level[l];
    v = days - e->n_level[GPI_LEVEL_SUSPENDED];
    return days ? (double)v / (double)days : NAN;
}

/* The part of one half or the whole range the report shows. */
static json_t *period(const idx_grade_eval *e)
{
    json_t *o = json_object();
    json_object_set_new(o, "value_share", num(value_share(e)));
    json_t *lv = json_object();
    for (int l = 0; l < GPI_LEVEL__N; l++)
        json_object_set_new(lv, gpi_level_name(l), json_integer(e->n_level[l]));
    json_object_set_new(o, "days", lv);
    json_object_set_new(o, "providers_on_value_days", num(e->mean_providers_live));
    json_object_set_new(o, "top_provider_share", num(e->top_share));
    json_object_set_new(o, "hhi", num(e->hhi));
    json_object_set_new(o, "loo_median_rel", num(e->loo_median_rel));
    json_object_set_new(o, "loo_max_rel", num(e->loo_max_rel));
    json_object_set_new(o, "cost_tick_median_gpu_hours", num(e->cost_median[0]));
    json_object_set_new(o, "cost_1pct_median_gpu_hours", num(e->cost_median[1]));
    json_object_set_new(o, "settleable_months", json_integer(e->settleable_months));
    json_object_set_new(o, "full_months", json_integer(e->full_months));
    json_object_set_new(o, "spread_rel", num(e->spread_rel));
    json_object_set_new(o, "price_median", num(e->price_median));
    return o;
}

/* Note 2. */
static void recommend(const idx_grade *g, const idx_grade_eval *e, const idx_stale_grade *s,
                      char *word, size_t wn, char *why, size_t yn)
{
    double vs = value_share(e);
    int mp = g->p.min_providers;
    if (isnan(vs) || vs < 0.5) {
        snprintf(word, wn, "retire");
        snprintf(why, yn, "a value on %.0f %% of the days (fewer than half)",
                 isnan(vs) ? 0.0 : 100 * vs);
    } else if (isnan(e->mean_providers_live) || e->mean_providers_live < mp + 2 ||
               (!isnan(e->hhi) && e->hhi > 0.4) || e->settleable_months < e->full_months) {
        snprintf(word, wn, "widen");
        snprintf(why, yn, "%.1f providers on the days with a value (min_providers %d), HHI %.2f, "
                 "%ld of %ld months settleable: thin or concentrated",
                 isnan(e->mean_providers_live) ? 0.0 : e->mean_providers_live, mp,
                 isnan(e->hhi) ? 0.0 : e->hhi, e->settleable_months, e->full_months);
    } else if (e->bimodal) {
        snprintf(word, wn, "split");
        snprintf(why, yn, "bimodal: on %ld of the %ld fixed days with two or more provider "
                 "segments the highest segment's median provider stood %.1fx or more the "
                 "lowest's (median ratio %.2fx): it blends two markets; the lab evaluates the "
                 "segment-only grades", e->seg_split_days, e->seg_days, IDX_BIMODAL_RATIO,
                 e->seg_ratio_median);
    } else {
        snprintf(word, wn, "keep");
        snprintf(why, yn, "a value on %.0f %% of the days, %.1f providers, HHI %.2f", 100 * vs,
                 e->mean_providers_live, isnan(e->hhi) ? 0.0 : e->hhi);
    }
    if (e->bimodal && strcmp(word, "split") != 0) {
        size_t n = strlen(why);
        snprintf(why + n, yn - n, "; it is also bimodal (median segment ratio %.2fx): the lab "
                 "evaluates its segment-only grades", e->seg_ratio_median);
    }
    if (s && !isnan(s->stale_share_mean) && s->stale_share_mean >= 0.5) {
        size_t n = strlen(why);
        snprintf(why + n, yn - n, "; and require fresh inputs (max_unchanged_days): %.0f %% of "
                 "the providers' prices stood 30 days or more on an average day, %ld of %ld "
                 "groups never changed a price, and with prices standing at most %d days %ld "
                 "days of %ld would have enough providers",
                 100 * s->stale_share_mean, s->groups_never_changed, s->groups,
                 s->max_unchanged_days, s->cover_fresh, s->cover_all);
    }
}

static const char *pct(double v, char b[32])
{
    if (isnan(v)) return "-";
    snprintf(b, 32, "%.1f %%", 100 * v);
    return b;
}

static const char *fix(double v, int dp, char b[32])
{
    if (isnan(v)) return "-";
    if (isinf(v)) return "none can";
    snprintf(b, 32, "%.*f", dp, v);
    return b;
}

static void md_grade(FILE *f, const idx_grade *g, const idx_grade_eval *all,
                     const idx_grade_eval *h1, const idx_grade_eval *h2,
                     const idx_stale_grade *s, const rows_st *rs, const rs_st *rst,
                     const char *word, const char *why, int32_t mid)
{
    char a[32], b[32], c[32];
    fprintf(f, "\n## %s\n\n**Recommendation: %s.** %c%s.\n\n", g->id, word,
            why[0] >= 'a' && why[0] <= 'z' ? why[0] - 'a' + 'A' : why[0], why[0] ? why + 1 : "");
    fputs("| | whole range | first half | second half |\n|---|---:|---:|---:|\n", f);
    fprintf(f, "| days with a value | %s | %s | %s |\n", pct(value_share(all), a),
            pct(value_share(h1), b), pct(value_share(h2), c));
    fprintf(f, "| providers on those days | %s | %s | %s |\n", fix(all->mean_providers_live, 1, a),
            fix(h1->mean_providers_live, 1, b), fix(h2->mean_providers_live, 1, c));
    fprintf(f, "| top provider's share | %s | %s | %s |\n", pct(all->top_share, a),
            pct(h1->top_share, b), pct(h2->top_share, c));
    fprintf(f, "| HHI | %s | %s | %s |\n", fix(all->hhi, 3, a), fix(h1->hhi, 3, b),
            fix(h2->hhi, 3, c));
    fprintf(f, "| one provider's median move | %s | %s | %s |\n", pct(all->loo_median_rel, a),
            pct(h1->loo_median_rel, b), pct(h2->loo_median_rel, c));
    fprintf(f, "| one provider's largest move | %s | %s | %s |\n", pct(all->loo_max_rel, a),
            pct(h1->loo_max_rel, b), pct(h2->loo_max_rel, c));
    fprintf(f, "| GPU-hours to move it a tick (median) | %s | %s | %s |\n",
            fix(all->cost_median[0], 2, a), fix(h1->cost_median[0], 2, b),
            fix(h2->cost_median[0], 2, c));
    fprintf(f, "| settleable months | %ld of %ld | %ld of %ld | %ld of %ld |\n",
            all->settleable_months, all->full_months, h1->settleable_months, h1->full_months,
            h2->settleable_months, h2->full_months);
    fprintf(f, "| spread p25-p75 / median price | %s | %s | %s |\n", pct(all->spread_rel, a),
            pct(h1->spread_rel, b), pct(h2->spread_rel, c));
    fprintf(f, "\nDays by level: trades %ld, offers %ld, carried %ld, suspended %ld.\n",
            all->n_level[GPI_LEVEL_TRADES], all->n_level[GPI_LEVEL_OFFERS],
            all->n_level[GPI_LEVEL_CARRIED], all->n_level[GPI_LEVEL_SUSPENDED]);
    pub_review_fsp_md(f, &rs->fsp, mid);
    if (s) {
        fprintf(f, "\n**Stale inputs.** Stale share (providers whose every price has stood %d days "
                   "or more) %s on an average day, %s on the last; %ld of %ld provider groups "
                   "never changed a price; with only prices standing at most %d days, %ld of %ld "
                   "days would have enough providers.\n",
                IDX_STALE_DAYS, pct(s->stale_share_mean, a), pct(s->stale_share_last, b),
                s->groups_never_changed, s->groups, s->max_unchanged_days, s->cover_fresh,
                s->cover_all);
        int any = 0;
        for (size_t i = 0; i < s->n_feed; i++) {
            const idx_stale_feed *x = &s->feed[i];
            if (!x->flagged) continue;
            char r0[11], r1[11];
            gpi_date_format(x->run_from, r0);
            gpi_date_format(x->run_to, r1);
            fprintf(f, "%s- flagged: %s / %s repeated its rows for %ld days (%s to %s); prices "
                       "changed on %ld of its %ld days\n",
                    any++ ? "" : "\n", x->source, x->group, x->longest_run, r0, r1, x->change_days,
                    x->days);
        }
    }
    fprintf(f, "\n**Segment bimodality.** %s: %ld fixed days with providers of two or more "
               "segments, on %ld of them the highest segment's median provider stood %.1fx or "
               "more the lowest's (median ratio %s).\n",
            all->bimodal ? "Bimodal" : "Not bimodal", all->seg_days, all->seg_split_days,
            IDX_BIMODAL_RATIO, fix(all->seg_ratio_median, 2, a));
    for (int i = 0; i < all->n_segments && i < IDX_SEG_MAX; i++)
        fprintf(f, "%s- %s: %ld days, %s providers on them, median provider price %s\n",
                i ? "" : "\n", all->seg[i].segment, all->seg[i].days,
                fix(all->seg[i].mean_providers, 1, b), fix(all->seg[i].price_median, 4, c));
    fprintf(f, "\n**Carried and suspended days.** %ld carried, %ld suspended of %ld built",
            rs->carried, rs->suspended, rs->rows);
    fputs(rs->n_note ? "; the reasons:\n\n" : ".\n", f);
    for (size_t i = 0; i < rs->n_note && i < NOTES_MAX; i++)
        fprintf(f, "- %ld days: %s\n", rs->note[i].n, rs->note[i].text);
    fprintf(f, "\n**Restatements.** %ld in the range, on %ld days.\n", rst->n, rst->days);
}

static json_t *feeds_json(const idx_stale_grade *s)
{
    json_t *a = json_array();
    for (size_t i = 0; s && i < s->n_feed; i++) {
        const idx_stale_feed *x = &s->feed[i];
        if (!x->flagged) continue;
        char r0[11], r1[11];
        gpi_date_format(x->run_from, r0);
        gpi_date_format(x->run_to, r1);
        json_t *o = json_object();
        json_object_set_new(o, "source", json_string(x->source));
        json_object_set_new(o, "group", json_string(x->group));
        json_object_set_new(o, "longest_run_days", json_integer(x->longest_run));
        json_object_set_new(o, "run_from", json_string(r0));
        json_object_set_new(o, "run_to", json_string(r1));
        json_object_set_new(o, "change_days", json_integer(x->change_days));
        json_object_set_new(o, "days", json_integer(x->days));
        json_array_append_new(a, o);
    }
    return a;
}

gpi_status pub_review(store *st, const idx_grades *gs, int32_t from, int32_t to, int64_t as_of,
                      int repeat_days, const char *dir, char *name, size_t name_len, gpi_diag *d)
{
    int32_t mid = from + (to - from) / 2;
    idx_evaluation *all = NULL, *h1 = NULL, *h2 = NULL;
    idx_stale_eval *se = NULL;
    gpi_status rc = idx_evaluate(st, gs, from, to, as_of, 0, &all, d);
    if (rc == GPI_OK) rc = idx_evaluate(st, gs, from, mid, as_of, 0, &h1, d);
    if (rc == GPI_OK)
        rc = idx_evaluate(st, gs, mid + 1 > to ? to : mid + 1, to, as_of, 0, &h2, d);
    if (rc == GPI_OK) rc = idx_stale_evaluate(st, gs, from, to, as_of, repeat_days, 30, &se, d);
    char a[11], b[11];
    gpi_date_format(from, a);
    gpi_date_format(to, b);
    char *md = NULL;
    size_t md_len = 0;
    FILE *f = rc == GPI_OK ? open_memstream(&md, &md_len) : NULL;
    if (rc == GPI_OK && !f) rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    json_t *root = json_object(), *arr = json_array();
    if (f) {
        fprintf(f, "# Benchmark review, %s to %s\n\nWritten by `gpuidx review` from the stored "
                   "observations and index values (METHODOLOGY.md §12.4): per grade, data "
                   "sufficiency and its trend (first and second half of the range), "
                   "concentration, the manipulation figures, stale inputs, the carried and "
                   "suspended days with their reasons, restatements, and a recommendation -- "
                   "keep, widen, split or retire -- with the figures that decided it.\n",
                a, b);
        fputs("\n| grade | recommendation |\n|---|---|\n", f);
    }
    char (*words)[16] = calloc(gs->n ? gs->n : 1, sizeof *words);
    char (*whys)[700] = calloc(gs->n ? gs->n : 1, sizeof *whys);
    if (rc == GPI_OK && (!words || !whys)) rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    for (size_t k = 0; k < gs->n && rc == GPI_OK; k++) {
        recommend(&gs->g[k], &all->g[k], &se->g[k], words[k], sizeof words[k], whys[k],
                  sizeof whys[k]);
        fprintf(f, "| %s | %s |\n", gs->g[k].id, words[k]);
    }
    for (size_t k = 0; k < gs->n && rc == GPI_OK; k++) {
        const idx_grade *g = &gs->g[k];
        rows_st rs;
        memset(&rs, 0, sizeof rs);
        rs.from = from;
        /* from the first of from's month: its FSP so far (review_fsp.c) */
        int y, m, dd;
        gpi_civil_from_days(from, &y, &m, &dd);
        rc = store_index_rows(st, g->id, gpi_days_from_civil(y, m, 1), to, on_row, &rs, d);
        if (rc == GPI_OK && rs.oom) rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
        rs_st rst = {g->id, from, to, 0, 0, 0};
        if (rc == GPI_OK) rc = store_restatements(st, on_restatement, &rst, d);
        if (rc != GPI_OK) {
            pub_review_fsp_free(&rs.fsp);
            break;
        }
        qsort(rs.note, rs.n_note, sizeof rs.note[0], cmp_note);
        md_grade(f, g, &all->g[k], &h1->g[k], &h2->g[k], &se->g[k], &rs, &rst, words[k], whys[k],
                 mid);
        json_t *o = json_object();
        json_object_set_new(o, "grade", json_string(g->id));
        json_object_set_new(o, "recommendation", json_string(words[k]));
        json_object_set_new(o, "because", json_string(whys[k]));
        json_object_set_new(o, "whole_range", period(&all->g[k]));
        json_object_set_new(o, "first_half", period(&h1->g[k]));
        json_object_set_new(o, "second_half", period(&h2->g[k]));
        const idx_stale_grade *s = &se->g[k];
        json_t *so = json_object();
        json_object_set_new(so, "stale_share_mean", num(s->stale_share_mean));
        json_object_set_new(so, "stale_share_last", num(s->stale_share_last));
        json_object_set_new(so, "groups", json_integer(s->groups));
        json_object_set_new(so, "groups_never_changed", json_integer(s->groups_never_changed));
        json_object_set_new(so, "max_unchanged_days", json_integer(s->max_unchanged_days));
        json_object_set_new(so, "coverage_days_all", json_integer(s->cover_all));
        json_object_set_new(so, "coverage_days_fresh", json_integer(s->cover_fresh));
        json_object_set_new(so, "flagged_feeds", feeds_json(s));
        json_object_set_new(o, "stale", so);
        json_t *sb = json_object(), *segs = json_array();
        const idx_grade_eval *e = &all->g[k];
        json_object_set_new(sb, "bimodal", json_boolean(e->bimodal));
        json_object_set_new(sb, "days", json_integer(e->seg_days));
        json_object_set_new(sb, "split_days", json_integer(e->seg_split_days));
        json_object_set_new(sb, "ratio_median", num(e->seg_ratio_median));
        for (int i = 0; i < e->n_segments && i < IDX_SEG_MAX; i++) {
            json_t *x = json_object();
            json_object_set_new(x, "segment", json_string(e->seg[i].segment));
            json_object_set_new(x, "days", json_integer(e->seg[i].days));
            json_object_set_new(x, "mean_providers", num(e->seg[i].mean_providers));
            json_object_set_new(x, "price_median", num(e->seg[i].price_median));
            json_array_append_new(segs, x);
        }
        json_object_set_new(sb, "segments", segs);
        json_object_set_new(o, "segment_bimodality", sb);
        json_t *cs = json_object();
        json_object_set_new(cs, "carried", json_integer(rs.carried));
        json_object_set_new(cs, "suspended", json_integer(rs.suspended));
        json_t *reasons = json_array();
        for (size_t i = 0; i < rs.n_note; i++) {
            json_t *x = json_object();
            json_object_set_new(x, "days", json_integer(rs.note[i].n));
            json_object_set_new(x, "reason", json_string(rs.note[i].text));
            json_array_append_new(reasons, x);
        }
        json_object_set_new(cs, "reasons", reasons);
        json_object_set_new(o, "carried_and_suspended", cs);
        json_t *rj = json_object();
        json_object_set_new(rj, "restatements", json_integer(rst.n));
        json_object_set_new(rj, "days", json_integer(rst.days));
        json_object_set_new(o, "restatements", rj);
        json_object_set_new(o, "fsp_manipulation", pub_review_fsp_json(&rs.fsp, mid));
        pub_review_fsp_free(&rs.fsp);
        json_array_append_new(arr, o);
    }
    json_object_set_new(root, "from", json_string(a));
    json_object_set_new(root, "to", json_string(b));
    json_object_set_new(root, "stale_days", json_integer(IDX_STALE_DAYS));
    json_object_set_new(root, "repeat_days", json_integer(repeat_days));
    json_object_set_new(root, "grades", arr);
    if (f && fclose(f) != 0 && rc == GPI_OK) rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    char *js = rc == GPI_OK ? json_dumps(root, JSON_INDENT(1)) : NULL;
    if (rc == GPI_OK && !js) rc = gpi_diag_set(d, GPI_ENOMEM, "out of memory");
    char path[4096], tmp[4200];
    snprintf(name, name_len, "review-%s-%s.md", a, b);
    for (int i = 0; i < 2 && rc == GPI_OK; i++) {
        snprintf(path, sizeof path, "%s/review-%s-%s.%s", dir, a, b, i ? "json" : "md");
        snprintf(tmp, sizeof tmp, "%s/.tmp-review-%ld.%s", dir, (long)getpid(), i ? "json" : "md");
        const char *buf = i ? js : md;
        size_t len = i ? strlen(js) : md_len;
        rc = pub_file_replace(tmp, path, buf, len, d);
    }
    free(js);
    json_decref(root);
    free(md);
    free(words);
    free(whys);
    idx_evaluation_free(all);
    idx_evaluation_free(h1);
    idx_evaluation_free(h2);
    idx_stale_free(se);
    return rc;
}
