/* wp: model=typed tiers=T1,T3 */
/* Exact, by Gappa: a + b of two binary16 values is a multiple of 2^-24
 * below 2^17 in magnitude (41 bits), and half of it a multiple of 2^-25
 * below 2^16. */
#include "tp_f16_mid.h"

TP_HD double tp_f16_mid(double a, double b)
{
    const double s = a + b;
    /*@ assert s_exact: s == a + b; */
    return s * 0.5;
}
