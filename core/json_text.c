/* core/json_text.c -- JSON numbers kept as text (core/json_text.h). */
#include "core/json_text.h"

#include <ctype.h>
#include <stdlib.h>

/* Into o (NULL: only counted); returns the bytes written. */
static size_t quote_into(const char *s, size_t n, char *o)
{
    size_t k = 0;
    int in = 0;
#define PUT(c)                            \
    do {                                  \
        char put_c_ = (c); /* once */     \
        if (o) o[k] = put_c_;             \
        k++;                              \
    } while (0)
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (in) {
            PUT(c);
            if (c == '\\' && i + 1 < n) PUT(s[++i]);
            else if (c == '"') in = 0;
        } else if (c == '"') {
            in = 1;
            PUT(c);
        } else if (c == '-' || isdigit((unsigned char)c)) {
            PUT('"');
            while (i < n && (s[i] == '-' || s[i] == '+' || s[i] == '.' || s[i] == 'e' ||
                             s[i] == 'E' || isdigit((unsigned char)s[i])))
                PUT(s[i++]);
            PUT('"');
            i--;
        } else {
            PUT(c);
        }
    }
#undef PUT
    return k;
}

/* Sized exactly: a text of numbers used to take 3 times its size
 * (verify/files.c note 3). */
char *gpi_json_quote_numbers(const char *s, size_t n)
{
    size_t k = quote_into(s, n, NULL);
    char *o = malloc(k + 1);
    if (!o) return NULL;
    quote_into(s, n, o);
    o[k] = '\0';
    return o;
}
