/* core/diag.c -- located diagnostics and the enumerations of SPEC §3. */
#include "core/gpi.h"

#include <stdarg.h>
#include <stdio.h>
#include <strings.h>

gpi_status gpi_diag_set(gpi_diag *d, gpi_status st, const char *fmt, ...)
{
    if (d) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(d->msg, sizeof d->msg, fmt, ap);
        va_end(ap);
    }
    return st;
}

int gpi_exit_code(gpi_status st)
{
    if (st == GPI_OK) return 0;
    if (st == GPI_EUSAGE) return 2;
    return 1;
}

static int lookup(const char *const *names, int n, const char *s)
{
    if (!s) return -1;
    for (int i = 0; i < n; i++)
        if (strcasecmp(names[i], s) == 0) return i;
    return -1;
}

static const char *const kind_names[] = {"offer", "trade"};
static const char *const scope_names[] = {"bare-metal", "managed", "vm", "container"};
static const char *const tier_names[] = {"unrated", "underperform", "bronze",
                                         "silver", "gold", "platinum"};
static const char *const term_names[] = {"on-demand", "spot", "reserved"};
static const char *const status_names[] = {"ok", "cancelled", "affiliate"};
static const char *const level_names[] = {"trades", "offers", "carried", "suspended"};
static const char *const unit_names[] = {"gpu-hour", "instance-hour", "gpu-month",
                                         "instance-month"};
static const char *const covers_names[] = {"instance", "gpu-only", "cpu-heavy", "partial-gpu"};

#define NAMES(a) a, (int)(sizeof a / sizeof a[0])
int gpi_kind_parse(const char *s) { return lookup(NAMES(kind_names), s); }
int gpi_scope_parse(const char *s) { return lookup(NAMES(scope_names), s); }
int gpi_tier_parse(const char *s) { return lookup(NAMES(tier_names), s); }
int gpi_term_parse(const char *s) { return lookup(NAMES(term_names), s); }
int gpi_trade_status_parse(const char *s) { return lookup(NAMES(status_names), s); }
int gpi_unit_parse(const char *s) { return lookup(NAMES(unit_names), s); }
int gpi_level_parse(const char *s) { return lookup(NAMES(level_names), s); }
int gpi_covers_parse(const char *s) { return lookup(NAMES(covers_names), s); }

static const char *name_of(const char *const *names, int n, int v)
{
    return (v >= 0 && v < n) ? names[v] : "?";
}
const char *gpi_kind_name(int v) { return name_of(NAMES(kind_names), v); }
const char *gpi_scope_name(int v) { return name_of(NAMES(scope_names), v); }
const char *gpi_tier_name(int v) { return name_of(NAMES(tier_names), v); }
const char *gpi_term_name(int v) { return name_of(NAMES(term_names), v); }
const char *gpi_trade_status_name(int v) { return name_of(NAMES(status_names), v); }
const char *gpi_unit_name(int v) { return name_of(NAMES(unit_names), v); }
const char *gpi_level_name(int v) { return name_of(NAMES(level_names), v); }
const char *gpi_covers_name(int v) { return name_of(NAMES(covers_names), v); }
