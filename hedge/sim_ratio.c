/* hedge/sim_ratio.c -- the ratio `hedge simulate --ratio auto` uses.
 *
 * The minimum-variance ratio is the OLS slope of the rent's monthly
 * changes on the index's, fitted on the months before the month hedged
 * (never data from it onward).  On a short history that slope is noise:
 * three changes gave h = 2.298 on a real T4 rent and the next month -0.4,
 * which silently turned a payer's purchase into a sale.  So:
 *
 *   fewer than min_changes changes (default HEDGE_MIN_CHANGES, a year),
 *   or no fit (the index never moved)  -> 0: the month is not hedged (a
 *                                         one-for-one hedge here used to
 *                                         buy where compare had found the
 *                                         grade moving against the rent:
 *                                         "ADDED risk +2788.6 %");
 *   a fit <= 0                         -> 0: the month is not hedged (the
 *                                         side is never switched; the
 *                                         grade moved against the rent);
 *   a fit above HEDGE_RATIO_CAP        -> the cap;
 *   otherwise                          -> the fit.
 *
 * Every month records which rule applied; the replay counts them and the
 * printers say so.
 */
#include "hedge/internal.h"

#include <math.h>

hedge_ratio_rule hedge_auto_ratio(const hedge_ols *fit, size_t n_changes, size_t min_changes,
                                  double *h)
{
    if (min_changes == 0) min_changes = HEDGE_MIN_CHANGES;
    if (!fit || !fit->ok || !isfinite(fit->b) || n_changes < min_changes) {
        *h = 0.0;
        return HEDGE_RATIO_FALLBACK;
    }
    if (fit->b <= 0) {
        *h = 0.0;
        return HEDGE_RATIO_NEGATIVE;
    }
    if (fit->b > HEDGE_RATIO_CAP) {
        *h = HEDGE_RATIO_CAP;
        return HEDGE_RATIO_CAPPED;
    }
    *h = fit->b;
    return HEDGE_RATIO_FITTED;
}

const char *hedge_strategy_name(int s)
{
    return s == HEDGE_ROLL ? "roll" : s == HEDGE_STRIP ? "strip" : "?";
}
