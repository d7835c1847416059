/* core/lines.c -- physical lines of a text in memory (core/lines.h). */
#include "core/lines.h"

#include <stdio.h>
#include <string.h>

void gpi_lines_init(gpi_lines *it, const char *text, size_t len)
{
    it->p = text;
    it->end = text + len;
    it->line = 0;
    it->why[0] = '\0';
}

int gpi_lines_next(gpi_lines *it, char *buf, size_t cap, const char **bad)
{
    *bad = NULL;
    if (it->p >= it->end) return 0;
    const char *nl = memchr(it->p, '\n', (size_t)(it->end - it->p));
    const char *e = nl ? nl : it->end;
    size_t n = (size_t)(e - it->p);
    if (n && it->p[n - 1] == '\r') n--;
    if (memchr(it->p, '\0', n)) {
        *bad = "contains a NUL byte";
    } else if (n >= cap) {
        snprintf(it->why, sizeof it->why, "longer than %zu bytes", cap - 1);
        *bad = it->why;
    }
    if (n >= cap) n = cap - 1;
    memcpy(buf, it->p, n);
    buf[n] = '\0';
    it->p = nl ? nl + 1 : it->end;
    it->line++;
    return 1;
}
