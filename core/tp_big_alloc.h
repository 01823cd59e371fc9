/* Large per-element arrays (a reference, exact sums) in memory that faults
 * in by 2 MiB pages where the kernel offers transparent huge pages. */
#ifndef TP_BIG_ALLOC_H
#define TP_BIG_ALLOC_H
#include <stddef.h>

/* bytes of memory, released by free(); NULL when out of memory. */
void *tp_big_alloc(size_t bytes);

#endif
