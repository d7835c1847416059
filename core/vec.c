/* core/vec.c -- see core/vec.h.  The array pointer is read and written
 * through memcpy, so a `row *` is grown without reading it as a `void *`
 * (no aliasing of different pointer types). */
#include "core/vec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int gpi_vec_reserve(void *pp, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return 0;
    size_t c = *cap >= 16 ? *cap : 16;
    while (c < need) c = c > SIZE_MAX / 2 ? need : c * 2;
    if (size && c > SIZE_MAX / size) return -1;
    void *v;
    memcpy(&v, pp, sizeof v);
    void *nv = realloc(v, c * size);
    if (!nv) return -1;
    memcpy(pp, &nv, sizeof nv);
    *cap = c;
    return 0;
}

int gpi_vec_reserve_fill(void *pp, size_t *cap, size_t need, size_t size, int byte)
{
    size_t old = *cap;
    if (gpi_vec_reserve(pp, cap, need, size) != 0) return -1;
    unsigned char *v;
    memcpy(&v, pp, sizeof v);
    if (*cap > old) memset(v + old * size, byte, (*cap - old) * size);
    return 0;
}
