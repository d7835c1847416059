/* core/csv.c -- writing CSV fields: the one writer of a field every CSV
 * gpuidx writes uses (RFC 4180 quoting: a field holding a comma, a quote,
 * CR or LF is quoted, quotes doubled), its variant for free text a
 * spreadsheet would run as a formula, and the always-quoted one of the
 * rejects file (gpi.h). */
#include "core/gpi.h"

#include <stdio.h>
#include <string.h>

/* One CSV field, after an optional prefix that belongs to its text; in
 * quotes when it needs them or when always is set. */
static void csv_cell(FILE *f, const char *prefix, const char *s, int always)
{
    if (!s) s = "";
    if (!always && !strpbrk(s, ",\"\r\n")) {
        fputs(prefix, f);
        fputs(s, f);
        return;
    }
    fputc('"', f);
    fputs(prefix, f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

void gpi_csv_field(FILE *f, const char *s)
{
    csv_cell(f, "", s, 0);
}

void gpi_csv_quoted(FILE *f, const char *s)
{
    csv_cell(f, "", s, 1);
}

/* The characters a spreadsheet takes as the start of a formula (OWASP,
 * "CSV injection"); TAB and CR because some programs skip them first. */
int gpi_csv_text_risky(const char *s)
{
    return s && *s && strchr("=+-@\t\r", *s) != NULL;
}

void gpi_csv_text(FILE *f, const char *s)
{
    csv_cell(f, gpi_csv_text_risky(s) ? "'" : "", s, 0);
}
