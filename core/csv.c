/* core/csv.c -- writing CSV fields: the one writer of a field every CSV
 * gpuidx writes uses (RFC 4180 quoting: a field holding a comma, a quote,
 * CR or LF is quoted, quotes doubled), its variant for free text a
 * spreadsheet would run as a formula, and the always-quoted one of the
 * rejects file (gpi.h); the first two also append to a gpi_sbuf
 * (core/strbuf.h: observations.csv, built in memory). */
#include "core/gpi.h"
#include "core/strbuf.h"

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

/* csv_cell appending to b (gpi_sbuf_csv_field, gpi_sbuf_csv_text): the
 * same bytes, tests/test_core.c checks it on every kind of text. */
static void sbuf_cell(gpi_sbuf *b, const char *prefix, const char *s)
{
    if (!s) s = "";
    size_t np = strlen(prefix);
    if (!strpbrk(s, ",\"\r\n")) {
        gpi_sbuf_put(b, prefix, np);
        gpi_sbuf_put(b, s, strlen(s));
        return;
    }
    size_t n = strlen(s), q = 0;
    for (const char *c = s; *c; c++) q += *c == '"';
    char *o = gpi_sbuf_room(b, n + q + np + 2);
    if (!o) return;
    char *start = o;
    *o++ = '"';
    memcpy(o, prefix, np);
    o += np;
    for (; *s; s++) {
        if (*s == '"') *o++ = '"';
        *o++ = *s;
    }
    *o++ = '"';
    b->n += (size_t)(o - start);
}

void gpi_sbuf_csv_field(gpi_sbuf *b, const char *s)
{
    sbuf_cell(b, "", s);
}

void gpi_sbuf_csv_text(gpi_sbuf *b, const char *s)
{
    sbuf_cell(b, gpi_csv_text_risky(s) ? "'" : "", s);
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
