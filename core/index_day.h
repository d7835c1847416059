/* core/index_day.h -- one day of a grade's index, as plain data.
 *
 * The record the store hands out (store_index_series) and settlement/,
 * hedge/ and cost/ consume: they take arrays of it and never a store
 * handle, so none of them can reach the database (privacy by types: a
 * producer's rent given to hedge/ can never be written there).  Arrays of
 * days are ascending and distinct unless a function says otherwise.
 */
#ifndef GPI_INDEX_DAY_H
#define GPI_INDEX_DAY_H

#include <stdint.h>

typedef struct gpi_index_day {
    int32_t day;        /* days since 1970-01-01 (core/gpi.h) */
    int level;          /* gpi_level */
    int64_t value_e4;   /* value in units of 0.0001 USD per GPU-hour;
                           meaningless when level is GPI_LEVEL_SUSPENDED */
} gpi_index_day;

#endif
