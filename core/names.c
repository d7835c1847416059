/* core/names.c -- the spellings gpuidx accepts: the names of the
 * enumerations of SPEC §3 (parsed ignoring case, written in lower case)
 * and the rule of a grade id, which every reader of a grade id (grades
 * files, --grade options, deployments, the simulator) applies through
 * gpi_grade_id_ok. */
#include "core/gpi.h"

#include <string.h>
#include <strings.h>

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

int gpi_grade_id_ok(const char *s)
{
    if (!s) return 0;
    size_t n = strlen(s);
    if (n < 1 || n > GPI_GRADE_ID_MAX) return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int alnum = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (!alnum && (i == 0 || !strchr("._+-", c))) return 0;
    }
    return 1;
}
