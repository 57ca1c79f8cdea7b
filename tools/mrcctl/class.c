// SPDX-License-Identifier: GPL-2.0
/*
 * class.c - mrcctl class: the traffic classes and the rails each may use
 * (rail isolation), "class show" and "class set"; and the names of the
 * classes and of the path scheduling policies.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mrcctl.h"
#include "nl.h"
#include "print.h"

/* The names are mrc/core/names.c's, the module's own words. */
const char *class_name(u32 id)
{
	const char *n = mrc_sched_class_name(id);

	return n ? n : "unknown";
}

const char *sched_policy_name(u64 v)
{
	const char *n = v <= 255 ? mrc_sched_policy_name((unsigned int)v) :
			NULL;

	return n ? n : "unknown";
}

/*
 * @s by its name (@parse), or a number, passed as is: the kernel judges
 * it (extack); -1 if neither.
 */
static int name_index(int (*parse)(const char *name), const char *s)
{
	unsigned long v;
	char *end;
	int i;

	i = parse(s);
	if (i >= 0)
		return i;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (!errno && *s && !*end && v <= 255)
		return (int)v;
	return -1;
}

/* A policy by name, or a number (the kernel judges it); -1 if neither. */
int sched_policy_index(const char *s)
{
	return name_index(mrc_sched_policy_parse, s);
}

static void usage_class(FILE *f)
{
	fprintf(f,
		"Usage: mrcctl [OPTIONS] class [ show [ CLASS ] ]\n"
		"       mrcctl class set CLASS rails { RAIL[,RAIL...] | all }\n"
		"       mrcctl class help\n"
		"where  CLASS := { default | latency | bulk | background }\n"
		"       RAIL := IBDEV:PORT, e.g. rxe1:1\n"
		"\n"
		"Maps a traffic class to the rails its traffic may use (rail\n"
		"isolation; all rails by default).  Endpoints choose a class\n"
		"(/dev/mrc MRC_OPT_CLASS, mrc_ep_set_class()).  A class mapped\n"
		"to no existing or no active rail is refused; if its rails all\n"
		"die later, its traffic falls back to the other rails and\n"
		"\"mrcctl monitor\" shows a class_fallback event.  set needs\n"
		"CAP_NET_ADMIN.\n");
}

struct class_row {
	u32 id;
	bool all;
	char rails[1024];
};

struct class_list {
	struct class_row v[8];
	unsigned int n;
};

static int class_rail_cb(const struct nlattr *a, void *data)
{
	struct class_row *c = data;
	size_t len = strlen(c->rails);

	if (mnl_attr_get_type(a) != MRC_CLASS_A_RAIL)
		return MNL_CB_OK;
	if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
		return bad_attr("class rail", MRC_CLASS_A_RAIL);
	snprintf(c->rails + len, sizeof(c->rails) - len, "%s%s",
		 len ? "," : "", mnl_attr_get_str(a));
	return MNL_CB_OK;
}

static int class_attr_cb(const struct nlattr *a, void *data)
{
	struct class_row *c = data;

	switch (mnl_attr_get_type(a)) {
	case MRC_CLASS_A_ID:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return bad_attr("class", MRC_CLASS_A_ID);
		c->id = mnl_attr_get_u32(a);
		break;
	case MRC_CLASS_A_RAILS:
		c->all = false;
		if (mnl_attr_parse_nested(a, class_rail_cb, c) < 0)
			return MNL_CB_ERROR;
		break;
	}
	return MNL_CB_OK;
}

static int class_list_cb(const struct nlmsghdr *nlh, void *data)
{
	struct class_list *l = data;
	const struct nlattr *nest;
	struct class_row *c;

	if (reply_nest(nlh, MRC_A_CLASS, &nest))
		return MNL_CB_ERROR;
	if (!nest || l->n >= ARRAY_SIZE(l->v))
		return MNL_CB_OK;
	c = &l->v[l->n];
	memset(c, 0, sizeof(*c));
	c->all = true;
	if (mnl_attr_parse_nested(nest, class_attr_cb, c) < 0)
		return MNL_CB_ERROR;
	l->n++;
	return MNL_CB_OK;
}

static void class_list_reset(void *data)
{
	((struct class_list *)data)->n = 0;
}

/* "class latency rails rxe1:1", or [ { "class": "latency", "rails": ... } ] */
static void class_list_print(const struct class_list *l)
{
	unsigned int i;

	open_json_array(NULL);
	for (i = 0; i < l->n; i++) {
		open_json_object(NULL);
		print_string(PRINT_ANY, "class", "class %s",
			     class_name(l->v[i].id));
		print_string(PRINT_ANY, "rails", " rails %s\n",
			     l->v[i].all ? "all" : l->v[i].rails);
		close_json_object();
	}
	close_json_array();
}

static int do_class_show(int argc, char **argv)
{
	struct class_list l = { .n = 0 };
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	char buf[256];
	int cls = -1, ret;

	if (argc > 0 && matches(argv[0], "help")) {
		usage_class(stdout);
		return 0;
	}
	if (argc > 0) {
		cls = name_index(mrc_sched_class_parse, argv[0]);
		if (cls < 0) {
			fprintf(stderr,
				"Error: unknown class \"%s\" (default, latency, bulk, background)\n",
				argv[0]);
			return 1;
		}
		argc--;
		argv++;
	}
	if (argc > 0)
		return try_help("unexpected argument", argv[0], "class");
	if (mrc_connect())
		return 1;
	if (cls >= 0) {
		nlh = mrc_put(buf, MRC_CMD_CLASS_GET, NLM_F_ACK);
		nest = mnl_attr_nest_start(nlh, MRC_A_CLASS);
		mnl_attr_put_u32(nlh, MRC_CLASS_A_ID, cls);
		mnl_attr_nest_end(nlh, nest);
		ret = nl_request(nlh, class_list_cb, &l);
	} else {
		ret = mrc_dump(MRC_CMD_CLASS_GET, class_list_cb, &l,
			       class_list_reset);
	}
	if (ret < 0) {
		nlerr_print();
		return 1;
	}
	class_list_print(&l);
	return 0;
}

static int do_class_set(int argc, char **argv)
{
	struct nlattr *nest, *rnest;
	struct nlmsghdr *nlh;
	char buf[4096], list[1024], *tok, *save;
	int cls;

	if (argc > 0 && matches(argv[0], "help")) {
		usage_class(stdout);
		return 0;
	}
	if (argc != 3 || strcmp(argv[1], "rails")) {
		fprintf(stderr,
			"Error: class set needs CLASS rails { RAIL[,RAIL...] | all }, try \"mrcctl class help\"\n");
		return 1;
	}
	cls = name_index(mrc_sched_class_parse, argv[0]);
	if (cls < 0) {
		fprintf(stderr,
			"Error: unknown class \"%s\" (default, latency, bulk, background)\n",
			argv[0]);
		return 1;
	}
	if (strlen(argv[2]) >= sizeof(list)) {
		fprintf(stderr, "Error: rail list too long\n");
		return 1;
	}
	if (mrc_connect())
		return 1;
	nlh = mrc_put(buf, MRC_CMD_CLASS_SET, NLM_F_ACK);
	nest = mnl_attr_nest_start(nlh, MRC_A_CLASS);
	mnl_attr_put_u32(nlh, MRC_CLASS_A_ID, cls);
	req_nlabels = 0;
	if (!strcmp(argv[2], "all")) {
		mnl_attr_put(nlh, MRC_CLASS_A_ALL, 0, NULL);
	} else {
		snprintf(list, sizeof(list), "%s", argv[2]);
		rnest = mnl_attr_nest_start(nlh, MRC_CLASS_A_RAILS);
		for (tok = strtok_r(list, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save)) {
			if (strlen(tok) >= MRC_RAIL_NAME_MAX) {
				fprintf(stderr, "Error: rail name \"%s\" too long\n",
					tok);
				return 1;
			}
			req_label(nlh, "rail %s", tok);
			mnl_attr_put_strz(nlh, MRC_CLASS_A_RAIL, tok);
		}
		mnl_attr_nest_end(nlh, rnest);
	}
	mnl_attr_nest_end(nlh, nest);
	if (nl_request(nlh, NULL, NULL) < 0) {
		nlerr_print();
		return 1;
	}
	return 0;
}

static const struct mrcctl_cmd class_cmds[] = {
	{ "show", 0, do_class_show },
	{ "list", 0, do_class_show },
	{ "set", 2, do_class_set },	/* "s" is show */
	{ NULL, 0, NULL }
};

int do_class(int argc, char **argv)
{
	return mrcctl_cmd_run(class_cmds, argc, argv, usage_class, "class");
}
