/* curve/futures.h -- futures settlement prices as term-curve inputs
 * (curve/futures.c): a settlement prices file (`gpuidx settle`'s output,
 * or an exchange's in the same CSV) read against a contract file, each
 * price a curve input of its contract's grade on its day, over the
 * contract's delivery month.
 *
 * Pure: text in, data out.  Ownership: free a curve_futures with
 * curve_futures_free; the quotes of curve_futures_day are the caller's.
 */
#ifndef GPI_CURVE_FUTURES_H
#define GPI_CURVE_FUTURES_H

#include <stddef.h>
#include <stdint.h>

#include "curve/curve.h"
#include "settlement/settlement.h"

typedef struct curve_future {
    int32_t day;              /* the settlement price's day */
    int32_t first_day, last_day; /* the delivery month */
    int64_t price_micro;
    char symbol[SETTLE_SYMBOL_MAX + 1];
    char grade[SETTLE_GRADE_MAX + 1];
} curve_future;

typedef struct curve_futures {
    curve_future *v;
    size_t n, cap;
} curve_futures;

/* Reads the CSV text (header date,symbol,settlement_price[,kind]; rows of
 * kind insufficient, which have no price, are skipped) against the
 * contracts cs[0..nc).  Errors: "path:line: field: reason (got "x")". */
gpi_status curve_futures_parse(const char *path, const char *text, size_t len,
                               const settle_contract *cs, size_t nc, curve_futures *out,
                               gpi_diag *d);
void curve_futures_free(curve_futures *f);
/* The inputs of grade on day (q[0..*n), malloc'd; *n may be 0). */
gpi_status curve_futures_day(const curve_futures *f, const char *grade, int32_t day,
                             curve_quote **q, size_t *n, gpi_diag *d);

#endif
