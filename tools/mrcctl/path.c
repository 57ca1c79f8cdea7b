// SPDX-License-Identifier: GPL-2.0
/*
 * path.c - the paths of a peer (local rail, plane, entropy value): their
 * decoding, and their printing as a table or a JSON array.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mrcctl.h"
#include "nl.h"
#include "print.h"

/* How each path attribute is read; MNL_TYPE_UNSPEC: not stored. */
static const u8 path_attr_type[MRC_PATH_A_MAX + 1] = {
	[MRC_PATH_A_PLANE]		= MNL_TYPE_U32,
	[MRC_PATH_A_RAIL]		= MNL_TYPE_NUL_STRING,
	[MRC_PATH_A_ENTROPY]		= MNL_TYPE_U32,
	[MRC_PATH_A_LOCAL_QPN]		= MNL_TYPE_U32,
	[MRC_PATH_A_REMOTE_QPN]		= MNL_TYPE_U32,
	[MRC_PATH_A_STATE]		= MNL_TYPE_U8,
	[MRC_PATH_A_SRTT_US]		= MNL_TYPE_U32,
	[MRC_PATH_A_RTO_US]		= MNL_TYPE_U32,
	[MRC_PATH_A_INFLIGHT]		= MNL_TYPE_U32,
	[MRC_PATH_A_TX_PKTS]		= MNL_TYPE_U64,
	[MRC_PATH_A_ACKED_PKTS]		= MNL_TYPE_U64,
	[MRC_PATH_A_LOST_PKTS]		= MNL_TYPE_U64,
	[MRC_PATH_A_PROBES]		= MNL_TYPE_U64,
	[MRC_PATH_A_REPLIES]		= MNL_TYPE_U64,
	[MRC_PATH_A_TIMEOUTS]		= MNL_TYPE_U64,
	[MRC_PATH_A_STATE_CHANGES]	= MNL_TYPE_U64,
	[MRC_PATH_A_PREV_STATE]		= MNL_TYPE_U8,
	[MRC_PATH_A_INFLIGHT_BYTES]	= MNL_TYPE_U64,
	[MRC_PATH_A_TX_BYTES]		= MNL_TYPE_U64,
	[MRC_PATH_A_WEIGHT]		= MNL_TYPE_U32,
};

int path_attr_cb(const struct nlattr *a, void *data)
{
	struct path *pa = data;
	unsigned int t = mnl_attr_get_type(a);
	enum mnl_attr_data_type type;

	if (t > MRC_PATH_A_MAX || !path_attr_type[t])
		return MNL_CB_OK;	/* PAD, UNSPEC and newer attributes */
	type = path_attr_type[t];
	if (mnl_attr_validate(a, type) < 0)
		return bad_attr("path", t);
	switch (type) {
	case MNL_TYPE_U8:
		pa->v[t] = mnl_attr_get_u8(a);
		break;
	case MNL_TYPE_U32:
		pa->v[t] = mnl_attr_get_u32(a);
		break;
	case MNL_TYPE_U64:
		pa->v[t] = mnl_attr_get_u64(a);
		break;
	default:
		snprintf(pa->rail, sizeof(pa->rail), "%s", mnl_attr_get_str(a));
	}
	pa->present |= 1u << t;
	return MNL_CB_OK;
}

/* Order in which paths are listed: plane, rail, entropy value. */
int path_cmp(const void *a, const void *b)
{
	const struct path *x = a, *y = b;
	int c;

	if (x->v[MRC_PATH_A_PLANE] != y->v[MRC_PATH_A_PLANE])
		return x->v[MRC_PATH_A_PLANE] < y->v[MRC_PATH_A_PLANE] ? -1 : 1;
	c = strcmp(x->rail, y->rail);
	if (c)
		return c;
	if (x->v[MRC_PATH_A_ENTROPY] != y->v[MRC_PATH_A_ENTROPY])
		return x->v[MRC_PATH_A_ENTROPY] < y->v[MRC_PATH_A_ENTROPY] ?
		       -1 : 1;
	return 0;
}

/* A duration in microseconds, short: 812us, 1.25ms, 12.5ms, 1.50s. */
void fmt_us(char *buf, size_t sz, u64 us)
{
	if (us < 1000)
		snprintf(buf, sz, "%" PRIu64 "us", us);
	else if (us < 10000)
		snprintf(buf, sz, "%.2fms", us / 1000.0);
	else if (us < 1000000)
		snprintf(buf, sz, "%.1fms", us / 1000.0);
	else
		snprintf(buf, sz, "%.2fs", us / 1000000.0);
}

/* How a path field is written. */
enum { PC_NUM, PC_STR, PC_STATE, PC_US, PC_SHARE };

/*
 * The fields of a path in JSON order, each with its JSON key and its text
 * column (either may be absent).  @pos places the column in the table.
 */
static const struct path_field {
	const char *key;	/* NULL: text only */
	const char *hdr;	/* NULL: JSON only */
	unsigned int attr;
	u8 how;
	u8 pos;
	bool stats;		/* text column only with -s */
	/* only if sent (newer kernels): a column if some path has it, no null */
	bool if_sent;
} path_fields[] = {
	{ "plane", "PLANE", MRC_PATH_A_PLANE, PC_NUM, 0, false, false },
	{ "rail", "RAIL", MRC_PATH_A_RAIL, PC_STR, 1, false, false },
	{ "entropy", "EV", MRC_PATH_A_ENTROPY, PC_NUM, 2, false, false },
	{ "local_qpn", "LQPN", MRC_PATH_A_LOCAL_QPN, PC_NUM, 3, false, false },
	{ "remote_qpn", "RQPN", MRC_PATH_A_REMOTE_QPN, PC_NUM, 4, false,
	  false },
	{ "state", "STATE", MRC_PATH_A_STATE, PC_STATE, 5, false, false },
	{ "srtt_us", "SRTT", MRC_PATH_A_SRTT_US, PC_US, 6, false, false },
	{ "rto_us", "RTO", MRC_PATH_A_RTO_US, PC_US, 7, false, false },
	{ "inflight", "INFLIGHT", MRC_PATH_A_INFLIGHT, PC_NUM, 8, false,
	  false },
	{ "tx_pkts", "TX", MRC_PATH_A_TX_PKTS, PC_NUM, 9, true, false },
	{ "acked_pkts", "ACKED", MRC_PATH_A_ACKED_PKTS, PC_NUM, 10, true,
	  false },
	{ "lost_pkts", "LOST", MRC_PATH_A_LOST_PKTS, PC_NUM, 11, true, false },
	{ "probes", "PROBES", MRC_PATH_A_PROBES, PC_NUM, 12, true, false },
	{ "replies", "REPLIES", MRC_PATH_A_REPLIES, PC_NUM, 13, true, false },
	{ "timeouts", "TIMEOUTS", MRC_PATH_A_TIMEOUTS, PC_NUM, 14, true,
	  false },
	{ "state_changes", "CHANGES", MRC_PATH_A_STATE_CHANGES, PC_NUM, 15,
	  true, false },
	/* sched: share of the peer's bytes sent, load, weight */
	{ NULL, "SHARE", MRC_PATH_A_TX_BYTES, PC_SHARE, 16, false, true },
	{ "inflight_bytes", "INFL_BYTES", MRC_PATH_A_INFLIGHT_BYTES, PC_NUM,
	  17, false, true },
	{ "tx_bytes", "TX_BYTES", MRC_PATH_A_TX_BYTES, PC_NUM, 19, true,
	  true },
	{ "weight", "WEIGHT", MRC_PATH_A_WEIGHT, PC_NUM, 18, true, true },
	/* events */
	{ "prev_state", NULL, MRC_PATH_A_PREV_STATE, PC_STATE, 0, false,
	  true },
};

#define PATH_NFIELDS	ARRAY_SIZE(path_fields)
#define PATH_NPOS	20

static const char *path_state(const struct path *pa, unsigned int attr)
{
	return mrc_path_state_uapi_name((unsigned int)pa->v[attr]);
}

/* The text cell of field @f of @pa (present); @total: the peer's bytes. */
static void path_cell(struct table *t, unsigned int col,
		      const struct path *pa, const struct path_field *f,
		      u64 total)
{
	u64 v = pa->v[f->attr];
	char buf[32];

	switch (f->how) {
	case PC_STR:
		table_cell(t, col, "%s", pa->rail);
		break;
	case PC_STATE:
		table_cell(t, col, "%s", path_state(pa, f->attr));
		break;
	case PC_US:
		fmt_us(buf, sizeof(buf), v);
		table_cell(t, col, "%s", buf);
		break;
	case PC_SHARE:	/* this path's part of the peer's bytes sent */
		table_cell(t, col, "%.1f%%", total ? 100.0 * v / total : 0.0);
		break;
	default:
		table_cell(t, col, "%" PRIu64, v);
	}
}

/* Field @f of @pa into the current JSON object. */
static void path_json(const struct path *pa, const struct path_field *f,
		      bool all_keys)
{
	if (!f->key)
		return;
	if (!PHAS(pa, f->attr)) {
		if (all_keys && !f->if_sent)
			print_null(PRINT_JSON, f->key, NULL, NULL);
	} else if (f->how == PC_STR) {
		print_string(PRINT_JSON, f->key, NULL, pa->rail);
	} else if (f->how == PC_STATE) {
		print_string(PRINT_JSON, f->key, NULL, path_state(pa, f->attr));
	} else {
		print_u64(PRINT_JSON, f->key, NULL, pa->v[f->attr]);
	}
}

/* Whether the text table has a column for @f. */
static bool path_col_shown(const struct peer *p, const struct path_field *f)
{
	bool sent = !f->if_sent;
	size_t i;

	if (!f->hdr || (f->stats && !opt.stats))
		return false;
	for (i = 0; i < p->npaths && !sent; i++)
		sent = PHAS(&p->paths[i], f->attr);
	return sent;
}

/*
 *     PLANE  RAIL    EV  LQPN  RQPN  STATE   SRTT   RTO     INFLIGHT
 *     0      rxe0:1  0   17    18    active  812us  10.0ms  0
 *
 * or "paths": [ { "plane": 0, "rail": "rxe0:1", ... }, ... ].
 */
void paths_print(const struct peer *p, bool all_keys)
{
	unsigned int col[PATH_NFIELDS], pos, f;
	struct table t;
	u64 total = 0;
	size_t i;

	if (!p->npaths && !all_keys)
		return;
	for (i = 0; i < p->npaths; i++)
		total += p->paths[i].v[MRC_PATH_A_TX_BYTES];
	table_init(&t, "    ");
	for (f = 0; f < PATH_NFIELDS; f++)
		col[f] = TABLE_MAX_COLS;
	for (pos = 0; pos < PATH_NPOS; pos++)
		for (f = 0; f < PATH_NFIELDS; f++)
			if (path_fields[f].pos == pos &&
			    path_col_shown(p, &path_fields[f]))
				col[f] = table_col(&t, path_fields[f].hdr);

	open_json_array("paths");
	for (i = 0; i < p->npaths; i++) {
		const struct path *pa = &p->paths[i];

		table_row(&t);
		open_json_object(NULL);
		for (f = 0; f < PATH_NFIELDS; f++) {
			path_json(pa, &path_fields[f], all_keys);
			if (col[f] < TABLE_MAX_COLS &&
			    PHAS(pa, path_fields[f].attr))
				path_cell(&t, col[f], pa, &path_fields[f],
					  total);
		}
		close_json_object();
	}
	close_json_array();
	if (p->npaths)
		table_print(&t);
}

void path_event_print(const struct path *pa)
{
	if (PHAS(pa, MRC_PATH_A_PLANE))
		print_fmt(" plane %" PRIu64, pa->v[MRC_PATH_A_PLANE]);
	print_fmt(" %s", PHAS(pa, MRC_PATH_A_RAIL) ? pa->rail : "?");
	if (PHAS(pa, MRC_PATH_A_ENTROPY))
		print_fmt(" ev %" PRIu64, pa->v[MRC_PATH_A_ENTROPY]);
	print_fmt(" %s -> %s",
		  PHAS(pa, MRC_PATH_A_PREV_STATE) ?
		  path_state(pa, MRC_PATH_A_PREV_STATE) : "?",
		  PHAS(pa, MRC_PATH_A_STATE) ?
		  path_state(pa, MRC_PATH_A_STATE) : "?");
}
