/* cli/grades_print.h -- what `gpuidx grades evaluate` prints of the final
 * settlement prices month to month and of the provider segments
 * (grades_segments.c), for cmd_grades.c: the table's sections, the JSON
 * objects, the CSV columns appended to each row.
 */
#ifndef GPI_CLI_GRADES_PRINT_H
#define GPI_CLI_GRADES_PRINT_H

#include <jansson.h>
#include <stdio.h>

#include "index/index.h"

/* The table's sections (w: the width of the grade column). */
void cli_eval_print_segments(FILE *f, const idx_evaluation *ev, int w);

/* The columns appended to every CSV row: the header's tail (starting with
 * a comma) and a row's tail (starting with a comma, no newline). */
extern const char cli_eval_csv_tail_header[];
void cli_eval_csv_tail(FILE *f, const idx_evaluation *ev, const idx_grade_eval *g);

/* What one participant can do to each month's FSP of the v3 grades
 * (grades_fsp.c): the table's section, and a grade's "moves" array. */
void cli_eval_print_fsp_moves(FILE *f, const idx_evaluation *ev, int w);
json_t *cli_eval_fsp_moves_json(const idx_grade_eval *g);

/* A grade's "fsp" and "segments" objects (new references). */
json_t *cli_eval_fsp_json(const idx_grade_eval *g);
json_t *cli_eval_segments_json(const idx_evaluation *ev, const idx_grade_eval *g);

#endif
