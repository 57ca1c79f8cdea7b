// SPDX-License-Identifier: GPL-2.0
/*
 * selftest.c - the mrcctl self-test's runner (TAP 13) and its helpers;
 * the tests are in t_*.c.  Exits 0 only if every test passed.
 */
#include "selftest.h"

bool t_failed;
FILE *out;

void t_show(const char *label, const char *s)
{
	printf("# %s: \"", label);
	for (; s && *s; s++) {
		if (*s == '\n')
			fputs("\\n", stdout);
		else
			putchar(*s);
	}
	printf("\"\n");
}

static char *cap_buf;
static size_t cap_len;

void cap_begin(void)
{
	cap_buf = NULL;
	cap_len = 0;
	out = open_memstream(&cap_buf, &cap_len);
	if (!out) {
		perror("open_memstream");
		exit(2);
	}
	print_init(out, opt.json, opt.pretty);
}

/* Returns what was printed since cap_begin(); free() it. */
char *cap_end(void)
{
	fclose(out);
	out = stdout;
	print_init(out, opt.json, opt.pretty);
	return cap_buf;
}

void reset_state(void)
{
	memset(&opt, 0, sizeof(opt));
	memset(&nlerr, 0, sizeof(nlerr));
	memset(&mon_cfg, 0, sizeof(mon_cfg));
	req_nlabels = 0;
	mon_filter = MON_ALL;
	mrc_family = 0x1234;
	print_init(out, false, false);
}

static const struct {
	const char *name;
	void (*fn)(void);
	bool (*skip)(void);
} tests[] = {
#define T(fn)		{ #fn, fn, NULL }
#define T_SKIP(fn, s)	{ #fn, fn, s }
	T(json__escape),
	T(json__valid_per_python),
	T(json__structure),
	T(rail__plain),
	T(rail__plain_stats),
	T(rail__json),
	T(rail__malformed),
	T(rail__filter),
	T(peer__plain),
	T(peer__plain_minimal),
	T(peer__sched),
	T(event__class_fallback),
	T(peer__json),
	T(peer__credit),
	T(peer__list_sorted),
	T(peer__malformed),
	T(peer__fmt_us),
	T(parse__node),
	T(parse__addrs),
	T(config__table),
	T(event__plain),
	T(event__json),
	T(event__peer_plain),
	T(event__peer_json),
	T(error__extack),
	T(error__peer),
	T(json__peer_valid_per_python),
	T(error__dump_done),
	T(misc__matches),
	T(misc__dispatch),
	T(cli__help_and_version),
	T(cli__usage_errors),
	T(cli__peer_usage_errors),
	T_SKIP(cli__module_not_loaded, cli__module_not_loaded_skip),
	/* the output layer and the command tables */
	T(print__forms),
	T(print__table),
	T(misc__commands),
#undef T
#undef T_SKIP
};

int main(void)
{
	unsigned int i, failed = 0;

	out = stdout;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n1..%zu\n", ARRAY_SIZE(tests));
	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		if (tests[i].skip && tests[i].skip()) {
			printf("ok %u - %s # SKIP mrc family registered or netlink unusable\n",
			       i + 1, tests[i].name);
			continue;
		}
		t_failed = false;
		reset_state();
		tests[i].fn();
		printf("%sok %u - %s\n", t_failed ? "not " : "", i + 1,
		       tests[i].name);
		failed += t_failed;
	}
	printf("# %u of %zu failed\n", failed, ARRAY_SIZE(tests));
	return failed ? 1 : 0;
}
