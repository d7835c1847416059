/* sim/out.c -- buffered line writer for the generator.
 *
 * Writing ten million CSV rows through fprintf costs more than generating
 * them; this appends to a 1 MiB buffer with hand-rolled integer and
 * fixed-point formatting and writes whole buffers with fwrite.
 */
#include <stdlib.h>
#include <string.h>

#include "sim/internal.h"

#define OUT_CAP (1u << 20)

int sim_out_open(sim_out *o, FILE *f)
{
    o->f = f;
    o->n = 0;
    o->err = 0;
    o->cap = OUT_CAP;
    o->buf = f ? malloc(OUT_CAP) : NULL;
    return f && !o->buf ? -1 : 0;
}

static void flush(sim_out *o)
{
    if (o->f && o->n && fwrite(o->buf, 1, o->n, o->f) != o->n) o->err = 1;
    o->n = 0;
}

static void need(sim_out *o, size_t k)
{
    if (o->n + k > o->cap) flush(o);
}

void sim_out_str(sim_out *o, const char *s)
{
    if (!o->f) return;
    size_t k = strlen(s);
    if (k > o->cap) {
        flush(o);
        if (fwrite(s, 1, k, o->f) != k) o->err = 1;
        return;
    }
    need(o, k);
    memcpy(o->buf + o->n, s, k);
    o->n += k;
}

void sim_out_ch(sim_out *o, char c)
{
    if (!o->f) return;
    need(o, 1);
    o->buf[o->n++] = c;
}

void sim_out_int(sim_out *o, int64_t v)
{
    if (!o->f) return;
    char tmp[24];
    int k = 0;
    uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        tmp[k++] = (char)('0' + a % 10);
        a /= 10;
    } while (a);
    need(o, (size_t)k + 1);
    if (v < 0) o->buf[o->n++] = '-';
    while (k) o->buf[o->n++] = tmp[--k];
}

void sim_out_fixed(sim_out *o, int64_t v, int dec)
{
    if (!o->f) return;
    int64_t p = 1;
    for (int i = 0; i < dec; i++) p *= 10;
    uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    if (v < 0) sim_out_ch(o, '-');
    sim_out_int(o, (int64_t)(a / (uint64_t)p));
    if (dec == 0) return;
    need(o, (size_t)dec + 1);
    o->buf[o->n++] = '.';
    uint64_t frac = a % (uint64_t)p;
    for (int i = dec - 1; i >= 0; i--) {
        o->buf[o->n + (size_t)i] = (char)('0' + frac % 10);
        frac /= 10;
    }
    o->n += (size_t)dec;
}

int sim_out_close(sim_out *o)
{
    flush(o);
    free(o->buf);
    o->buf = NULL;
    if (o->f && fflush(o->f) != 0) o->err = 1;
    return o->err ? -1 : 0;
}
