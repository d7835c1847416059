/* site/internal.h -- shared by site.c (data, files) and svg.c (charts). */
#ifndef GPI_SITE_INTERNAL_H
#define GPI_SITE_INTERNAL_H

#include <stdio.h>

#include "site/site.h"
#include "index/index.h"
#include "store/store.h"

/* Writes one grade's chart: rows[0..n) are its days, ascending; the x axis
 * spans [day0, day1] so that every chart of the page lines up. */
void site_svg_chart(FILE *f, const store_index_row *rows, size_t n, int32_t day0,
                    int32_t day1);

/* Writes the cost-curve sections of x (site/cost.c). */
void site_cost_sections(FILE *f, const site_extras *x);

/* Writes s with &, <, >, " escaped. */
void site_html_esc(FILE *f, const char *s);

#endif
