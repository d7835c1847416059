/* index/v3_reach_pub.c -- a v3 row's published manipulation figures read
 * back from its stored v3 text (index/v3.h, idx_reach_pub_read): what
 * the site's and the review's monthly tables show (METHODOLOGY.md §11.4).
 *
 * The text is the row's v3 member as index.json publishes it; only its
 * "manipulation" object is parsed (jansson), from where it starts to its
 * end, into fixed-point numbers: a figure is published with 6 decimals,
 * so rounding the double to the nearest millionth gives its digits back.
 */
#include "index/v3.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

/* A published 6-decimal number as e6 (null or absent: -1). */
static int64_t e6_of(const json_t *v)
{
    if (!json_is_number(v)) return -1;
    return (int64_t)llround(json_number_value(v) * 1e6);
}

int idx_reach_pub_read(const char *v3_json, idx_reach_pub *out)
{
    memset(out, 0, sizeof *out);
    const char *p = v3_json ? strstr(v3_json, "\"manipulation\":") : NULL;
    if (!p) return 0;
    p += strlen("\"manipulation\":");
    json_error_t e;
    json_t *j = json_loadb(p, strlen(p), JSON_DISABLE_EOF_CHECK, &e);
    if (!json_is_object(j)) {
        json_decref(j);
        return 0;
    }
    out->days[0] = (long)json_integer_value(json_object_get(j, "days"));
    out->days[1] = (long)json_integer_value(json_object_get(j, "business_days"));
    for (int c = 0; c < 2; c++) {
        const json_t *f = json_object_get(j, c ? "fsp_move_business" : "fsp_move");
        for (int k = 0; k < IDX_REACH_KINDS; k++)
            out->fig_e6[k][c] = e6_of(json_object_get(f, idx_reach_kind_name(k)));
    }
    json_decref(j);
    return 1;
}
