/* core/strbuf.h -- a growing text buffer for documents built in memory
 * (the SVG charts of cost/ and hedge/).
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
/* Appends s (NULL: nothing) with < > & " escaped, for XML text and
 * attribute values in double quotes. */
void gpi_sbuf_xml(gpi_sbuf *b, const char *s);

#endif
