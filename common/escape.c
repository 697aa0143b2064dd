/* escape.c — strings that come from inputs (file names, attributes, host
 * names, the commit) into outputs, one function per kind of output, so that
 * no input can add a line to a text report, break a JSON or CSV table, or
 * make an SVG ill-formed (docs/FORMATS.md "Strings from inputs").
 *
 * Text: printable characters and valid UTF-8 as they are; a backslash as
 * \\, newline, carriage return and tab as \n \r \t, other control
 * characters, DEL and bytes that are not UTF-8 as \xHH. CSV and XML take
 * the text form (one line, printable) and quote it for their syntax; JSON
 * encodes every character exactly (\u00HH), bytes that are not UTF-8 as
 * U+FFFD. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "b2.h"

/* Length of the valid UTF-8 sequence of two to four bytes at p, 0 if none. */
static int utf8_len(const unsigned char *p)
{
	int n = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 && p[0] < 0xe0 ? 2 : 0;
	if (p[0] >= 0xf5)
		return 0;
	for (int i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if ((n == 3 && p[0] == 0xe0 && p[1] < 0xa0) || (n == 3 && p[0] == 0xed && p[1] >= 0xa0) ||
	    (n == 4 && p[0] == 0xf0 && p[1] < 0x90) || (n == 4 && p[0] == 0xf4 && p[1] >= 0x90))
		return 0; /* overlong, surrogate, past U+10FFFF */
	return n;
}

/* The text form of one character at p into out (NUL-terminated); returns
 * the bytes of s it took. */
static int text_char(char out[16], const unsigned char *p)
{
	int n;
	if (*p == '\\')
		return snprintf(out, 16, "\\\\"), 1;
	if (*p == '\n' || *p == '\r' || *p == '\t')
		return snprintf(out, 16, "\\%c", *p == '\n' ? 'n' : *p == '\r' ? 'r' : 't'), 1;
	if (*p < 0x20 || *p == 0x7f)
		return snprintf(out, 16, "\\x%02x", *p), 1;
	if (*p < 0x80) {
		out[0] = (char)*p;
		out[1] = 0;
		return 1;
	}
	if ((n = utf8_len(p)) == 0)
		return snprintf(out, 16, "\\x%02x", *p), 1;
	memcpy(out, p, (size_t)n);
	out[n] = 0;
	return n;
}

void b2_fput_text(FILE *f, const char *s)
{
	char c[16];
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;) {
		p += text_char(c, p);
		fputs(c, f);
	}
}

void b2_fput_json(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;) {
		int n = *p >= 0x80 ? utf8_len(p) : 1;
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n' || *p == '\r' || *p == '\t')
			fprintf(f, "\\%c", *p == '\n' ? 'n' : *p == '\r' ? 'r' : 't');
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else if (n == 0)
			fputs("\\ufffd", f);
		else
			fwrite(p, 1, (size_t)n, f);
		p += n ? n : 1;
	}
	fputc('"', f);
}

void b2_fput_csv(FILE *f, const char *s)
{
	char c[16];
	const char *t = s ? s : "";
	int quote = strpbrk(t, ",\"") != NULL || t[0] == ' ' || (t[0] && t[strlen(t) - 1] == ' ');
	if (quote)
		fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)t; *p;) {
		p += text_char(c, p);
		fputs(c[0] == '"' ? "\"\"" : c, f);
	}
	if (quote)
		fputc('"', f);
}

static void put_xml(FILE *f, const char *s, int lines)
{
	char c[16];
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;) {
		if (lines && *p == '\n') {
			fputc(*p++, f);
			continue;
		}
		p += text_char(c, p);
		switch (c[0]) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputs(c, f);
		}
	}
}

void b2_fput_xml(FILE *f, const char *s) { put_xml(f, s, 0); }
void b2_fput_xml_lines(FILE *f, const char *s) { put_xml(f, s, 1); }

/* Rotating buffers: a few b2_text() results live in one printf call. */
#define NTEXT 16
static char *ring[NTEXT];
static int ring_next;

const char *b2_text(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return "(out of memory)";
	b2_fput_text(m, s);
	if (fclose(m) != 0 || !buf) {
		free(buf);
		return "(out of memory)";
	}
	free(ring[ring_next]);
	ring[ring_next] = buf;
	ring_next = (ring_next + 1) % NTEXT;
	return buf;
}
