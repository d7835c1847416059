/* tests/svg_check.h -- structural checks of the SVG charts gpuidx writes
 * (header-only, static functions; used by the hedge end-to-end tests).
 *
 * svg_check() fails the test unless the text is one <svg> document: an XML
 * declaration, every element closed in order (or self-closed), text and
 * attribute values free of raw '<' and of '&' that does not start an
 * entity, no script, no external reference, and no non-finite number
 * ("nan", "inf") anywhere.  svg_count() counts the elements of one name.
 */
#ifndef GPI_TESTS_SVG_CHECK_H
#define GPI_TESTS_SVG_CHECK_H

#include <ctype.h>
#include <string.h>

static void svg_check(const char *svg)
{
    if (strncmp(svg, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ", 44) != 0)
        fail_msg("svg: no XML declaration and <svg> first");
    if (strstr(svg, "<script") || strstr(svg, "href=") || strstr(svg, "url("))
        fail_msg("svg: holds a script or an external reference");
    for (const char *p = svg; *p; p++)
        if ((p[0] == 'n' && p[1] == 'a' && p[2] == 'n' && !isalpha((unsigned char)p[3]) &&
             (p == svg || !isalpha((unsigned char)p[-1]))) ||
            (p[0] == 'i' && p[1] == 'n' && p[2] == 'f' && !isalpha((unsigned char)p[3]) &&
             (p == svg || !isalpha((unsigned char)p[-1]))))
            fail_msg("svg: a non-finite number near \"%.40s\"", p > svg + 20 ? p - 20 : svg);
    char stack[64][32];
    int depth = 0, roots = 0;
    const char *p = strchr(svg, '\n') + 1;
    while (*p) {
        if (*p != '<') {
            if (*p == '&' && !(strncmp(p, "&lt;", 4) == 0 || strncmp(p, "&gt;", 4) == 0 ||
                               strncmp(p, "&amp;", 5) == 0 || strncmp(p, "&quot;", 6) == 0))
                fail_msg("svg: a raw '&' in text near \"%.40s\"", p);
            if (depth == 0 && !isspace((unsigned char)*p)) fail_msg("svg: text outside <svg>");
            p++;
            continue;
        }
        const char *e = strchr(p, '>');
        if (!e) fail_msg("svg: an unclosed tag");
        if (memchr(p + 1, '<', (size_t)(e - p - 1))) fail_msg("svg: '<' inside a tag");
        int closing = p[1] == '/', selfc = e[-1] == '/';
        const char *n = p + 1 + closing;
        size_t len = strcspn(n, " />\n");
        if (len == 0 || len >= 32) fail_msg("svg: a bad tag name near \"%.40s\"", p);
        for (const char *q = p; q < e; q++)
            if (*q == '&' && !(strncmp(q, "&lt;", 4) == 0 || strncmp(q, "&gt;", 4) == 0 ||
                               strncmp(q, "&amp;", 5) == 0 || strncmp(q, "&quot;", 6) == 0))
                fail_msg("svg: a raw '&' in a tag near \"%.40s\"", q);
        if (closing) {
            if (depth == 0 || strlen(stack[depth - 1]) != len ||
                strncmp(stack[depth - 1], n, len) != 0)
                fail_msg("svg: </%.*s> closes %s", (int)len, n, depth ? stack[depth - 1] : "nothing");
            depth--;
        } else if (!selfc) {
            if (depth == 0) roots++;
            if (depth == 64) fail_msg("svg: nested too deep");
            memcpy(stack[depth], n, len);
            stack[depth++][len] = '\0';
        } else if (depth == 0) {
            fail_msg("svg: an element outside <svg>");
        }
        p = e + 1;
    }
    if (depth != 0 || roots != 1) fail_msg("svg: %d elements left open, %d roots", depth, roots);
}

/* Elements <name ...> in svg. */
static int svg_count(const char *svg, const char *name)
{
    char pat[40];
    snprintf(pat, sizeof pat, "<%s ", name);
    int n = 0;
    for (const char *p = strstr(svg, pat); p; p = strstr(p + 1, pat)) n++;
    return n;
}

#endif
