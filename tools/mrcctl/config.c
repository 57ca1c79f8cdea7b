// SPDX-License-Identifier: GPL-2.0
/*
 * config.c - mrcctl config: the module knobs (mrc/core/config.c's table),
 * "config show" and "config set".
 */
#include <errno.h>
#include <string.h>

#include "mrcctl.h"
#include "nl.h"
#include "print.h"

_Static_assert(2 * MRC_KNOB_NR <= REQ_LABELS_MAX, "too many knobs");

static void knob_range(const struct mrc_knob *k, char *buf, size_t sz)
{
	snprintf(buf, sz, "%u..%u%s", k->min, k->max,
		 (k->flags & MRC_KNOB_POW2) ? " (pow2)" : "");
}

void known_keys(FILE *f, const char *sep)
{
	unsigned int i;

	for (i = 0; i < MRC_KNOB_NR; i++)
		fprintf(f, "%s%s", i ? sep : "", mrc_knobs[i].name);
}

static void usage_config(FILE *f)
{
	char range[64];
	unsigned int i;

	fprintf(f,
		"Usage: mrcctl [OPTIONS] config [ show [KEY...] ]\n"
		"       mrcctl config set KEY VALUE [KEY VALUE ...]\n"
		"       mrcctl config help\n"
		"where  KEY := { ");
	known_keys(f, " | ");
	fprintf(f,
		" }\n"
		"       VALUE := decimal or 0x hex, optional suffix K, M or G (x1024^n)\n"
		"\n"
		"Setting needs CAP_NET_ADMIN; the kernel checks ranges.  Keys:\n");
	for (i = 0; i < MRC_KNOB_NR; i++) {
		const struct mrc_knob *k = &mrc_knobs[i];

		knob_range(k, range, sizeof(range));
		fprintf(f, "  %-12s %s\n  %-12s range %s%s%s, default %u\n",
			k->name, k->help, "", range, k->unit[0] ? " " : "",
			k->unit, k->def);
	}
}

static int config_attr_cb(const struct nlattr *a, void *data)
{
	struct cfgvals *cv = data;
	unsigned int t = mnl_attr_get_type(a);
	const struct mrc_knob *k = mrc_knob_by_attr(t);

	if (!k || t == MRC_CONFIG_A_UNSPEC)
		return MNL_CB_OK;	/* newer knobs: ignored */
	if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
		return bad_attr("config", t);
	cv->val[k - mrc_knobs] = mnl_attr_get_u32(a);
	cv->has[k - mrc_knobs] = true;
	return MNL_CB_OK;
}

int config_parse(const struct nlattr *nest, struct cfgvals *cv)
{
	return mnl_attr_parse_nested(nest, config_attr_cb, cv) < 0 ? -1 : 0;
}

int config_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *nest;

	if (reply_nest(nlh, MRC_A_CONFIG, &nest))
		return MNL_CB_ERROR;
	if (nest && config_parse(nest, data))
		return MNL_CB_ERROR;
	return MNL_CB_OK;
}

/*
 * NAME       VALUE  UNIT   RANGE              DEFAULT
 * max_rails  64            1..1024            64
 *
 * or [ { "name": "max_rails", "value": 64, "unit": "", "min": 1, ... } ].
 */
void config_print(const struct cfgvals *cv, const bool *sel)
{
	char range[64];
	struct table t;
	int i;

	table_init(&t, "");
	table_col(&t, "NAME");
	table_col(&t, "VALUE");
	table_col(&t, "UNIT");
	table_col(&t, "RANGE");
	table_col(&t, "DEFAULT");
	open_json_array(NULL);
	for (i = 0; i < MRC_KNOB_NR; i++) {
		const struct mrc_knob *k = &mrc_knobs[i];

		if (!sel[i])
			continue;
		table_row(&t);
		open_json_object(NULL);
		table_string(&t, 0, "name", k->name);
		if (cv->has[i])
			table_uint(&t, 1, "value", cv->val[i]);
		else
			table_string(&t, 1, "value", NULL);
		table_string(&t, 2, "unit", k->unit);
		knob_range(k, range, sizeof(range));
		table_string(&t, 3, NULL, range);
		print_uint(PRINT_JSON, "min", NULL, k->min);
		print_uint(PRINT_JSON, "max", NULL, k->max);
		table_uint(&t, 4, "default", k->def);
		print_bool(PRINT_JSON, "pow2", NULL, k->flags & MRC_KNOB_POW2);
		close_json_object();
	}
	close_json_array();
	table_print(&t);
}

static void unknown_key(const char *key)
{
	fprintf(stderr, "Error: unknown key \"%s\"; known keys: ", key);
	known_keys(stderr, ", ");
	fputc('\n', stderr);
}

int config_fetch(struct cfgvals *cv)
{
	char buf[256];
	struct nlmsghdr *nlh;

	memset(cv, 0, sizeof(*cv));
	nlh = mrc_put(buf, MRC_CMD_CONFIG_GET, NLM_F_ACK);
	return nl_request(nlh, config_cb, cv);
}

static int do_config_show(int argc, char **argv)
{
	struct cfgvals cv = { 0 };
	bool sel[MRC_KNOB_NR];
	int i;

	for (i = 0; i < MRC_KNOB_NR; i++)
		sel[i] = !argc;
	for (i = 0; i < argc; i++) {
		const struct mrc_knob *k = mrc_knob_by_name(argv[i]);

		if (!k) {
			if (matches(argv[i], "help")) {
				usage_config(stdout);
				return 0;
			}
			unknown_key(argv[i]);
			return 1;
		}
		sel[k - mrc_knobs] = true;
	}
	if (mrc_connect())
		return 1;
	if (config_fetch(&cv) < 0) {
		nlerr_print();
		return 1;
	}
	config_print(&cv, sel);
	return 0;
}

static int do_config_set(int argc, char **argv)
{
	const struct mrc_knob *ks[2 * MRC_KNOB_NR];
	u32 vals[2 * MRC_KNOB_NR];
	char buf[1024];
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	unsigned int n = 0, j;
	int i, rc;
	u64 v;

	if (argc < 1) {
		fprintf(stderr,
			"Error: config set needs KEY VALUE, try \"mrcctl config help\"\n");
		return 1;
	}
	for (i = 0; i < argc; i += 2) {
		const struct mrc_knob *k = mrc_knob_by_name(argv[i]);

		if (!k) {
			unknown_key(argv[i]);
			return 1;
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "Error: missing value for key \"%s\"\n",
				argv[i]);
			return 1;
		}
		for (j = 0; j < n; j++)
			if (ks[j] == k) {
				fprintf(stderr, "Error: key \"%s\" given twice\n",
					k->name);
				return 1;
			}
		rc = mrc_parse_u64(argv[i + 1], &v);
		if (rc == -ERANGE || (!rc && v > U32_MAX)) {
			/* An encoding limit (u32 attribute), not the range. */
			fprintf(stderr,
				"Error: value \"%s\" for key \"%s\" is too large (at most %u)\n",
				argv[i + 1], k->name, U32_MAX);
			return 1;
		}
		if (rc) {
			fprintf(stderr,
				"Error: invalid value \"%s\" for key \"%s\" (expected a number: decimal or 0x hex, optional suffix K, M or G)\n",
				argv[i + 1], k->name);
			return 1;
		}
		ks[n] = k;
		vals[n] = (u32)v;
		n++;
	}

	if (mrc_connect())
		return 1;
	nlh = mrc_put(buf, MRC_CMD_CONFIG_SET, NLM_F_ACK);
	nest = mnl_attr_nest_start(nlh, MRC_A_CONFIG);
	req_nlabels = 0;
	for (j = 0; j < n; j++) {
		req_label(nlh, "key %s", ks[j]->name);
		mnl_attr_put_u32(nlh, ks[j]->attr, vals[j]);
	}
	mnl_attr_nest_end(nlh, nest);
	if (nl_request(nlh, NULL, NULL) < 0) {
		nlerr_print();
		return 1;
	}
	return 0;
}

static const struct mrcctl_cmd config_cmds[] = {
	{ "show", 0, do_config_show },
	{ "list", 0, do_config_show },
	{ "set", 2, do_config_set },	/* "s" is show */
	{ NULL, 0, NULL }
};

int do_config(int argc, char **argv)
{
	return mrcctl_cmd_run(config_cmds, argc, argv, usage_config, "config");
}
