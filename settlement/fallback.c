/* settlement/fallback.c -- cessation in contracts (METHODOLOGY.md,
 * "Cessation and fallback"): what a contract settles on when its grade is
 * dropped or suspended past a limit.
 *
 * NOTES ON THE DESIGN
 * (1) A contract may name, in its file, a fallback:
 *         "fallback": {"rule": "grade", "grade": "A100-SXM-80.OD",
 *                      "after_days": 3}
 *     rule "grade" (another grade's values), "last_value" (the grade's
 *     last value before it ceased) or "suspend" (the contract stops: no
 *     more prices, no final price, positions stay open for the exchange to
 *     close).  after_days (1-31, default 3) is how many consecutive days
 *     without a value are tolerated: a grade is suspended only after its
 *     carry ran out (max_carry_days), so these come on top.  A dropped
 *     grade has no rows from its drop on; the caller passes those days as
 *     suspended (cli/cmd_settle.c from the store, verify/settle.c from
 *     published days without the grade's row).
 * (2) The cessation is the first run of more than after_days consecutive
 *     days without a value from the listing on; it starts on `start`, and
 *     the fallback applies on `trigger` = start + after_days, the first
 *     day past the limit.  The days of the run before the trigger were
 *     priced, at the time, on the latest value; those rows stand.  From
 *     the trigger on, the month's values from `start` are the fallback's
 *     (another grade's values, or the last value repeated), and every
 *     later row -- daily and final -- is computed on that series with the
 *     one rule of settle.c and flagged.  A suspended contract gets one
 *     row on the trigger day, kind `insufficient`, written `suspended`.
 *     A fallback grade may itself be suspended on some or all of those
 *     days: the same rule then prices them on the latest value (the
 *     ceased grade's, when the fallback never had one), and the note
 *     counts the days the fallback grade had a value, so that the caller
 *     says so instead of "settles on its fallback grade" alone.
 * (3) Pure arithmetic over the series given: the same inputs give the
 *     same rows, so `verify --settlement` recomputes it from the published
 *     days.
 */
#include "settlement/settlement.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *settle_row_kind(const settle_price *p)
{
    if (p->fallback == 2) return "suspended";
    if (p->fallback == 1 && p->kind == SETTLE_DAILY) return "fallback-daily";
    if (p->fallback == 1 && p->kind == SETTLE_FINAL) return "fallback-final";
    return settle_kind_name(p->kind);
}

const char *settle_fallback_parse(const void *json_fallback, settle_contract *c,
                                  const char **field)
{
    const json_t *o = json_fallback;
    settle_fallback *f = &c->fallback;
    memset(f, 0, sizeof *f);
    f->after_days = 3;
    *field = "fallback";
    if (!json_is_object(o)) return "not an object {\"rule\", \"grade\", \"after_days\"}";
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)o, key, v) {
        if (strcmp(key, "rule") != 0 && strcmp(key, "grade") != 0 && strcmp(key, "after_days") != 0)
            return "unknown key (expected rule, grade, after_days)";
    }
    const json_t *rule = json_object_get(o, "rule"), *g = json_object_get(o, "grade");
    const json_t *after = json_object_get(o, "after_days");
    *field = "fallback.rule";
    const char *r = json_is_string(rule) ? json_string_value(rule) : NULL;
    if (!r) return "missing: grade, last_value or suspend";
    f->rule = strcmp(r, "grade") == 0        ? SETTLE_FB_GRADE
              : strcmp(r, "last_value") == 0 ? SETTLE_FB_LAST
              : strcmp(r, "suspend") == 0    ? SETTLE_FB_SUSPEND
                                             : SETTLE_FB_NONE;
    if (!f->rule) return "not grade, last_value or suspend";
    *field = "fallback.grade";
    if (f->rule == SETTLE_FB_GRADE) {
        if (!json_is_string(g) || !gpi_grade_id_ok(json_string_value(g)))
            return "a grade id is needed with rule grade";
        snprintf(f->grade, sizeof f->grade, "%s", json_string_value(g));
        if (strcasecmp(f->grade, c->grade) == 0) return "the contract's own grade";
    } else if (g) {
        return "only with rule grade";
    }
    *field = "fallback.after_days";
    if (after) {
        if (!json_is_integer(after) || json_integer_value(after) < 1 ||
            json_integer_value(after) > 31)
            return "must be a whole number from 1 to 31";
        f->after_days = (int)json_integer_value(after);
    }
    *field = "fallback";
    return NULL;
}

static int has_value(const gpi_index_day *x)
{
    return x->level != GPI_LEVEL_SUSPENDED && x->value_e4 >= 0;
}

gpi_status settle_run_fallback(const settle_contract *c, const gpi_index_day *days, size_t n,
                               const gpi_index_day *fb, size_t n_fb, int32_t through,
                               settle_result *out, settle_fb_note *note, gpi_diag *d)
{
    memset(note, 0, sizeof *note);
    const settle_fallback *f = &c->fallback;
    const int32_t listing = settle_listing_day(c), last = settle_last_day(c);
    const int32_t end = through < last ? through : last;
    int32_t start = 0, trigger = 0;
    int run = 0, found = 0;
    for (size_t i = 0; f->rule && i < n && !found; i++) {
        if (days[i].day < listing || days[i].day > end) continue;
        if (has_value(&days[i])) {
            run = 0;
            continue;
        }
        if (run == 0 || days[i].day != days[i - 1].day + 1) {
            start = days[i].day;
            run = 0;
        }
        if (++run > f->after_days) {
            trigger = days[i].day;
            found = 1;
        }
    }
    if (!found) return settle_run(c, days, n, through, out, d);
    note->applied = 1;
    note->start = start;
    note->trigger = trigger;
    note->end = end;
    /* the rows before the trigger, as they were */
    settle_result before;
    gpi_status rc = settle_run(c, days, n, trigger - 1, &before, d);
    if (rc != GPI_OK) return rc;
    size_t cap = before.n + (size_t)(end - trigger) + 3;
    settle_price *rows = malloc(cap * sizeof *rows);
    if (!rows) {
        settle_result_free(&before);
        return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", c->symbol);
    }
    size_t nr = 0;
    for (size_t i = 0; i < before.n; i++)
        if (before.rows[i].kind == SETTLE_DAILY) rows[nr++] = before.rows[i];
    settle_result_free(&before);
    memset(out, 0, sizeof *out);
    if (f->rule == SETTLE_FB_SUSPEND) {
        rows[nr++] = (settle_price){trigger, SETTLE_INSUFFICIENT, 0, 2};
        out->rows = rows;
        out->n = nr;
        out->complete = 1;
        out->insufficient = 1;
        return GPI_OK;
    }
    /* the series from start on (note 2) */
    gpi_index_day *s = malloc((n + n_fb + 1) * sizeof *s);
    if (!s) {
        free(rows);
        return gpi_diag_set(d, GPI_ENOMEM, "%s: out of memory", c->symbol);
    }
    size_t k = 0;
    int64_t last_e4 = -1;
    for (size_t i = 0; i < n && days[i].day < start; i++) {
        s[k++] = days[i];
        if (has_value(&days[i])) last_e4 = days[i].value_e4;
    }
    if (f->rule == SETTLE_FB_LAST) {
        if (last_e4 < 0) {
            free(s);
            free(rows);
            char dd[11];
            gpi_date_format(start, dd);
            return gpi_diag_set(d, GPI_EINPUT, "%s: fallback last_value: %s has no value before "
                                "%s to repeat", c->symbol, c->grade, dd);
        }
        for (int32_t t = start; t <= end; t++) s[k++] = (gpi_index_day){t, GPI_LEVEL_CARRIED, last_e4};
    } else {
        int32_t want = start;
        for (size_t i = 0; i < n_fb && want <= end; i++) {
            if (fb[i].day < want) continue;
            if (fb[i].day != want) break;
            s[k++] = fb[i];
            note->fb_values += has_value(&fb[i]);
            want++;
        }
        if (want <= end) {
            free(s);
            free(rows);
            char dd[11];
            gpi_date_format(want, dd);
            return gpi_diag_set(d, GPI_EINPUT, "%s: fallback grade %s has no index row for %s "
                                "(the contract's grade %s ceased; build the fallback grade)",
                                c->symbol, f->grade, dd, c->grade);
        }
    }
    settle_result after;
    rc = settle_run(c, s, k, through, &after, d);
    free(s);
    if (rc != GPI_OK) {
        free(rows);
        return rc;
    }
    for (size_t i = 0; i < after.n && nr < cap; i++) {
        if (after.rows[i].day < trigger) continue;
        rows[nr] = after.rows[i];
        rows[nr++].fallback = 1;
    }
    out->rows = rows;
    out->n = nr;
    out->complete = after.complete;
    out->insufficient = after.insufficient;
    out->values_in_month = after.values_in_month;
    settle_result_free(&after);
    return GPI_OK;
}
