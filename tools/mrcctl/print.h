/* SPDX-License-Identifier: GPL-2.0 */
/*
 * print.h - mrcctl's one output layer.  Each print_*() call names what it
 * prints for both forms: the JSON key and the text format.  With -j only
 * the JSON form is written, else only the text form; @type limits a call
 * to one of the two (PRINT_FP: text only, PRINT_JSON: JSON only).
 *
 *   print_uint(PRINT_ANY, "mtu", "  mtu %u", r->mtu);
 *
 * writes "  mtu 4096" as text, "mtu":4096 into the current JSON object.
 * The JSON writer escapes every string (always valid JSON, whatever bytes
 * a device name holds) and indents with -p.
 */
#ifndef _MRCCTL_PRINT_H
#define _MRCCTL_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "mrc/core/compat.h"

enum output_type {
	PRINT_FP	= 1,	/* the text form */
	PRINT_JSON	= 2,	/* the JSON form */
	PRINT_ANY	= PRINT_FP | PRINT_JSON,
};

/*
 * Output goes to @f from now on, as JSON if @json (indented if @pretty),
 * else as text.  The JSON nesting starts again at the top level.
 */
void print_init(FILE *f, bool json, bool pretty);
FILE *print_file(void);
bool is_json_context(void);
/* While @mute, text output is dropped (JSON of an object shown as text). */
void print_mute_text(bool mute);

/*
 * JSON objects and arrays: @key names them inside an object, NULL inside
 * an array or at the top level (where closing the outermost ends the line).
 * Nothing in text.
 */
void open_json_object(const char *key);
void close_json_object(void);
void open_json_array(const char *key);
void close_json_array(void);

/*
 * "@key": value in JSON (@key NULL: a bare value, in an array); @fmt with
 * the value in text (@fmt NULL: nothing).  A NULL string is JSON null.
 */
void print_string(enum output_type type, const char *key, const char *fmt,
		  const char *val);
void print_uint(enum output_type type, const char *key, const char *fmt,
		unsigned int val);
/* The same for a u64: @fmt takes it with PRIu64. */
void print_u64(enum output_type type, const char *key, const char *fmt,
	       u64 val);
void print_bool(enum output_type type, const char *key, const char *fmt,
		bool val);
/* "@key": null in JSON; @fmt with @text in text. */
void print_null(enum output_type type, const char *key, const char *fmt,
		const char *text);
/* Text only, printf-like. */
void print_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* @str as a JSON string on @f: the writer's escaping. */
void json_string(FILE *f, const char *str);

/*
 * Counters @first..@last of @v that have a @name, as the JSON object
 * "@key": { name: value, ... }: null where not in @present (1 << index),
 * or left out unless @all_keys.  Nothing in text.
 */
void print_counters(const char *key, const char *(*name)(unsigned int),
		    unsigned int first, unsigned int last, const u64 *v,
		    u32 present, bool all_keys);

/*
 * Text only: "    @label" then pairs of lines like "ip -s link", the
 * headers @hdr and under them the right-aligned values @val, six columns
 * to a pair.
 */
void print_counter_rows(const char *label, const char *const *hdr,
			char (*val)[24], size_t n);

/*
 * A text table: every column as wide as its widest cell, two blanks
 * apart, the last not padded, each line after @indent.  Cells are set in
 * any order (a column's place is fixed when it is added); cells not set
 * print "-".  In JSON the table does nothing.
 */
#define TABLE_MAX_COLS	24
#define TABLE_CELL	96

struct table_row {
	u32 set;				/* 1 << column */
	char cell[TABLE_MAX_COLS][TABLE_CELL];
};

struct table {
	const char *indent;
	unsigned int ncols;
	const char *hdr[TABLE_MAX_COLS];
	struct table_row *row;
	size_t nrows, cap;
};

void table_init(struct table *t, const char *indent);
/* Adds a column headed @hdr after the others; returns its index. */
unsigned int table_col(struct table *t, const char *hdr);
/* Starts a new row (false: out of memory, the row is dropped). */
bool table_row(struct table *t);
/* Cell @col of the current row. */
void table_cell(struct table *t, unsigned int col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * A cell that is also a JSON field: "@key": @val into the current JSON
 * object (@key NULL: none; a NULL string is null), or @val into cell @col
 * of the current row (@col TABLE_MAX_COLS: none; a NULL string stays "-").
 */
void table_string(struct table *t, unsigned int col, const char *key,
		  const char *val);
void table_uint(struct table *t, unsigned int col, const char *key,
		unsigned int val);
/* Prints the table (text only) and frees it. */
void table_print(struct table *t);

#endif /* _MRCCTL_PRINT_H */
