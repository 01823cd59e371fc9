/* The unit tests' random inputs: splitmix64, so that a test's seed gives
 * the same draws on every machine and a failure reproduces. */
#ifndef TP_TEST_RNG_H
#define TP_TEST_RNG_H
#include "core/tp_fp16.h"

#include <stdint.h>

static inline uint64_t tp_test_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A finite binary16 value widened to float, every finite pattern equally
 * likely. */
static inline float tp_test_finite_f16(uint64_t *state)
{
    uint16_t h;
    do
        h = (uint16_t)tp_test_splitmix64(state);
    while ((h & 0x7c00) == 0x7c00);
    return (float)tp_f16_to_double(h);
}

#endif
