/* core/vec.h -- the growable array: one helper for the "double the
 * capacity when full" loop that arrays of rows, names and days use.
 *
 *     row *v = NULL;
 *     size_t n = 0, cap = 0;
 *     ...
 *     if (GPI_VEC_RESERVE(v, cap, n + 1) != 0) return out_of_memory;
 *     v[n++] = r;
 *     ...
 *     free(v);
 *
 * The array is an ordinary malloc'd pointer with a count and a capacity
 * the caller keeps (no wrapper type, so a struct holding one needs no
 * change); the caller owns it and frees it.  Growth doubles from 16
 * elements (or straight to `need` when that is more); a failed growth
 * (out of memory, or a size that overflows size_t) returns -1 and leaves
 * the array and its capacity as they were.
 *
 * Arrays indexed by an id (a cache of names by id, a row per id) want the
 * elements they grow by set: GPI_VEC_RESERVE_ZERO zeroes them, and
 * gpi_vec_reserve_fill sets every byte of them to a given value (-1 for
 * "not yet known" flags) for elements whose size is known only at run
 * time.  Only the elements past the old capacity are set, so an element
 * in use is never touched.
 */
#ifndef GPI_VEC_H
#define GPI_VEC_H

#include <stddef.h>

/* Room for need elements of size bytes in the array *pp points to (pp is
 * the address of the array pointer, of any object pointer type), whose
 * capacity is *cap: 0, or -1 as above.  Use GPI_VEC_RESERVE. */
int gpi_vec_reserve(void *pp, size_t *cap, size_t need, size_t size);

/* Typed use: p an lvalue array pointer, cap its size_t capacity (both,
 * and need, are evaluated more than once: no side effects). */
#define GPI_VEC_RESERVE(p, cap, need) \
    ((size_t)(need) <= (cap) ? 0 : gpi_vec_reserve(&(p), &(cap), (size_t)(need), sizeof *(p)))

/* gpi_vec_reserve, then every byte of the elements from the old capacity
 * to the new one set to (unsigned char)byte: 0, or -1 as above. */
int gpi_vec_reserve_fill(void *pp, size_t *cap, size_t need, size_t size, int byte);

/* GPI_VEC_RESERVE with the new elements zeroed (same rules). */
#define GPI_VEC_RESERVE_ZERO(p, cap, need)                                                   \
    ((size_t)(need) <= (cap) ? 0                                                            \
                             : gpi_vec_reserve_fill(&(p), &(cap), (size_t)(need), sizeof *(p), 0))

#endif
