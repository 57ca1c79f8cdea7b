// SPDX-License-Identifier: GPL-2.0
/*
 * print.c - the output layer of mrcctl (see print.h): a JSON writer, the
 * print_*() calls that write either form, and text tables.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "print.h"

#define JW_MAX_DEPTH 16

static struct {
	FILE *f;
	bool json;
	bool pretty;
	bool mute_text;
	bool after_key;
	int depth;
	bool nonempty[JW_MAX_DEPTH];
} pr = { .f = NULL };

void print_init(FILE *f, bool json, bool pretty)
{
	memset(&pr, 0, sizeof(pr));
	pr.f = f;
	pr.json = json;
	pr.pretty = pretty;
}

FILE *print_file(void)
{
	return pr.f ? pr.f : stdout;
}

bool is_json_context(void)
{
	return pr.json;
}

void print_mute_text(bool mute)
{
	pr.mute_text = mute;
}

/* Whether a call of @type writes anything now. */
static bool want_json(enum output_type type)
{
	return pr.json && (type & PRINT_JSON);
}

static bool want_text(enum output_type type, const char *fmt)
{
	return !pr.json && !pr.mute_text && (type & PRINT_FP) && fmt;
}

/* ---- JSON writer ---- */

/* Length of the valid UTF-8 sequence starting at @s (1..4), or 0. */
static size_t utf8_seq_len(const unsigned char *s)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		if (c == 0xe0)
			lo = 0xa0;	/* overlong */
		if (c == 0xed)
			hi = 0x9f;	/* surrogates */
		if (s[1] < lo || s[1] > hi)
			return 0;
		return (s[2] & 0xc0) == 0x80 ? 3 : 0;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if (c == 0xf0)
			lo = 0x90;	/* overlong */
		if (c == 0xf4)
			hi = 0x8f;	/* > U+10FFFF */
		if (s[1] < lo || s[1] > hi)
			return 0;
		if ((s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80)
			return 0;
		return 4;
	}
	return 0;
}

/*
 * Writes @str as a JSON string.  Control characters are escaped, valid
 * UTF-8 passes through, every byte of invalid UTF-8 becomes U+FFFD so the
 * output is always valid JSON (device names are arbitrary bytes).
 */
void json_string(FILE *f, const char *str)
{
	static const char *const esc[0x20] = {
		['\b'] = "\\b", ['\f'] = "\\f", ['\n'] = "\\n",
		['\r'] = "\\r", ['\t'] = "\\t",
	};
	const unsigned char *s = (const unsigned char *)str;
	size_t n;

	fputc('"', f);
	while (*s) {
		unsigned char c = *s;

		if (c == '"' || c == '\\') {
			fputc('\\', f);
			fputc(c, f);
		} else if (c < 0x20 && esc[c]) {
			fputs(esc[c], f);
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
		} else if (c < 0x80) {
			fputc(c, f);
		} else {
			n = utf8_seq_len(s);
			if (n) {
				fwrite(s, 1, n, f);
				s += n;
				continue;
			}
			fputs("\\ufffd", f);
		}
		s++;
	}
	fputc('"', f);
}

static void jw_newline(void)
{
	int i;

	fputc('\n', pr.f);
	for (i = 0; i < pr.depth; i++)
		fputs("  ", pr.f);
}

/* Separator and indentation before a value or a key. */
static void jw_pre(void)
{
	if (pr.after_key) {
		pr.after_key = false;
		return;
	}
	if (!pr.depth)
		return;
	if (pr.nonempty[pr.depth])
		fputc(',', pr.f);
	pr.nonempty[pr.depth] = true;
	if (pr.pretty)
		jw_newline();
}

static void jw_key(const char *key)
{
	if (!key)
		return;
	jw_pre();
	json_string(pr.f, key);
	fputs(pr.pretty ? ": " : ":", pr.f);
	pr.after_key = true;
}

static void jw_open(const char *key, char c)
{
	jw_key(key);
	jw_pre();
	fputc(c, pr.f);
	if (pr.depth < JW_MAX_DEPTH - 1)
		pr.depth++;
	pr.nonempty[pr.depth] = false;
}

static void jw_close(char c)
{
	bool nonempty = pr.nonempty[pr.depth];

	if (pr.depth)
		pr.depth--;
	if (pr.pretty && nonempty)
		jw_newline();
	fputc(c, pr.f);
	if (!pr.depth)
		fputc('\n', pr.f);
}

void open_json_object(const char *key)
{
	if (pr.json)
		jw_open(key, '{');
}

void close_json_object(void)
{
	if (pr.json)
		jw_close('}');
}

void open_json_array(const char *key)
{
	if (pr.json)
		jw_open(key, '[');
}

void close_json_array(void)
{
	if (pr.json)
		jw_close(']');
}

/* ---- print_*() ---- */

static void text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void text(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(pr.f, fmt, ap);
	va_end(ap);
}

/*
 * The text formats are the caller's own literals, checked where they are
 * written; here they pass through as data.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

void print_string(enum output_type type, const char *key, const char *fmt,
		  const char *val)
{
	if (want_json(type)) {
		jw_key(key);
		jw_pre();
		if (val)
			json_string(pr.f, val);
		else
			fputs("null", pr.f);
	} else if (want_text(type, fmt)) {
		text(fmt, val ? val : "");
	}
}

void print_uint(enum output_type type, const char *key, const char *fmt,
		unsigned int val)
{
	print_u64(type, key, NULL, val);
	if (want_text(type, fmt))
		text(fmt, val);
}

void print_u64(enum output_type type, const char *key, const char *fmt,
	       u64 val)
{
	if (want_json(type)) {
		jw_key(key);
		jw_pre();
		fprintf(pr.f, "%" PRIu64, val);
	} else if (want_text(type, fmt)) {
		text(fmt, val);
	}
}

void print_bool(enum output_type type, const char *key, const char *fmt,
		bool val)
{
	if (want_json(type)) {
		jw_key(key);
		jw_pre();
		fputs(val ? "true" : "false", pr.f);
	} else if (want_text(type, fmt)) {
		text(fmt, val ? "true" : "false");
	}
}

void print_null(enum output_type type, const char *key, const char *fmt,
		const char *str)
{
	if (want_json(type)) {
		jw_key(key);
		jw_pre();
		fputs("null", pr.f);
	} else if (want_text(type, fmt)) {
		text(fmt, str ? str : "");
	}
}

void print_fmt(const char *fmt, ...)
{
	va_list ap;

	if (!want_text(PRINT_FP, fmt))
		return;
	va_start(ap, fmt);
	vfprintf(pr.f, fmt, ap);
	va_end(ap);
}

#pragma GCC diagnostic pop

/* ---- counters ---- */

void print_counters(const char *key, const char *(*name)(unsigned int),
		    unsigned int first, unsigned int last, const u64 *v,
		    u32 present, bool all_keys)
{
	unsigned int i;

	if (!pr.json)
		return;
	open_json_object(key);
	for (i = first; i <= last; i++) {
		const char *n = name(i);

		if (!n)
			continue;
		if (present & (1u << i))
			print_u64(PRINT_JSON, n, NULL, v[i]);
		else if (all_keys)
			print_null(PRINT_JSON, n, NULL, NULL);
	}
	close_json_object();
}

#define COUNTER_COLS_PER_ROW	6

static int col_width(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	return (int)(la > lb ? la : lb);
}

void print_counter_rows(const char *label, const char *const *hdr,
			char (*val)[24], size_t n)
{
	size_t i, j, k;

	if (!want_text(PRINT_FP, ""))
		return;
	for (i = 0; i < n; i += COUNTER_COLS_PER_ROW) {
		k = n - i < COUNTER_COLS_PER_ROW ? n - i : COUNTER_COLS_PER_ROW;
		text("    %-8s", i ? "" : label);
		for (j = i; j < i + k; j++)
			text(" %*s", col_width(hdr[j], val[j]), hdr[j]);
		text("\n    %-8s", "");
		for (j = i; j < i + k; j++)
			text(" %*s", col_width(hdr[j], val[j]), val[j]);
		fputc('\n', pr.f);
	}
}

/* ---- tables ---- */

void table_init(struct table *t, const char *indent)
{
	memset(t, 0, sizeof(*t));
	t->indent = indent;
}

unsigned int table_col(struct table *t, const char *hdr)
{
	if (t->ncols >= TABLE_MAX_COLS)
		return TABLE_MAX_COLS - 1;
	t->hdr[t->ncols] = hdr;
	return t->ncols++;
}

bool table_row(struct table *t)
{
	size_t c;
	void *v;

	if (!want_text(PRINT_FP, ""))
		return false;
	if (t->nrows == t->cap) {
		c = t->cap ? 2 * t->cap : 16;
		v = realloc(t->row, c * sizeof(*t->row));
		if (!v)
			return false;
		t->row = v;
		t->cap = c;
	}
	t->row[t->nrows].set = 0;
	t->nrows++;
	return true;
}

void table_cell(struct table *t, unsigned int col, const char *fmt, ...)
{
	va_list ap;

	if (!t->nrows || col >= TABLE_MAX_COLS || !want_text(PRINT_FP, fmt))
		return;
	va_start(ap, fmt);
	vsnprintf(t->row[t->nrows - 1].cell[col], TABLE_CELL, fmt, ap);
	va_end(ap);
	t->row[t->nrows - 1].set |= 1u << col;
}

void table_string(struct table *t, unsigned int col, const char *key,
		  const char *val)
{
	if (key)
		print_string(PRINT_JSON, key, NULL, val);
	if (val)
		table_cell(t, col, "%s", val);
}

void table_uint(struct table *t, unsigned int col, const char *key,
		unsigned int val)
{
	if (key)
		print_uint(PRINT_JSON, key, NULL, val);
	table_cell(t, col, "%u", val);
}

static const char *table_text(const struct table *t, size_t row,
			      unsigned int col)
{
	const struct table_row *r = &t->row[row];

	return r->set & (1u << col) ? r->cell[col] : "-";
}

/* One line: @row's cells, or (@row < 0) the headers. */
static void table_line(const struct table *t, const int *w, long row)
{
	unsigned int c;
	const char *s;

	text("%s", t->indent);
	for (c = 0; c < t->ncols; c++) {
		s = row < 0 ? t->hdr[c] : table_text(t, (size_t)row, c);
		if (c + 1 < t->ncols)
			text("%-*s  ", w[c], s);
		else
			text("%s\n", s);
	}
}

void table_print(struct table *t)
{
	int w[TABLE_MAX_COLS];
	unsigned int c;
	size_t r;

	if (want_text(PRINT_FP, "") && t->ncols) {
		for (c = 0; c < t->ncols; c++) {
			w[c] = (int)strlen(t->hdr[c]);
			for (r = 0; r < t->nrows; r++)
				if ((int)strlen(table_text(t, r, c)) > w[c])
					w[c] = (int)strlen(table_text(t, r, c));
		}
		table_line(t, w, -1);
		for (r = 0; r < t->nrows; r++)
			table_line(t, w, (long)r);
	}
	free(t->row);
	table_init(t, t->indent);
}
