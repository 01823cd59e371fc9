/* The escaping of the CI formats and the bundle page, byte for byte: no
 * name, reason or statement may open markup in JUnit XML or index.html
 * (tp_xml_escape), nor end a GitHub workflow command or start another
 * (tp_gh_escape); what XML 1.0 cannot hold (control characters, bytes that
 * are not UTF-8, U+FFFE) shows as visible text instead. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "harness/tp_ghfmt.h"
#include "harness/tp_xml_escape.h"
#include "tests/tap.h"

#include <stdlib.h>
#include <string.h>

static int check(void (*esc)(FILE *, const char *, int), const char *in, int flag, const char *want, const char *what)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    esc(f, in, flag);
    fclose(f);
    int ok = tap_ok(strcmp(buf, want) == 0, "%s", what);
    if (!ok)
        tap_diag("got [%s], want [%s]", buf, want);
    free(buf);
    return ok;
}

int main(void)
{
    tap_plan(16);
    /* XML text and attributes */
    check(tp_xml_escape, "a<b>&\"c'", 0, "a&lt;b&gt;&amp;&quot;c&apos;", "xml: markup characters as entities");
    check(tp_xml_escape, "x\ty\nz\r", 0, "x\ty\nz&#13;", "xml text: tab and newline kept, carriage return referenced");
    check(tp_xml_escape, "x\ty\nz\r", 1, "x&#9;y&#10;z&#13;", "xml attribute: tab, newline, CR as references");
    check(tp_xml_escape, "a\x01" "b\x1b[31m\x7f", 0, "a\\x01b\\x1B[31m\\x7F", "xml: control characters as visible \\xNN");
    check(tp_xml_escape, "\xef\xbf\xbe|\xef\xbf\xbf", 0, "\\uFFFE|\\uFFFF", "xml: U+FFFE and U+FFFF as visible \\uNNNN");
    check(tp_xml_escape, "caf\xc3\xa9 \xe2\x89\xa4 \xf0\x9f\x98\x80", 0, "caf\xc3\xa9 \xe2\x89\xa4 \xf0\x9f\x98\x80",
          "xml: valid UTF-8 (2, 3 and 4 bytes) kept");
    check(tp_xml_escape, "a\xff" "b\xc3", 0, "a\\xFFb\\xC3", "xml: bytes that are not UTF-8 (a stray, a truncated one)");
    check(tp_xml_escape, "\xc0\xaf\xed\xa0\x80", 0, "\\xC0\\xAF\\xED\\xA0\\x80",
          "xml: an overlong form and a surrogate are not UTF-8");
    check(tp_xml_escape, "]]>--><!--", 0, "]]&gt;--&gt;&lt;!--", "xml: no CDATA end or comment can form");
    check(tp_xml_escape, NULL, 0, "", "xml: NULL writes nothing");
    /* GitHub workflow commands */
    check(tp_gh_escape, "50% off\r\n::error::x", 0, "50%25 off%0D%0A::error::x",
          "github message: %, CR and LF escaped, so no second command can start");
    check(tp_gh_escape, "a:b,c%d\ne", 1, "a%3Ab%2Cc%25d%0Ae", "github property: also : and , escaped");
    check(tp_gh_escape, "t\tx\x01\x1b", 0, "t\tx\\x01\\x1B", "github: tab kept, other control characters visible");
    check(tp_gh_escape, "<&>\"", 1, "<&>\"", "github: markup characters are plain text there");
    check(tp_gh_escape, "caf\xc3\xa9", 0, "caf\xc3\xa9", "github: UTF-8 kept");
    check(tp_gh_escape, "", 0, "", "github: empty stays empty");
    return tap_failed ? 1 : 0;
}
