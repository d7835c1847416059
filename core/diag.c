/* core/diag.c -- located diagnostics and the exit code of a status. */
#include "core/gpi.h"

#include <stdarg.h>
#include <stdio.h>

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
