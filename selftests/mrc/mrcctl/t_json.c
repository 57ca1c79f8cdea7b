// SPDX-License-Identifier: GPL-2.0
/*
 * t_json.c - mrcctl self-test: the JSON writer of print.c
 */
#include "selftest.h"

/* --- JSON --- */

static char *json_of(const char *s)
{
	cap_begin();
	json_string(out, s);
	return cap_end();
}

void json__escape(void)
{
	static const struct {
		const char *in, *exp;
	} c[] = {
		{ "", "\"\"" },
		{ "eth0", "\"eth0\"" },
		{ "a\"b", "\"a\\\"b\"" },
		{ "a\\b", "\"a\\\\b\"" },
		{ "a/b", "\"a/b\"" },
		{ "\b\f\n\r\t", "\"\\b\\f\\n\\r\\t\"" },
		{ "\x01\x1f", "\"\\u0001\\u001f\"" },
		{ "\x7f", "\"\\u007f\"" },
		{ "caf\xc3\xa9", "\"caf\xc3\xa9\"" },			/* é */
		{ "\xe2\x82\xac", "\"\xe2\x82\xac\"" },			/* € */
		{ "\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"" },		/* U+1F600 */
		{ "\xff", "\"\\ufffd\"" },
		{ "a\xc3", "\"a\\ufffd\"" },				/* truncated */
		{ "\xc3(", "\"\\ufffd(\"" },				/* bad continuation */
		{ "\xc0\xaf", "\"\\ufffd\\ufffd\"" },			/* overlong '/' */
		{ "\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"" },	/* overlong */
		{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"" },	/* surrogate */
		{ "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" }, /* > U+10FFFF */
		{ "\xe2\x82", "\"\\ufffd\\ufffd\"" },			/* truncated 3-byte */
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		char *got = json_of(c[i].in);

		CHECK_STR(got, c[i].exp);
		free(got);
	}
}

/*
 * A new temporary file @path ("/tmp/mrcctl-json-XXXXXX") for python3 to
 * check, open for writing; NULL if python3 is missing (check skipped).
 */
static FILE *py_file(char *path)
{
	int fd;

	if (system("python3 -c pass >/dev/null 2>&1")) {
		printf("# python3 missing: check skipped\n");
		return NULL;
	}
	fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd < 0)
		return NULL;
	return fdopen(fd, "w");
}

/* Runs @cmd, python3 checking the file @path; then removes the file. */
static void py_check(const char *cmd, const char *path)
{
	int rc = system(cmd);

	CHECK(rc == 0);
	unlink(path);
}

/* Every escaped string must parse as JSON (python3, when installed). */
void json__valid_per_python(void)
{
	static const char *const in[] = {
		"plain", "q\"uote", "back\\slash", "ctl\x01\x02\x1f\x7f",
		"nl\nx", "\xff\xfe", "\xc3", "\xed\xa0\x80", "caf\xc3\xa9",
		"\xf0\x9f\x98\x80", "\xf4\x90\x80\x80",
	};
	char path[] = "/tmp/mrcctl-json-XXXXXX";
	char cmd[256];
	unsigned int i;
	FILE *f;

	f = py_file(path);
	if (!f)
		return;
	print_init(f, true, false);
	open_json_array(NULL);
	for (i = 0; i < ARRAY_SIZE(in); i++)
		print_string(PRINT_JSON, NULL, NULL, in[i]);
	close_json_array();
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json,sys; a=json.load(open(sys.argv[1],encoding=\"utf-8\")); assert len(a)==%zu' %s",
		 ARRAY_SIZE(in), path);
	py_check(cmd, path);
}

void json__structure(void)
{
	char *got;

	cap_begin();
	print_init(out, true, false);
	open_json_array(NULL);
	open_json_object(NULL);
	print_uint(PRINT_JSON, "a", NULL, 1);
	open_json_array("b");
	close_json_array();
	print_string(PRINT_JSON, "c", NULL, NULL);
	print_bool(PRINT_JSON, "d", NULL, true);
	close_json_object();
	open_json_object(NULL);
	close_json_object();
	print_u64(PRINT_JSON, NULL, NULL, UINT64_MAX);
	close_json_array();
	got = cap_end();
	CHECK_STR(got,
		  "[{\"a\":1,\"b\":[],\"c\":null,\"d\":true},{},18446744073709551615]\n");
	free(got);

	cap_begin();
	print_init(out, true, true);
	open_json_array(NULL);
	open_json_object(NULL);
	print_uint(PRINT_JSON, "a", NULL, 1);
	open_json_array("b");
	close_json_array();
	open_json_array("c");
	print_u64(PRINT_JSON, NULL, NULL, 2);
	close_json_array();
	close_json_object();
	close_json_array();
	got = cap_end();
	CHECK_STR(got,
		  "[\n  {\n    \"a\": 1,\n    \"b\": [],\n    \"c\": [\n      2\n    ]\n  }\n]\n");
	free(got);

	cap_begin();
	print_init(out, true, false);
	open_json_array(NULL);
	close_json_array();
	got = cap_end();
	CHECK_STR(got, "[]\n");
	free(got);
}

/* Peer and event JSON parse (python3, when installed). */
void json__peer_valid_per_python(void)
{
	char path[] = "/tmp/mrcctl-json-XXXXXX";
	char buf[8192], cmd[512];
	struct peer_list l = { 0 };
	FILE *f;

	reset_state();
	f = py_file(path);
	if (!f)
		return;
	out = f;
	opt.json = opt.stats = true;
	print_init(out, true, false);
	peer_list_cb(mk_peer(buf, MRC_CMD_PEER_GET, 2, P_STATS), &l);
	peer_list_cb(mk_peer(buf, MRC_CMD_PEER_GET, 3, 0), &l);
	peer_list_print(&l);
	peer_list_free(&l);
	event_print(mk_peer(buf, MRC_CMD_PATH_STATE, 2, P_PREV));
	event_print(mk_peer(buf, MRC_CMD_PEER_ADDED, 2, 0));
	event_print(mk_rail(buf, MRC_CMD_RAIL_STATE, 0, "rxe0:1", "rxe0", 1,
			    "eth0", R_FULL | R_STATS | R_DROPS | R_PREV));
	fclose(f);
	out = stdout;
	print_init(out, false, false);
	opt.json = opt.stats = false;
	/* One JSON value per line. */
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json,sys; v=[json.loads(x) for x in open(sys.argv[1])]; "
		 "assert len(v)==4 and len(v[0])==2 and len(v[0][0][\"paths\"])==4 "
		 "and v[1][\"peer\"][\"paths\"][0][\"prev_state\"]==\"active\" "
		 "and v[3][\"rail\"][\"drops\"][\"truncated\"]==1' %s", path);
	py_check(cmd, path);
}

