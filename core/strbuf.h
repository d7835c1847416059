/* core/strbuf.h -- a growing text buffer for documents built in memory
 * (the SVG charts of cost/ and hedge/, observations.csv).
 *
 * gpi_sbuf_printf appends formatted text, gpi_sbuf_xml appends text with
 * the five XML-special characters escaped.  An allocation failure sets oom
 * and makes every later append a no-op, so a writer appends freely and
 * checks oom once at the end.  The buffer p (NUL-terminated once anything
 * was appended) belongs to the caller: free(b.p).
 */
#ifndef GPI_CORE_STRBUF_H
#define GPI_CORE_STRBUF_H

#include <stddef.h>

typedef struct gpi_sbuf {
    char *p;
    size_t n, cap;
    int oom;
} gpi_sbuf;

__attribute__((format(printf, 2, 3))) void gpi_sbuf_printf(gpi_sbuf *b, const char *fmt, ...);
/* Appends the n bytes at s (no NUL is added: p is then not a C string). */
void gpi_sbuf_put(gpi_sbuf *b, const char *s, size_t n);
/* Room for n more bytes: where to write them (then add what was written
 * to b->n), or NULL (oom set) when it cannot be had. */
char *gpi_sbuf_room(gpi_sbuf *b, size_t n);
/* gpi_csv_field and gpi_csv_text (core/gpi.h), appending to b: the same
 * bytes (core/csv.c has both writers). */
void gpi_sbuf_csv_field(gpi_sbuf *b, const char *s);
void gpi_sbuf_csv_text(gpi_sbuf *b, const char *s);
/* Appends s (NULL: nothing) with < > & " escaped, for XML text and
 * attribute values in double quotes. */
void gpi_sbuf_xml(gpi_sbuf *b, const char *s);

#endif
