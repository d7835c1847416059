/* core/json_text.c -- JSON numbers kept as text (core/json_text.h). */
#include "core/json_text.h"

#include <ctype.h>
#include <stdlib.h>

char *gpi_json_quote_numbers(const char *s, size_t n)
{
    char *o = malloc(3 * n + 1);
    if (!o) return NULL;
    size_t k = 0;
    int in = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (in) {
            o[k++] = c;
            if (c == '\\' && i + 1 < n) o[k++] = s[++i];
            else if (c == '"') in = 0;
        } else if (c == '"') {
            in = 1;
            o[k++] = c;
        } else if (c == '-' || isdigit((unsigned char)c)) {
            o[k++] = '"';
            while (i < n && (s[i] == '-' || s[i] == '+' || s[i] == '.' || s[i] == 'e' ||
                             s[i] == 'E' || isdigit((unsigned char)s[i])))
                o[k++] = s[i++];
            o[k++] = '"';
            i--;
        } else {
            o[k++] = c;
        }
    }
    o[k] = '\0';
    return o;
}
