/* core/strbuf.c -- a growing text buffer (core/strbuf.h).
 *
 * The buffer grows as core/vec.h's arrays do; vsnprintf is tried in place
 * first and again after growing, so each append formats at most twice.
 */
#include "core/strbuf.h"
#include "core/vec.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *gpi_sbuf_room(gpi_sbuf *b, size_t n)
{
    if (b->oom) return NULL;
    if (n > SIZE_MAX - b->n || GPI_VEC_RESERVE(b->p, b->cap, b->n + n) != 0) {
        b->oom = 1;
        return NULL;
    }
    return b->p + b->n;
}

void gpi_sbuf_put(gpi_sbuf *b, const char *s, size_t n)
{
    char *o = gpi_sbuf_room(b, n);
    if (!o) return;
    memcpy(o, s, n);
    b->n += n;
}

void gpi_sbuf_printf(gpi_sbuf *b, const char *fmt, ...)
{
    if (b->oom) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            b->oom = 1;
            return;
        }
        if (b->p && b->n + (size_t)k < b->cap) {
            b->n += (size_t)k;
            return;
        }
        if (GPI_VEC_RESERVE(b->p, b->cap, b->n + (size_t)k + 1) != 0) {
            b->oom = 1;
            return;
        }
    }
}

void gpi_sbuf_xml(gpi_sbuf *b, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<': gpi_sbuf_printf(b, "&lt;"); break;
        case '>': gpi_sbuf_printf(b, "&gt;"); break;
        case '&': gpi_sbuf_printf(b, "&amp;"); break;
        case '"': gpi_sbuf_printf(b, "&quot;"); break;
        default: gpi_sbuf_printf(b, "%c", *s);
        }
    }
}
