/* site/internal.h -- shared by site.c (data, files), svg.c (charts),
 * statement.c (statement.html) and accuracy.c (its accuracy table). */
#ifndef GPI_SITE_INTERNAL_H
#define GPI_SITE_INTERNAL_H

#include <stdio.h>

#include "site/site.h"
#include "index/index.h"
#include "index/v3.h"
#include "publish/publish.h"
#include "store/admin.h"
#include "store/store.h"
#include "store/index_values.h"

/* Writes one grade's chart: rows[0..n) are its days, ascending; the x axis
 * spans [day0, day1] (site.c gives each grade its own: from its first day
 * with a value to its last day). */
/* svg.c: a "nice" step (1, 2, 2.5, 5 x 10^k) giving about five ticks over range. */
double site_nice_step(double range);
void site_svg_chart(FILE *f, const store_index_row *rows, size_t n, int32_t day0,
                    int32_t day1);

/* Writes the cost-curve sections of x (site/cost.c). */
void site_cost_sections(FILE *f, const site_extras *x);

/* What one participant can do to a month's FSP (site/fsp.c): the figures
 * of v3 rows, taken during the store's callback (-1 out of memory). */
typedef struct site_fsp_row {
    char grade[65];
    int32_t day;
    int64_t fig[IDX_REACH_KINDS][2]; /* e6, -1 none; [k][1] business days */
    long days[2];
} site_fsp_row;
typedef struct site_fsp {
    site_fsp_row *v;
    size_t n, cap;
} site_fsp;
int site_fsp_take(site_fsp *x, const store_index_row *r);
void site_fsp_free(site_fsp *x);
/* The table of grade r[0..n)'s months (nothing for other methods). */
void site_fsp_section(FILE *f, const site_fsp *x, const store_index_row *r, size_t n);

/* Writes s with &, <, >, " escaped. */
void site_html_esc(FILE *f, const char *s);

/* statement.html (site/statement.c): the benchmark statement of the grades
 * of rows[0..n) (sorted by grade then day) and its back-test, with x's
 * accuracy figures when given; *html malloc'd (free()).  Reads the store
 * (definitions, vintages, restatements) and the accuracy file; writes
 * nothing. */
typedef struct site_curves site_curves;
gpi_status site_statement_html(store *st, const store_index_row *rows, size_t n,
                                const site_extras *x, const site_curves *curves, char **html,
                                size_t *len, gpi_diag *d);

/* The term curve (site/curve.c): each grade's curve on its last day and
 * one and three months before, as published (curve.csv; rows sorted
 * by grade then day); its chart under the grade's series; the statement's
 * section (method, the day's forwards, the back-test CSV when given). */
gpi_status site_curves_load(store *st, const store_index_row *rows, size_t n, site_curves **out,
                            gpi_diag *d);
void site_curves_free(site_curves *c);
void site_curve_chart(FILE *f, const site_curves *c, const char *grade);
gpi_status site_curve_statement(FILE *f, const site_curves *c, const char *backtest_csv,
                                gpi_diag *d);

/* The figures of bench/accuracy's accuracy.csv (site/accuracy.c). */
typedef struct site_accuracy site_accuracy;
gpi_status site_accuracy_load(const char *path, site_accuracy **out, gpi_diag *d);
void site_accuracy_section(FILE *f, const site_accuracy *a);
void site_accuracy_free(site_accuracy *a);

/* The administrator's file (site/iosco.c): data/administration.json,
 * validated ("administration.json: field: reason (got ...)"). */
typedef struct site_admin site_admin;
gpi_status site_admin_load(const char *path, site_admin **out, gpi_diag *d);
void site_admin_free(site_admin *a);
/* What the table says of the grades (from statement.c's back-test). */
typedef struct site_iosco_grades {
    size_t n_grades;
    long days, trades_days, offers_days;
    const char *review_link;    /* the latest review report beside the page, or NULL */
} site_iosco_grades;
/* The IOSCO table: a (NULL: no file), the store's facts, the grades. */
void site_iosco_section(FILE *f, const site_admin *a, const store_admin_facts *fx,
                        const site_iosco_grades *g);
/* The feeds the latest review report flags (its JSON; NULL: none beside
 * the page, said so), linking its Markdown md_name. */
void site_review_flags(FILE *f, const char *json_path, const char *md_name);

#endif
