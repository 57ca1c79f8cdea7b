// SPDX-License-Identifier: GPL-2.0
/*
 * t_print.c - mrcctl self-test: the output layer's two forms, its text
 * tables, and command dispatch by abbreviation.
 */
#include "selftest.h"

/* One call, both forms: the text with -j off, the JSON with it on. */
void print__forms(void)
{
	char *got;
	int json;

	for (json = 0; json < 2; json++) {
		opt.json = json;
		cap_begin();
		open_json_object(NULL);
		print_uint(PRINT_ANY, "mtu", "mtu %u", 4096);
		print_string(PRINT_FP, NULL, " (%s)", "text only");
		print_u64(PRINT_JSON, "bytes", " never %" PRIu64, 1ULL << 40);
		print_null(PRINT_ANY, "gid", " gid %s", "-");
		print_bool(PRINT_ANY, "up", " up %s", true);
		open_json_array("addrs");
		print_string(PRINT_ANY, NULL, " %s", "10.0.0.1");
		print_string(PRINT_ANY, NULL, ",%s", "fd00::1");
		close_json_array();
		print_mute_text(true);
		print_fmt(" muted");
		print_string(PRINT_ANY, "state", " %s", "active");
		print_mute_text(false);
		print_fmt("\n");
		close_json_object();
		got = cap_end();
		CHECK_STR(got, json ?
			  "{\"mtu\":4096,\"bytes\":1099511627776,\"gid\":null,"
			  "\"up\":true,\"addrs\":[\"10.0.0.1\",\"fd00::1\"],"
			  "\"state\":\"active\"}\n" :
			  "mtu 4096 (text only) gid - up true 10.0.0.1,fd00::1\n");
		free(got);
	}
}

/* Columns as wide as their widest cell, "-" where nothing was set. */
void print__table(void)
{
	struct table t;
	char *got;

	cap_begin();
	table_init(&t, "  ");
	table_col(&t, "NAME");
	table_col(&t, "VALUE");
	table_col(&t, "UNIT");
	table_row(&t);
	table_string(&t, 0, "name", "max_rails");
	table_uint(&t, 1, "value", 64);
	table_string(&t, 2, "unit", "");
	table_row(&t);
	table_cell(&t, 2, "%s", "bytes");
	table_cell(&t, 0, "%s", "min_mtu");
	table_print(&t);
	got = cap_end();
	CHECK_STR(got,
		  "  NAME       VALUE  UNIT\n"
		  "  max_rails  64     \n"
		  "  min_mtu    -      bytes\n");
	free(got);

	/* With -j a table writes nothing but its JSON fields. */
	opt.json = true;
	cap_begin();
	table_init(&t, "");
	table_col(&t, "NAME");
	open_json_object(NULL);
	table_row(&t);
	table_string(&t, 0, "name", "entropy");
	table_string(&t, 0, "unit", NULL);
	close_json_object();
	table_print(&t);
	got = cap_end();
	CHECK_STR(got, "{\"name\":\"entropy\",\"unit\":null}\n");
	free(got);
}

static int ran;

static int cmd_show(int argc, char **argv)
{
	(void)argv;
	ran = 100 + argc;
	return 0;
}

static int cmd_set(int argc, char **argv)
{
	(void)argv;
	ran = 200 + argc;
	return 0;
}

static void usage_test(FILE *f)
{
	fprintf(f, "usage\n");
	ran = 300;
}

/* The first command a word abbreviates wins; "set" needs "se". */
void misc__commands(void)
{
	static const struct mrcctl_cmd cmds[] = {
		{ "show", 0, cmd_show },
		{ "list", 0, cmd_show },
		{ "set", 2, cmd_set },
		{ NULL, 0, NULL }
	};
	static const struct {
		const char *word;
		int ran, rc;
	} c[] = {
		{ "s", 101, 0 }, { "sh", 101, 0 }, { "show", 101, 0 },
		{ "l", 101, 0 }, { "se", 201, 0 }, { "set", 201, 0 },
		{ "h", 300, 0 }, { "help", 300, 0 }, { "sets", 0, 1 },
		{ "x", 0, 1 }, { "", 0, 1 },
	};
	char arg[] = "arg", *argv[3] = { NULL, arg, NULL };
	int saved = dup(1), devnull = open("/dev/null", O_WRONLY);
	int saved2 = dup(2), rc;
	unsigned int i;

	fflush(stdout);
	fflush(stderr);
	dup2(devnull, 1);	/* usage and errors */
	dup2(devnull, 2);
	ran = 0;
	rc = mrcctl_cmd_run(cmds, 0, argv, usage_test, "test");
	CHECK(rc == 0 && ran == 100);	/* no word: show */
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		ran = 0;
		argv[0] = (char *)c[i].word;
		rc = mrcctl_cmd_run(cmds, 2, argv, usage_test, "test");
		CHECK(rc == c[i].rc && ran == c[i].ran);
	}
	fflush(stdout);
	fflush(stderr);
	dup2(saved, 1);
	dup2(saved2, 2);
	close(saved);
	close(saved2);
	close(devnull);
}
