/* core/json_text.h -- JSON read with its numbers kept as the text written.
 *
 * Published numbers are exact decimals; jansson reads JSON numbers into
 * doubles.  gpi_json_quote_numbers wraps every number token outside a
 * string in double quotes, so jansson reads "value":1.7468 as the string
 * "1.7468" and the reader compares or parses it digit for digit.  verify/
 * reads the published files so, and publish/ its own rows' text (the
 * inputs of the bootstrap interval, index/bootstrap.c).
 *
 * Ownership: the result is malloc'd (free()); NULL when out of memory.
 */
#ifndef GPI_JSON_TEXT_H
#define GPI_JSON_TEXT_H

#include <stddef.h>

char *gpi_json_quote_numbers(const char *s, size_t n);

#endif
