/* Any binary16 pattern's value: the finite ones through the proven
 * tp_f16_decode (oracles/common/proven/tp_f16_decode.h, exactly
 * f16_value), infinities and NaNs through core/tp_ieee.h's codec.
 * Kept out of the proven header: WP would otherwise read the codec's bit
 * manipulations. */
#ifndef TP_F16_DECODE_ANY_H
#define TP_F16_DECODE_ANY_H
#include "core/tp_hd.h"
#include "core/tp_ieee.h"
#include "oracles/common/proven/tp_f16_decode.h"

#include <stdint.h>

static inline TP_HD double tp_f16_decode_any(uint32_t h)
{
    if (h <= 0xffffu && (h & 0x7c00u) != 0x7c00u)
        return tp_f16_decode(h);
    return tp_ieee_decode(h, 5, 10);
}

#endif
