/* index/chain_detail.c -- what methodology v2 shows of a day besides its
 * value (METHODOLOGY.md §10.6): the stored JSON text of a v2 row (the
 * matched trading members' reference volumes, an anchor's window, the
 * trading members carried into the matched sample) and, for
 * observations.csv, a constituent's match against the replayed chain.
 *
 * NOTES ON THE DESIGN
 * (1) The text is made by idx_chain_step after the day is decided and
 *     before it is committed (chain.c): on an anchor day the commit
 *     replaces the panel, and on a fixed day it moves every member's
 *     reference price to the day's, while the day's relative was made of
 *     the sample and reference prices before.  It is owned by the chain
 *     until its next step.
 * (2) Numbers are written from integers at their fixed decimals
 *     (gpi_fixed_format, idx_put_fixed), names as JSON strings (jansson),
 *     so publish/ stores and regenerates them byte for byte.
 */
#include "index/chain.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>


/* After decide(), before commit() (note 1): the matched trading members' volumes on
 * the reference day (c->refvol) and, on an anchor with a window, the
 * window's days (c->window), as compact JSON; NULL when empty. */
gpi_status idx_chain_detail_json(idx_chain *c, const idx_v2eval *v, gpi_diag *d)
{
    free(c->refvol);
    free(c->window);
    c->refvol = c->window = NULL;
    char b[48];
    size_t len;
    int ok = 1, n = 0;
    FILE *f = NULL;
    for (size_t i = 0; v->chain_prev >= 0 && i < c->n_mem[1] && ok; i++) {
        const idx_member *m = &c->mem[1][i];
        if (!m->matched) continue;
        if (!f && !(f = open_memstream(&c->refvol, &len))) return gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
        json_t *js = json_string(m->name ? m->name : "");
        char *name = js ? json_dumps(js, JSON_ENCODE_ANY) : NULL;
        json_decref(js);
        ok = name != NULL;
        fprintf(f, "%s%s:%s", n++ ? "," : "{", name ? name : "\"\"",
                gpi_fixed_format(m->ref_vol, 6, b));
        free(name);
    }
    if (f) {
        fputc('}', f);
        ok &= fclose(f) == 0;
        f = NULL;
    }
    if (ok && v->event && c->n_win > 0) {
        if (!(f = open_memstream(&c->window, &len))) return gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
        for (int i = 0; i < c->n_win; i++) {
            const idx_window *x = &c->win[i];
            char date[11];
            gpi_date_format(x->day, date);
            fprintf(f, "%s{\"date\":\"%s\",\"xs_value\":", i ? "," : "[", date);
            idx_put_fixed(f, x->xs_e4, 4, 1);
            fputs(",\"change\":", f);
            idx_put_fixed(f, x->change_q >= 0 ? x->change_q * 25 : -1, 14, 1);
            fputs(",\"estimate\":", f);
            idx_put_fixed(f, x->est_nano, 9, 1);
            fputc('}', f);
        }
        fputc(']', f);
        ok &= fclose(f) == 0;
    }
    return ok ? GPI_OK : gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
}

void idx_chain_detail(const idx_chain *c, const char **ref_volumes, const char **window)
{
    *ref_volumes = c->refvol;
    *window = c->window;
}


static int cmp_member(const void *a, const void *b)
{
    const idx_member *x = a, *y = b;
    return (x->key > y->key) - (x->key < y->key);
}

void idx_chain_lookup(const idx_chain *c, int kind, uint64_t key, idx_obs_match *m)
{
    int k = kind == GPI_OFFER ? 0 : 1;
    idx_member x = {.key = key};
    const idx_member *f = c->has && c->n_mem[k]
                              ? bsearch(&x, c->mem[k], c->n_mem[k], sizeof x, cmp_member)
                              : NULL;
    if (f && !f->matched) f = NULL;
    m->matched = f != NULL;
    /* offers: micro; trades (representatives): quarter-micro -> 1e-8 */
    int64_t u = kind == GPI_OFFER ? 100 : 25;
    m->ref_price_e8 = f ? f->ref * u : -1;
    m->base_price_e8 = f ? f->base * u : -1;
    m->relative_e12 = f ? f->rel_now : -1;
}

/* The trading members carried into the day's matched sample (c->carried),
 * built by idx_chain_step after decide() and before commit(): on an anchor
 * day commit() replaces the panel, and on a fixed day it moves every
 * member's reference price to the day's, while the day's relative was
 * made of the sample and reference prices before.  None without a chain
 * the day before. */
gpi_status idx_chain_carried_text(idx_chain *c, int has, gpi_diag *d)
{
    free(c->carried);
    c->carried = NULL;
    if (!has) return GPI_OK;
    size_t len = 0;
    FILE *f = NULL;
    char b[32];
    int n = 0, ok = 1;
    for (size_t i = 0; i < c->n_mem[1] && ok; i++) {
        const idx_member *m = &c->mem[1][i];
        if (m->seen || !m->matched || m->now < 0) continue;
        if (!f && !(f = open_memstream(&c->carried, &len))) break;
        char date[11];
        gpi_date_format(m->last_day, date);
        json_t *js = json_string(m->name ? m->name : "");
        char *name = js ? json_dumps(js, JSON_ENCODE_ANY) : NULL;
        json_decref(js);
        ok = name != NULL;
        /* quarter-micro -> 1e-8; micro-GPU-hours -> 1e-6 */
        fprintf(f, "%s{\"group\":%s,\"last_seen\":\"%s\",\"price\":%s", n++ ? "," : "[",
                name ? name : "\"\"", date, gpi_fixed_format(m->now * 25, 8, b));
        fprintf(f, ",\"volume\":%s", gpi_fixed_format(m->now_vol, 6, b));
        fprintf(f, ",\"ref_price\":%s", gpi_fixed_format(m->ref * 25, 8, b));
        fprintf(f, ",\"base_price\":%s", gpi_fixed_format(m->base * 25, 8, b));
        fprintf(f, ",\"relative\":%s}", gpi_fixed_format(m->rel_now, 12, b));
        free(name);
    }
    if (f) {
        fputc(']', f);
        ok &= fclose(f) == 0;
    }
    if (!ok || (n && !c->carried)) return gpi_diag_set(d, GPI_ENOMEM, "index: out of memory");
    if (!n) {
        free(c->carried);
        c->carried = NULL;
    }
    return GPI_OK;
}

gpi_status idx_chain_carried_json(idx_chain *c, const char **out, gpi_diag *d)
{
    (void)d;
    *out = c->carried;
    return GPI_OK;
}
