/* A closed interval of doubles [lo, hi]: enclosures of exact values and
 * the sets of values a model admits. One definition shared by every
 * oracle that passes intervals around. */
#ifndef TP_INTERVAL_H
#define TP_INTERVAL_H
typedef struct {
    double lo, hi;
} tp_interval;
#endif
