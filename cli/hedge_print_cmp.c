/* cli/hedge_print_cmp.c -- text and JSON output of `gpuidx hedge compare`.
 *
 * One row per grade in hedge_rank_sort() order: ranked hedges first, then
 * grades with data that cannot be a hedge (with why), then grades without
 * data.  Each row carries the 95 % intervals of h and of the
 * effectiveness and whether the grade is the rent's GPU; the analysis
 * warnings follow the table (text and JSON alike), and the last line is
 * the verdict.  With --suggest the rent's description comes first and the
 * suggested grades' definitions (ready for a grades file) after the
 * table.
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

/* "T4 spot, vm, at aws, in us-east-1, instance type g4dn.xlarge" */
static void info_words(const hedge_rent_info *in, char *out, size_t cap)
{
    snprintf(out, cap, "%s %s%s%s%s%s%s%s%s%s", in->gpu, in->term[0] ? in->term : "on-demand",
             in->scope[0] ? ", " : "", in->scope, in->provider[0] ? ", at " : "", in->provider,
             in->region[0] ? ", in " : "", in->region, in->sku[0] ? ", instance type " : "",
             in->sku);
}

static const char *def_of(const hp_extra *ex, const hedge_rank *k)
{
    if (!ex || !ex->defs || !k->suggested || k->input < ex->first_suggested) return NULL;
    return ex->defs[k->input - ex->first_suggested];
}

void hp_compare_text(FILE *f, const char *rent_path, hedge_freq freq, size_t min_changes,
                     const hedge_rank *rk, size_t n, const hp_extra *ex)
{
    char b[8][32], iv[2][40];
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
    fprintf(f, "ranked: at least %zu changes and h > 0; order: low end of the 95%% interval of the "
               "effectiveness HE\n", min_changes);
    fprintf(f, "rank  %-*s gpu    changes       h  h 95%%              HE  HE 95%%  "
               "      basis sd  regr  offset\n", gw, "grade");
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
        fprintf(f, "%4s  %-*s %-5s  %7zu  %6s  %-16s  %5s  %-12s  %8s  %4s  %6s", rank, gw,
                k->grade, gpu_word(k->gpu_match), a->n_changes, hp_num(b[0], a->chg.b, 3),
                interval(iv[0], a->h_lo, a->h_hi, 3), hp_num(b[1], a->he, 3),
                interval(iv[1], a->he_lo, a->he_hi, 2),
                hp_num(b[3], a->basis.sd, 4), a->regtest.pass ? "pass" : "fail",
                a->offset.pass ? "pass" : "fail");
        if (!k->ranked) fprintf(f, "  not ranked: %s", k->why);
        fputc('\n', f);
    }
    if (unknown_gpu)
        fprintf(f, "(gpu ?: give --gpu MODEL, and the grades file, to flag grades of another GPU)\n");
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
        if (!shead++)
            fprintf(f, "suggested grades (computed from the stored observations, nothing written; "
                       "not published, so no futures settle on them):\n");
        fprintf(f, "  %s: %s", k->grade, k->what);
        if (k->providers > 0)
            fprintf(f, "; %d provider%s", k->providers, k->providers == 1 ? "" : "s");
        const char *def = def_of(ex, k);
        fprintf(f, "\n%s%s%s", def ? "    " : "", def ? def : "", def ? "\n" : "");
    }
    hedge_verdict v;
    hedge_compare_verdict(rk, n, freq, &v);
    fprintf(f, "verdict: %s\n", v.text);
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
        json_object_set_new(j, "rent", ri);
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
        if (k->suggested) {
            const char *def = def_of(ex, k);
            json_object_set_new(g, "what", json_string(k->what));
            json_object_set_new(g, "providers",
                                k->providers > 0 ? json_integer(k->providers) : json_null());
            json_object_set_new(g, "definition", def ? json_loads(def, 0, NULL) : json_null());
        }
        if (!k->ok) {
            json_object_set_new(g, "reason", json_string(k->reason));
            json_array_append_new(arr, g);
            continue;
        }
        if (!k->ranked) json_object_set_new(g, "not_ranked", json_string(k->why));
        json_object_set_new(g, "n", json_integer((json_int_t)a->n));
        json_object_set_new(g, "n_changes", json_integer((json_int_t)a->n_changes));
        json_object_set_new(g, "h", hp_real(a->chg.b));
        json_object_set_new(g, "h_interval", pair(a->h_lo, a->h_hi));
        json_object_set_new(g, "he", hp_real(a->he));
        json_object_set_new(g, "he_interval", pair(a->he_lo, a->he_hi));
        json_object_set_new(g, "he_naive", hp_real(a->he_naive));
        json_object_set_new(g, "r2", hp_real(a->chg.r2));
        json_object_set_new(g, "nw_se_h", hp_real(a->nw_se_h));
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
    hedge_verdict v;
    hedge_compare_verdict(rk, n, freq, &v);
    json_t *vj = json_object();
    json_object_set_new(vj, "hedges", json_boolean(v.hedges));
    json_object_set_new(vj, "suggested", json_boolean(v.suggested));
    json_object_set_new(vj, "grade", v.hedges ? json_string(rk[v.best].grade) : json_null());
    json_object_set_new(vj, "text", json_string(v.text));
    json_object_set_new(j, "verdict", vj);
    return j;
}
