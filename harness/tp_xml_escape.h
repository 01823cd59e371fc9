/* Text for XML and HTML documents (the JUnit files, the bundle's
 * index.html): one escaping, so that no name, reason or statement can
 * open markup or break the document. */
#ifndef TP_XML_ESCAPE_H
#define TP_XML_ESCAPE_H
#include <stdio.h>

/* Writes s as XML 1.0 character data (attr: an attribute value in double
 * quotes), which is also valid HTML text: & < > " ' as entities; bytes
 * that are not UTF-8, and characters XML 1.0 cannot hold at all (control
 * characters but tab, newline and carriage return; U+FFFE, U+FFFF), as
 * the visible text \xNN or \uNNNN; in an attribute, tab and newline as
 * character references (a parser would turn them into spaces), and a
 * carriage return always. */
void tp_xml_escape(FILE *f, const char *s, int attr);
#endif
