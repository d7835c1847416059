/* core/lines.h -- physical lines of a text held in memory, for what is
 * checked line by line before a text goes to the CSV reader (hedge/rent.c:
 * NUL bytes, overlong lines, '#' comment lines).
 *
 * gpi_lines_next copies the next line, without its LF or CRLF, into the
 * caller's buffer and counts it (it->line is the number of the line just
 * returned, from 1).  A line that holds a NUL byte, or does not fit in cap
 * - 1 bytes (then cut), comes back with *bad saying so in words --
 * "contains a NUL byte", "longer than 1023 bytes" -- for the caller's
 * file:line message; *bad points into it and is valid until the next call.
 * The text is the caller's and is not changed.
 */
#ifndef GPI_CORE_LINES_H
#define GPI_CORE_LINES_H

#include <stddef.h>

typedef struct gpi_lines {
    const char *p, *end;
    long line;
    char why[48];
} gpi_lines;

/* An iterator over text[0, len). */
void gpi_lines_init(gpi_lines *it, const char *text, size_t len);
/* 1 and the next line in buf (cap >= 1), or 0 at the end of the text. */
int gpi_lines_next(gpi_lines *it, char *buf, size_t cap, const char **bad);

#endif
