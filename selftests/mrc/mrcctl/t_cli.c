// SPDX-License-Identifier: GPL-2.0
/*
 * t_cli.c - mrcctl self-test: the mrcctl binary ($MRCCTL): help, usage errors, no module
 */
#include "selftest.h"

/* --- the real binary ($MRCCTL) --- */

struct run {
	int status;		/* exit code, or -1 */
	char out[8192], err[8192];
};

static void slurp(FILE *f, char *buf, size_t sz)
{
	size_t n;

	rewind(f);
	n = fread(buf, 1, sz - 1, f);
	buf[n] = '\0';
	fclose(f);
}

static void run_cli(struct run *r, const char *const *argv)
{
	const char *bin = getenv("MRCCTL");
	FILE *fo = tmpfile(), *fe = tmpfile();
	char *args[32];
	pid_t pid;
	int st, i;

	memset(r, 0, sizeof(*r));
	r->status = -1;
	if (!fo || !fe)
		return;
	args[0] = (char *)bin;
	for (i = 0; argv[i] && i < 30; i++)
		args[i + 1] = (char *)argv[i];
	args[i + 1] = NULL;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		dup2(fileno(fo), 1);
		dup2(fileno(fe), 2);
		execv(bin, args);
		_exit(127);
	}
	if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st))
		r->status = WEXITSTATUS(st);
	slurp(fo, r->out, sizeof(r->out));
	slurp(fe, r->err, sizeof(r->err));
}

#define RUN(r, ...) run_cli(r, (const char *const[]){ __VA_ARGS__, NULL })

static bool have_cli(void)
{
	const char *bin = getenv("MRCCTL");

	if (bin && !access(bin, X_OK))
		return true;
	printf("# $MRCCTL not set or not executable: check skipped\n");
	return false;
}

void cli__help_and_version(void)
{
	struct run r;

	if (!have_cli())
		return;
	RUN(&r, "-V");
	CHECK(r.status == 0 && strstr(r.out, "mrcctl ") &&
	      strstr(r.out, "(mrc netlink version 2)"));
	RUN(&r, "--version");
	CHECK(r.status == 0 && strstr(r.out, "mrc netlink version"));
	RUN(&r, "help");
	CHECK(r.status == 0 && !strncmp(r.out, "Usage: mrcctl", 13) && !*r.err);
	RUN(&r, "-h");
	CHECK(r.status == 0 && strstr(r.out, "--json"));
	RUN(&r, "rail", "help");
	CHECK(r.status == 0 && !strncmp(r.out, "Usage: mrcctl [OPTIONS] rail", 28));
	RUN(&r, "r", "s", "help");
	CHECK(r.status == 0 && !strncmp(r.out, "Usage: mrcctl [OPTIONS] rail", 28));
	RUN(&r, "config", "help");
	CHECK(r.status == 0 && strstr(r.out, "min_mtu") &&
	      strstr(r.out, "range 256..4096 (pow2) bytes, default 1024"));
	RUN(&r, "monitor", "help");
	CHECK(r.status == 0 && strstr(r.out, "[rail state]") &&
	      strstr(r.out, "[path state] node 2 plane 1 rxe1:1 ev 3 active -> assumed-bad"));
	RUN(&r, "peer", "help");
	CHECK(r.status == 0 && !strncmp(r.out, "Usage: mrcctl [OPTIONS] peer", 28) &&
	      strstr(r.out, "PLANE RAIL EV LQPN RQPN STATE SRTT RTO INFLIGHT") &&
	      !*r.err);
	RUN(&r, "p", "a", "help");
	CHECK(r.status == 0 && !strncmp(r.out, "Usage: mrcctl [OPTIONS] peer", 28));
	RUN(&r, "peer", "show", "help");
	CHECK(r.status == 0 && !strncmp(r.out, "Usage: mrcctl [OPTIONS] peer", 28));
	RUN(&r, "config", "help");
	CHECK(r.status == 0 &&
	      strstr(r.out, "range 0..2147483647, default 0\n") &&
	      strstr(r.out, "range 1..24 QPs, default 8\n") &&
	      strstr(r.out, "range 10..10000 ms, default 250\n"));
}

void cli__usage_errors(void)
{
	struct run r;

	if (!have_cli())
		return;
	RUN(&r, "-x");
	CHECK(r.status == 1 && strstr(r.err, "Error: unknown option \"-x\""));
	RUN(&r, "--bogus");
	CHECK(r.status == 1 && strstr(r.err, "Error: bad option \"--bogus\""));
	run_cli(&r, (const char *const[]){ NULL });
	CHECK(r.status == 1 && strstr(r.err, "Usage:"));
	RUN(&r, "frob");
	CHECK(r.status == 1 &&
	      !strcmp(r.err, "Error: unknown object \"frob\", try \"mrcctl help\"\n"));
	RUN(&r, "rail", "frob");
	CHECK(r.status == 1 && strstr(r.err, "Error: unknown command \"frob\""));
	RUN(&r, "rail", "show", "a", "b");
	CHECK(r.status == 1 && strstr(r.err, "unexpected argument \"b\""));
	RUN(&r, "rail", "show", "id", "x");
	CHECK(r.status == 1 && strstr(r.err, "invalid rail id \"x\""));
	RUN(&r, "config", "set");
	CHECK(r.status == 1 && strstr(r.err, "needs KEY VALUE"));
	RUN(&r, "config", "set", "nope", "1");
	{
		char want[512] = "Error: unknown key \"nope\"; known keys: ";

		for (unsigned int k = 0; k < MRC_KNOB_NR; k++) {
			strcat(want, mrc_knobs[k].name);
			strcat(want, k + 1 < MRC_KNOB_NR ? ", " : "\n");
		}
		CHECK(r.status == 1 && !strcmp(r.err, want));
	}
	RUN(&r, "config", "show", "nope");
	CHECK(r.status == 1 && strstr(r.err, "Error: unknown key \"nope\""));
	RUN(&r, "config", "set", "min_mtu");
	CHECK(r.status == 1 &&
	      !strcmp(r.err, "Error: missing value for key \"min_mtu\"\n"));
	RUN(&r, "config", "set", "min_mtu", "12KB");
	CHECK(r.status == 1 && strstr(r.err, "Error: invalid value \"12KB\""));
	RUN(&r, "config", "set", "min_mtu", "");
	CHECK(r.status == 1 && strstr(r.err, "Error: invalid value \"\""));
	RUN(&r, "config", "set", "min_mtu", "-1");
	CHECK(r.status == 1 && strstr(r.err, "Error: invalid value \"-1\""));
	RUN(&r, "config", "set", "max_rails", "4G");
	CHECK(r.status == 1 && strstr(r.err, "is too large"));
	RUN(&r, "config", "set", "min_mtu", "1K", "min_mtu", "2K");
	CHECK(r.status == 1 && strstr(r.err, "given twice"));
	RUN(&r, "monitor", "frob");
	CHECK(r.status == 1 && strstr(r.err, "unexpected argument \"frob\""));
}

/* Peer commands: every refusal that needs no kernel. */
void cli__peer_usage_errors(void)
{
	static const struct {
		const char *argv[10];
		const char *err;	/* the whole of stderr */
	} c[] = {
		{ { "peer", "frob" },
		  "Error: unknown command \"frob\", try \"mrcctl peer help\"\n" },
		{ { "peer", "add" },
		  "Error: peer add needs NODE addr ADDR[,ADDR...], try \"mrcctl peer help\"\n" },
		{ { "peer", "add", "2" },
		  "Error: peer add needs at least one address (addr ADDR[,ADDR...])\n" },
		{ { "peer", "add", "x", "addr", "10.0.0.2" },
		  "Error: invalid node id \"x\" (expected 1..2147483647)\n" },
		{ { "peer", "add", "0", "addr", "10.0.0.2" },
		  "Error: invalid node id \"0\" (expected 1..2147483647)\n" },
		{ { "peer", "add", "2147483648", "addr", "10.0.0.2" },
		  "Error: invalid node id \"2147483648\" (expected 1..2147483647)\n" },
		{ { "peer", "add", "-2", "addr", "10.0.0.2" },
		  "Error: invalid node id \"-2\" (expected 1..2147483647)\n" },
		{ { "peer", "add", "2", "addr", "10.0.0" },
		  "Error: invalid address \"10.0.0\" (expected IPv4 or IPv6)\n" },
		{ { "peer", "add", "2", "addr", "10.0.0.2,fd00::2,zz::" },
		  "Error: invalid address \"zz::\" (expected IPv4 or IPv6)\n" },
		{ { "peer", "add", "2", "addr", "10.0.0.2," },
		  "Error: invalid address \"\" (expected IPv4 or IPv6)\n" },
		{ { "peer", "add", "2", "addr", "1.0.0.1,1.0.0.2,1.0.0.3,1.0.0.4,"
		    "1.0.0.5,1.0.0.6,1.0.0.7,1.0.0.8,1.0.0.9" },
		  "Error: too many addresses (at most 8, one per plane)\n" },
		{ { "peer", "add", "2", "addr", "1.0.0.1,1.0.0.2,1.0.0.3,1.0.0.4",
		    "addr", "1.0.0.5,1.0.0.6,1.0.0.7,1.0.0.8", "addr", "::1" },
		  "Error: too many addresses (at most 8, one per plane)\n" },
		{ { "peer", "add", "2", "addr" },
		  "Error: missing value for \"addr\"\n" },
		{ { "peer", "add", "2", "via", "10.0.0.2" },
		  "Error: unexpected argument \"via\", try \"mrcctl peer help\"\n" },
		{ { "peer", "del" },
		  "Error: peer del needs NODE, try \"mrcctl peer help\"\n" },
		{ { "peer", "del", "node" },
		  "Error: peer del needs NODE, try \"mrcctl peer help\"\n" },
		{ { "peer", "del", "2x" },
		  "Error: invalid node id \"2x\" (expected 1..2147483647)\n" },
		{ { "peer", "del", "2", "3" },
		  "Error: unexpected argument \"3\", try \"mrcctl peer help\"\n" },
		{ { "peer", "show", "node", "0x80000000" },
		  "Error: invalid node id \"0x80000000\" (expected 1..2147483647)\n" },
		{ { "-j", "peer", "show", "2", "extra" },
		  "Error: unexpected argument \"extra\", try \"mrcctl peer help\"\n" },
		{ { "monitor", "peer", "frob" },
		  "Error: unexpected argument \"frob\", try \"mrcctl monitor help\"\n" },
	};
	struct run r;
	unsigned int i;

	if (!have_cli())
		return;
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		run_cli(&r, c[i].argv);
		CHECK(r.status == 1 && !strcmp(r.err, c[i].err) && !*r.out);
		if (strcmp(r.err, c[i].err)) {
			printf("# case %u:\n", i);
			t_show("expected", c[i].err);
			t_show("got     ", r.err);
		}
	}
}

/* 1: family "mrc" registered, 0: not, -1: cannot tell. */
static int family_present(void)
{
	char buf[256];
	struct nlmsghdr *nlh;
	int ret;

	if (nl_open())
		return -1;
	nlh = genl_put(buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, NLM_F_ACK);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, MRC_GENL_NAME);
	ret = nl_request(nlh, NULL, NULL);
	nl_close();
	if (!ret)
		return 1;
	return nlerr.err == ENOENT ? 0 : -1;
}

bool cli__module_not_loaded_skip(void)
{
	return family_present() != 0;
}

void cli__module_not_loaded(void)
{
	static const char *const msg =
		"Error: mrc module not loaded (try: modprobe mrc)\n";
	struct run r;

	if (!have_cli())
		return;
	RUN(&r, "rail", "show");
	CHECK(r.status == 1 && !strcmp(r.err, msg) && !*r.out);
	RUN(&r, "-j", "rail", "show", "rxe0:1");
	CHECK(r.status == 1 && !strcmp(r.err, msg) && !*r.out);
	RUN(&r, "config", "show");
	CHECK(r.status == 1 && !strcmp(r.err, msg));
	RUN(&r, "config", "set", "min_mtu", "4K");	/* valid syntax */
	CHECK(r.status == 1 && !strcmp(r.err, msg));
	RUN(&r, "monitor");
	CHECK(r.status == 1 && !strcmp(r.err, msg));
	RUN(&r, "monitor", "peer", "path");
	CHECK(r.status == 1 && !strcmp(r.err, msg));
	RUN(&r, "peer", "show");
	CHECK(r.status == 1 && !strcmp(r.err, msg) && !*r.out);
	RUN(&r, "-j", "-s", "peer", "show", "node", "2");
	CHECK(r.status == 1 && !strcmp(r.err, msg) && !*r.out);
	/* Valid syntax: refused only for want of the module. */
	RUN(&r, "peer", "add", "2", "addr", "10.200.0.2,fd00::2");
	CHECK(r.status == 1 && !strcmp(r.err, msg));
	RUN(&r, "peer", "add", "node", "0x7fffffff", "addr", "10.200.0.2",
	    "addr", "10.200.1.2");
	CHECK(r.status == 1 && !strcmp(r.err, msg));
	RUN(&r, "peer", "del", "2");
	CHECK(r.status == 1 && !strcmp(r.err, msg));
}
