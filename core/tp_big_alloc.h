/* Large per-element arrays (a reference, exact sums) in memory that faults
 * in by 2 MiB pages where the kernel offers transparent huge pages. */
#ifndef TP_BIG_ALLOC_H
#define TP_BIG_ALLOC_H
#include <stddef.h>

/* bytes of memory, released by free(); NULL when out of memory. */
void *tp_big_alloc(size_t bytes);
/* A tp_big_alloc copy of src, copied in pieces by several threads when
 * large (its pages fault in as they are written: one thread copying a
 * 4096^2 binary16 array was 0.01 s); NULL when out of memory. */
void *tp_big_dup(const void *src, size_t bytes);
/* memset(p, v, bytes) the same way (a fresh output's poison fill was
 * 0.02 s of a 4096^3 check in one thread). */
void tp_big_fill(void *p, int v, size_t bytes);

#endif
