/* Text for XML and HTML documents (see tp_xml_escape.h). */
#include "harness/tp_xml_escape.h"

#include <stdint.h>

/* The length of the valid UTF-8 sequence at s (1 to 4) and its code point,
 * or 0 when s does not start one (overlong forms and surrogates included). */
static int utf8_at(const unsigned char *s, uint32_t *cp)
{
    int n = s[0] < 0x80 ? 1 : (s[0] & 0xE0) == 0xC0 ? 2 : (s[0] & 0xF0) == 0xE0 ? 3 : (s[0] & 0xF8) == 0xF0 ? 4 : 0;
    if (!n)
        return 0;
    uint32_t c = n == 1 ? s[0] : n == 2 ? (s[0] & 0x1Fu) : n == 3 ? (s[0] & 0x0Fu) : (s[0] & 0x07u);
    for (int k = 1; k < n; k++) {
        if ((s[k] & 0xC0) != 0x80)
            return 0;
        c = (c << 6) | (s[k] & 0x3Fu);
    }
    static const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < least[n] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    *cp = c;
    return n;
}

void tp_xml_escape(FILE *f, const char *s, int attr)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        uint32_t c;
        int n = utf8_at(p, &c);
        if (!n) {
            fprintf(f, "\\x%02X", *p++);
            continue;
        }
        switch (c) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        /* in an attribute, a parser would turn a literal tab or newline
         * into a space; in text, a carriage return into a newline */
        case '\t': fputs(attr ? "&#9;" : "\t", f); break;
        case '\n': fputs(attr ? "&#10;" : "\n", f); break;
        case '\r': fputs("&#13;", f); break;
        default:
            if (c < 0x20 || c == 0x7F)
                fprintf(f, "\\x%02X", (unsigned)c);
            else if (c == 0xFFFE || c == 0xFFFF)
                fprintf(f, "\\u%04X", (unsigned)c);
            else
                fwrite(p, 1, (size_t)n, f);
        }
        p += n;
    }
}
