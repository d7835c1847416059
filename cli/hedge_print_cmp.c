/* cli/hedge_print_cmp.c -- text and JSON output of `gpuidx hedge compare`.
 *
 * One row per grade in hedge_rank_sort() order: ranked hedges first, then
 * grades with data that cannot be a hedge (with why), then grades without
 * data.  Each row carries the 95 % intervals of h and of the
 * effectiveness ("exact" for an exact fit), the out-of-sample
 * (walk-forward) effectiveness, and how much of its fix the renter's own
 * quotes supply.  Then, for the ranked grades (and the one recommended),
 * the out-of-sample evidence in words; the renter's own quotes, grade by
 * grade, with the fit of the twin (without them, or with them); the
 * analysis warnings; with --suggest the suggested grades' definitions
 * (ready for a grades file) and the days their values cover; and last the
 * verdict.
 */
#include "cli/hedge_print.h"

#include "cli/cli.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *freq_words(hedge_freq f)
{
    return f == HEDGE_DAY ? "daily" : f == HEDGE_WEEK ? "weekly" : "monthly";
}

static const char *gpu_word(int m)
{
    return m == 1 ? "same" : m == 0 ? "OTHER" : "?";
}

static const char *interval(char buf[40], double lo, double hi, int dp)
{
    char a[32], b[32];
    if (!isfinite(lo) || !isfinite(hi)) return strcpy(buf, "n/a");
    snprintf(buf, 40, "[%s, %s]", cli_num(a, lo, dp), cli_num(b, hi, dp));
    return buf;
}

/* "T4 spot, vm, at aws, in us-east-1, instance type g4dn.xlarge, zone use1-az1" */
static void info_words(const hedge_rent_info *in, char *out, size_t cap)
{
    snprintf(out, cap, "%s %s%s%s%s%s%s%s%s%s%s%s", in->gpu,
             in->term[0] ? in->term : "on-demand", in->scope[0] ? ", " : "", in->scope,
             in->provider[0] ? ", at " : "", in->provider, in->region[0] ? ", in " : "",
             in->region, in->sku[0] ? ", instance type " : "", in->sku,
             in->zone[0] ? ", zone " : "", in->zone);
}

static const char *def_of(const hp_extra *ex, const hedge_rank *k)
{
    if (!ex || !ex->defs || !k->suggested || k->input < ex->first_suggested) return NULL;
    return ex->defs[k->input - ex->first_suggested];
}

/* The own column: the share of the fix own quotes supply, "out" when the
 * grade leaves them out, "?" when not measured. */
static const char *own_col(char buf[16], const hedge_rank *k)
{
    if (!k->own_known) return strcpy(buf, "?");
    if (!k->own_in) return strcpy(buf, "out");
    snprintf(buf, 16, "%.0f%%", 100 * k->own_share);
    return buf;
}

/* "HE 0.019 at h = 0.032 (16 changes)" of the twin, or why none. */
static void twin_words(const hedge_rank *k, char *out, size_t cap)
{
    char b[3][32];
    if (!k->twin_ok)
        snprintf(out, cap, "no values in common with your rent");
    else if (!isfinite(k->t.he))
        snprintf(out, cap, "no fit (%zu changes)", k->t.n_changes);
    else
        snprintf(out, cap, "HE %s at h = %s (%zu changes; out of sample %s)",
                 hp_num(b[0], k->t.he, 3), hp_num(b[1], k->t.chg.b, 3), k->t.n_changes,
                 hp_num(b[2], k->t.oos.he, 3));
}

static void own_section(FILE *f, const hedge_rank *rk, size_t n, const hp_extra *ex)
{
    if (!ex || !ex->own) return;
    if (!ex->own[0]) {
        fprintf(f, "your own quotes: not measured (the rent names no provider: give --provider, "
                   "and --region, --instance-type, --zone as far as you know them)\n");
        return;
    }
    fprintf(f, "your own quotes: %s%s\n", ex->own,
            ex->own_out ? " -- left out of the suggested grades (--include-own keeps them)" : "");
    for (size_t i = 0; i < n; i++) {
        const hedge_rank *k = &rk[i];
        if (!k->own_known || !k->ok) continue;
        char tw[160];
        twin_words(k, tw, sizeof tw);
        if (k->own_in && k->own_share > 0)
            fprintf(f, "  %s: your quotes supply %.0f%% of its fix (half or more on %ld of %ld "
                       "days)%s; without them: %s\n",
                    k->grade, 100 * k->own_share, k->own_median_days, k->own_days,
                    k->circular ? ", so it is largely your own price" : "", tw);
        else if (!k->own_in && k->own_share > 0)
            fprintf(f, "  %s: leaves them out; with them they would supply %.0f%% of its fix "
                       "(half or more on %ld of %ld days): %s\n",
                    k->grade, 100 * k->own_share, k->own_median_days, k->own_days, tw);
    }
}

static void oos_section(FILE *f, const hedge_rank *rk, size_t n, long best)
{
    int head = 0;
    for (size_t i = 0; i < n; i++) {
        const hedge_rank *k = &rk[i];
        if (!k->ok || !(k->ranked || (long)i == best)) continue;
        if (!head++) fprintf(f, "out of sample (ranked grades):\n");
        char t[3][400];
        hedge_oos_text(&k->a, t[0], sizeof t[0]);
        hedge_boot_text(&k->a, t[1], sizeof t[1]);
        hedge_stability_text(&k->a, t[2], sizeof t[2]);
        fprintf(f, "  %s: %s\n  %*s  %s\n  %*s  %s\n", k->grade, t[0], (int)strlen(k->grade), "",
                t[1], (int)strlen(k->grade), "", t[2]);
    }
}

void hp_compare_text(FILE *f, const char *rent_path, hedge_freq freq, size_t min_changes,
                     const hedge_rank *rk, size_t n, const hp_extra *ex)
{
    char b[8][32], iv[2][40], own[16];
    if (!min_changes) min_changes = HEDGE_MIN_CHANGES;
    int gw = 22;
    for (size_t i = 0; i < n; i++)
        if ((int)strlen(rk[i].grade) > gw) gw = (int)strlen(rk[i].grade);
    fprintf(f, "grades ranked as hedges of %s (%s changes)\n", rent_path, freq_words(freq));
    if (ex && ex->info) {
        char words[400];
        info_words(ex->info, words, sizeof words);
        fprintf(f, "rent: %s; suggested grades (sug-*) are built around it\n", words);
    }
    fprintf(f, "ranked: at least %zu changes, your rent moving on %d, h > 0, HE >= 0.01, not "
               "largely your own price, oos HE >= 0.01 (out of sample, not in sample only); "
               "order: low end of the 95%% interval of the effectiveness HE\n",
            min_changes, HEDGE_MIN_MOVES);
    fprintf(f, "rank  %-*s gpu    changes       h  h 95%%              HE  HE 95%%       "
               "  oos HE  basis sd  own\n", gw, "grade");
    int unknown_gpu = 0;
    size_t r = 0;
    for (size_t i = 0; i < n; i++) {
        const hedge_rank *k = &rk[i];
        const hedge_analysis *a = &k->a;
        if (!k->ok) {
            fprintf(f, "   -  %-*s %s\n", gw, k->grade, k->reason);
            continue;
        }
        if (k->gpu_match < 0) unknown_gpu = 1;
        char rank[16] = "-";
        if (k->ranked) snprintf(rank, sizeof rank, "%zu", ++r);
        if (a->exact) strcpy(iv[1], "exact");
        else interval(iv[1], a->he_lo, a->he_hi, 2);
        fprintf(f, "%4s  %-*s %-5s  %7zu  %6s  %-16s  %5s  %-12s  %6s  %8s  %3s", rank, gw,
                k->grade, gpu_word(k->gpu_match), a->n_changes, hp_num(b[0], a->chg.b, 3),
                interval(iv[0], a->h_lo, a->h_hi, 3), hp_num(b[1], a->he, 3), iv[1],
                hp_num(b[2], a->oos.he, 3), hp_num(b[3], a->basis.sd, 4), own_col(own, k));
        if (!k->ranked) fprintf(f, "  not ranked: %s", k->why);
        fputc('\n', f);
    }
    if (unknown_gpu)
        fprintf(f, "(gpu ?: give --gpu MODEL, and the grades file, to flag grades of another GPU)\n");
    int cands = 0;
    for (size_t i = 0; i < n; i++) {
        if (rk[i].suggested || rk[i].published) continue;
        fprintf(f, "%s%s", cands++ ? ", " : "candidate grades (not in the published grade set: "
                                            "never published, so no futures settle on them): ",
                rk[i].grade);
    }
    if (cands) fputc('\n', f);
    const hedge_verdict *v = ex ? ex->verdict : NULL;
    oos_section(f, rk, n, v ? v->best : -1);
    own_section(f, rk, n, ex);
    int head = 0;
    for (size_t i = 0; i < n; i++) {
        if (rk[i].ok && rk[i].ranked && rk[i].a.chg.b > HEDGE_RATIO_CAP) {
            if (!head++) fprintf(f, "warnings:\n");
            fprintf(f, "  %s: h %s is above %.0f: the grade moves far less than your rent, so the "
                       "hedge needs %s times your exposure in futures\n",
                    rk[i].grade, hp_num(b[0], rk[i].a.chg.b, 3), HEDGE_RATIO_CAP,
                    hp_num(b[1], rk[i].a.chg.b, 1));
        }
        for (size_t w = 0; rk[i].ok && w < rk[i].a.n_warnings; w++) {
            if (!head++) fprintf(f, "warnings:\n");
            fprintf(f, "  %s: %s\n", rk[i].grade, rk[i].a.warnings[w]);
        }
    }
    int shead = 0;
    for (size_t i = 0; i < n; i++) {
        const hedge_rank *k = &rk[i];
        if (!k->suggested) continue;
        if (!shead++) {
            char from[11], to[11];
            gpi_date_format(ex ? ex->sug_from : 0, from);
            if (ex && ex->sug_none_to > 0) {
                gpi_date_format(ex->sug_none_to, to);
                fprintf(f, "suggested grades (none has a value of its own on any day from %s to "
                           "%s in the stored observations, at the present cut-off; nothing "
                           "written; not published, so no futures settle on them):\n",
                        from, to);
            } else {
                gpi_date_format(ex ? ex->sug_to : 0, to);
                fprintf(f, "suggested grades (values computed from the stored observations over "
                           "%s .. %s, the last day of data, at the present cut-off; nothing "
                           "written; not published, so no futures settle on them):\n",
                        from, to);
            }
        }
        fprintf(f, "  %s: %s", k->grade, k->what);
        if (k->providers > 0)
            fprintf(f, "; %d provider%s", k->providers, k->providers == 1 ? "" : "s");
        const char *def = def_of(ex, k);
        fprintf(f, "\n%s%s%s", def ? "    " : "", def ? def : "", def ? "\n" : "");
    }
    if (v) fprintf(f, "verdict: %s\n", v->text);
}

static json_t *pair(double lo, double hi)
{
    json_t *a = json_array();
    json_array_append_new(a, hp_real(lo));
    json_array_append_new(a, hp_real(hi));
    return a;
}

static json_t *str_or_null(const char *s)
{
    return s && *s ? json_string(s) : json_null();
}

json_t *hp_verdict_kinds(unsigned kinds)
{
    static const char *const names[] = {"flat_rent", "no_overlap", "few_moves", "flat_index",
                                        "too_few_changes", "use", "suggest", "none",
                                        "none_built", "own_price", "broke", "best_fit",
                                        "oos_fail", "candidate"};
    json_t *a = json_array();
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (kinds & (1u << i)) json_array_append_new(a, json_string(names[i]));
    return a;
}

static json_t *own_json(const hedge_rank *k)
{
    if (!k->own_known) return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "in", json_boolean(k->own_in));
    json_object_set_new(o, "share", hp_real(k->own_share));
    json_object_set_new(o, "days", json_integer(k->own_days));
    json_object_set_new(o, "median_days", json_integer(k->own_median_days));
    json_object_set_new(o, "any_days", json_integer(k->own_any_days));
    json_object_set_new(o, "circular", json_boolean(k->circular));
    json_t *t = json_null();
    if (k->twin_ok) {
        t = json_object();
        json_object_set_new(t, "n_changes", json_integer((json_int_t)k->t.n_changes));
        json_object_set_new(t, "h", hp_real(k->t.chg.b));
        json_object_set_new(t, "he", hp_real(k->t.he));
        json_object_set_new(t, "r2", hp_real(k->t.chg.r2));
        json_object_set_new(t, "oos_he", hp_real(k->t.oos.he));
    }
    json_object_set_new(o, k->own_in ? "without_own" : "with_own", t);
    return o;
}

json_t *hp_compare_json(hedge_freq freq, size_t min_changes, const hedge_rank *rk, size_t n,
                        const hp_extra *ex)
{
    json_t *j = json_object(), *arr = json_array();
    if (!min_changes) min_changes = HEDGE_MIN_CHANGES;
    json_object_set_new(j, "freq", json_string(hedge_freq_name(freq)));
    json_object_set_new(j, "min_changes", json_integer((json_int_t)min_changes));
    if (ex && ex->info) {
        const hedge_rent_info *in = ex->info;
        json_t *ri = json_object();
        json_object_set_new(ri, "gpu", str_or_null(in->gpu));
        json_object_set_new(ri, "term", str_or_null(in->term));
        json_object_set_new(ri, "scope", str_or_null(in->scope));
        json_object_set_new(ri, "provider", str_or_null(in->provider));
        json_object_set_new(ri, "region", str_or_null(in->region));
        json_object_set_new(ri, "instance_type", str_or_null(in->sku));
        json_object_set_new(ri, "zone", str_or_null(in->zone));
        json_object_set_new(j, "rent", ri);
        char from[11], to[11];
        gpi_date_format(ex->sug_from, from);
        gpi_date_format(ex->sug_to, to);
        json_t *rg = json_object();
        json_object_set_new(rg, "from", json_string(from));
        json_object_set_new(rg, "to", json_string(to));
        json_object_set_new(j, "suggested_values", rg);
    }
    if (ex && ex->published && ex->published[0])
        json_object_set_new(j, "published_grades_file", json_string(ex->published));
    if (ex && ex->own) {
        json_t *o = json_object();
        json_object_set_new(o, "measured", json_boolean(ex->own[0] != '\0'));
        json_object_set_new(o, "quotes", str_or_null(ex->own));
        json_object_set_new(o, "left_out_of_suggestions", json_boolean(ex->own_out));
        json_object_set_new(j, "own_quotes", o);
    }
    size_t r = 0;
    for (size_t i = 0; i < n; i++) {
        const hedge_rank *k = &rk[i];
        const hedge_analysis *a = &k->a;
        json_t *g = json_object();
        json_object_set_new(g, "grade", json_string(k->grade));
        json_object_set_new(g, "rank", k->ranked ? json_integer((json_int_t)++r) : json_null());
        json_object_set_new(g, "gpu", k->gpu[0] ? json_string(k->gpu) : json_null());
        json_object_set_new(g, "same_gpu", k->gpu_match < 0 ? json_null() : json_boolean(k->gpu_match));
        json_object_set_new(g, "suggested", json_boolean(k->suggested));
        json_object_set_new(g, "set", json_string(k->suggested   ? "suggested"
                                                  : k->published ? "published"
                                                                 : "candidate"));
        if (k->suggested) {
            const char *def = def_of(ex, k);
            json_object_set_new(g, "what", json_string(k->what));
            json_object_set_new(g, "providers",
                                k->providers > 0 ? json_integer(k->providers) : json_null());
            json_object_set_new(g, "definition", def ? json_loads(def, 0, NULL) : json_null());
        }
        json_object_set_new(g, "own", own_json(k));
        if (!k->ok) {
            json_object_set_new(g, "reason", json_string(k->reason));
            json_array_append_new(arr, g);
            continue;
        }
        if (!k->ranked) json_object_set_new(g, "not_ranked", json_string(k->why));
        json_object_set_new(g, "n", json_integer((json_int_t)a->n));
        json_object_set_new(g, "n_changes", json_integer((json_int_t)a->n_changes));
        json_object_set_new(g, "rent_moves", json_integer((json_int_t)a->rent_moves));
        json_object_set_new(g, "index_moves", json_integer((json_int_t)a->index_moves));
        json_object_set_new(g, "h", hp_real(a->chg.b));
        json_object_set_new(g, "h_interval", pair(a->h_lo, a->h_hi));
        json_object_set_new(g, "he", hp_real(a->he));
        json_object_set_new(g, "he_interval", pair(a->he_lo, a->he_hi));
        json_object_set_new(g, "exact_fit", json_boolean(a->exact));
        json_object_set_new(g, "he_naive", hp_real(a->he_naive));
        json_object_set_new(g, "r2", hp_real(a->chg.r2));
        json_object_set_new(g, "nw_se_h", hp_real(a->nw_se_h));
        json_object_set_new(g, "out_of_sample", hp_oos_json(a));
        json_t *bs = json_object();
        json_object_set_new(bs, "mean", hp_real(a->basis.mean));
        json_object_set_new(bs, "sd", hp_real(a->basis.sd));
        json_object_set_new(bs, "sd_change", hp_real(a->basis.sd_change));
        json_object_set_new(g, "basis", bs);
        json_object_set_new(g, "regression_test_pass", json_boolean(a->regtest.pass));
        json_object_set_new(g, "dollar_offset", hp_real(a->offset.ratio));
        json_object_set_new(g, "dollar_offset_pass", json_boolean(a->offset.pass));
        json_t *wa = json_array();
        for (size_t w = 0; w < a->n_warnings; w++) json_array_append_new(wa, json_string(a->warnings[w]));
        json_object_set_new(g, "warnings", wa);
        json_array_append_new(arr, g);
    }
    json_object_set_new(j, "grades", arr);
    const hedge_verdict *v = ex ? ex->verdict : NULL;
    if (v) {
        json_t *vj = json_object();
        json_object_set_new(vj, "hedges", json_boolean(v->hedges));
        json_object_set_new(vj, "suggested", json_boolean(v->suggested));
        json_object_set_new(vj, "grade", v->hedges ? json_string(rk[v->best].grade) : json_null());
        json_object_set_new(vj, "sentences", hp_verdict_kinds(v->kinds));
        json_object_set_new(vj, "text", json_string(v->text));
        json_object_set_new(j, "verdict", vj);
    }
    return j;
}
