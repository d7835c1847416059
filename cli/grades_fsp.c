/* cli/grades_fsp.c -- what `gpuidx grades evaluate` prints of the
 * manipulation figures in the unit that settles money (METHODOLOGY.md
 * §11.4): per calendar month of a methodology v3 grade, its final
 * settlement price so far and the largest move one participant can cause
 * by withdrawing, printing an extreme price, or entering as a new
 * participant (index/v3_reach.c's figures, as the build publishes them
 * in index.json's v3.manipulation).
 */
#include "cli/grades_print.h"
#include "index/v3.h"

static const char *fixed(char *b, int64_t v, int digits)
{
    return v < 0 ? "-" : gpi_fixed_format(v, digits, b);
}

void cli_eval_print_fsp_moves(FILE *f, const idx_evaluation *ev, int w)
{
    size_t n = 0;
    for (size_t i = 0; i < ev->n; i++)
        for (size_t k = 0; k < ev->g[i].n_fsp_months; k++)
            n += ev->g[i].fsp_months[k].fsp_e4 >= 0;
    if (n == 0) return;
    if (ev->n > IDX_CORR_MATRIX_MAX) { /* a sweep: the table stays bounded */
        fputs("\nwhat one participant can do to a month's final settlement price: --json\n"
              "gives each v3 grade's months\n",
              f);
        return;
    }
    fprintf(f, "\nwhat one participant can do to a month's final settlement price (v3 grades,\n"
               "METHODOLOGY.md section 11.4): the largest move of the month's mean, USD/GPU-hour,\n"
               "calendar days (business days):\n"
               "%-*s %7s %8s %4s %21s %21s %21s\n",
            w, "grade", "month", "fsp", "days", "withdrawing", "printing", "new participant");
    char b[3][32], m[11];
    for (size_t i = 0; i < ev->n; i++)
        for (size_t k = 0; k < ev->g[i].n_fsp_months; k++) {
            const idx_fsp_month *x = &ev->g[i].fsp_months[k];
            if (x->fsp_e4 < 0) continue;
            gpi_date_format(x->day, m);
            m[7] = '\0';
            fprintf(f, "%-*s %7s %8s %4ld", w, ev->g[i].id, m, fixed(b[0], x->fsp_e4, 4),
                    x->days);
            for (int a = 0; a < IDX_REACH_KINDS; a++) {
                char cell[64];
                snprintf(cell, sizeof cell, "%s (%s)", fixed(b[1], x->move_e6[a][0], 6),
                         fixed(b[2], x->move_e6[a][1], 6));
                fprintf(f, " %21s", cell);
            }
            fputc('\n', f);
        }
}

json_t *cli_eval_fsp_moves_json(const idx_grade_eval *g)
{
    json_t *arr = json_array();
    for (size_t k = 0; k < g->n_fsp_months; k++) {
        const idx_fsp_month *x = &g->fsp_months[k];
        char m[11];
        gpi_date_format(x->day, m);
        json_t *j = json_object();
        json_object_set_new(j, "through", json_string(m));
        m[7] = '\0';
        json_object_set_new(j, "month", json_string(m));
        json_object_set_new(j, "fsp", x->fsp_e4 < 0 ? json_null()
                                                    : json_real((double)x->fsp_e4 / 1e4));
        json_object_set_new(j, "days", json_integer(x->days));
        json_object_set_new(j, "business_days", json_integer(x->business_days));
        for (int c = 0; c < 2; c++) {
            json_t *o = json_object();
            for (int a = 0; a < IDX_REACH_KINDS; a++)
                json_object_set_new(o, idx_reach_kind_name(a),
                                    x->move_e6[a][c] < 0
                                        ? json_null()
                                        : json_real((double)x->move_e6[a][c] / 1e6));
            json_object_set_new(j, c ? "move_business" : "move", o);
        }
        json_array_append_new(arr, j);
    }
    return arr;
}
