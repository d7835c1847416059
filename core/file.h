/* core/file.h -- the rest of an open file read into memory, once: the
 * loop the grade files, verify's published JSON, publish's kept files and
 * the small CSV readers each had.
 *
 * The caller opens the file (with its own message for a file that cannot
 * be opened, and its own checks first, such as core's UTF-16 refusal) and
 * closes it; gpi_file_read_all reads to the end, NUL-terminates, and says
 * "<path>: read error" when the stream fails -- a read error is never
 * taken for the end of the file -- or "<path>: larger than N bytes" past
 * max (0: no limit).  *out is malloc'd and the caller's (free it); on an
 * error it is NULL.
 */
#ifndef GPI_CORE_FILE_H
#define GPI_CORE_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "core/gpi.h"

gpi_status gpi_file_read_all(FILE *f, const char *path, size_t max, char **out, size_t *n,
                             gpi_diag *d);

#endif
