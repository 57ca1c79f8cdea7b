// SPDX-License-Identifier: GPL-2.0
/*
 * mrcctl - show and configure mrc (multipath RDMA transport) through its
 * generic netlink family "mrc" (uapi/linux/mrc.h).
 *
 *   mrcctl [OPTIONS] rail show [ [dev] DEV | id ID ]
 *   mrcctl [OPTIONS] peer show [ [node] NODE ]
 *   mrcctl [OPTIONS] peer add NODE addr ADDR[,ADDR...] [key FILE]
 *   mrcctl [OPTIONS] peer del NODE
 *   mrcctl [OPTIONS] key [ show | set FILE | del ]
 *   mrcctl [OPTIONS] config show [KEY...]
 *   mrcctl [OPTIONS] config set KEY VALUE [KEY VALUE ...]
 *   mrcctl [OPTIONS] class show [CLASS]
 *   mrcctl [OPTIONS] monitor [ all | rail | config | peer | path ]
 *
 * Laid out like iproute2's rdma tool: this file holds main(), the global
 * options and the table of objects; each object (rail.c, peer.c with
 * path.c, config.c, class.c, key.c, monitor.c) has its own help text and table
 * of commands; nl.c is the netlink plumbing over libmnl and print.c the
 * one output layer (text, or JSON with -j).  The knob table, value parser
 * and enum names are shared with the kernel module (mrc/core/config.c,
 * mrc/core/names.c, and the drop reason names of mrc/core/wire.c) so that
 * both sides use the same words and the same syntax.
 *
 * The self-test (selftests/mrc/mrcctl/) builds these files without this
 * one and runs their decoders and printers on canned kernel messages.
 */
#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "mrcctl.h"
#include "nl.h"
#include "print.h"

struct mrcctl_opts opt;

bool matches(const char *arg, const char *full)
{
	size_t n = strlen(arg);

	return n && n <= strlen(full) && !strncmp(arg, full, n);
}

int try_help(const char *what, const char *arg, const char *obj)
{
	fprintf(stderr, "Error: %s \"%s\", try \"mrcctl %s help\"\n", what, arg,
		obj);
	return 1;
}

int mrcctl_cmd_run(const struct mrcctl_cmd *cmds, int argc, char **argv,
		   void (*usage_obj)(FILE *f), const char *obj)
{
	const struct mrcctl_cmd *c;

	if (argc < 1)
		return cmds[0].fn(0, argv);
	for (c = cmds; c->name; c++)
		if (matches(argv[0], c->name) && strlen(argv[0]) >= c->min_len)
			return c->fn(argc - 1, argv + 1);
	if (matches(argv[0], "help")) {
		usage_obj(stdout);
		return 0;
	}
	return try_help("unknown command", argv[0], obj);
}

void usage(FILE *f)
{
	fprintf(f,
		"Usage: mrcctl [OPTIONS] OBJECT { COMMAND | help }\n"
		"       mrcctl [OPTIONS] rail [ show [ [dev] DEV | id ID ] ]\n"
		"       mrcctl [OPTIONS] peer [ show [ [node] NODE ] ]\n"
		"       mrcctl peer add NODE addr ADDR[,ADDR...] [key FILE]\n"
		"       mrcctl peer del NODE\n"
		"       mrcctl [OPTIONS] config [ show [KEY...] ]\n"
		"       mrcctl config set KEY VALUE [KEY VALUE ...]\n"
		"       mrcctl [OPTIONS] monitor [ all | rail | config | peer | path ]\n"
		"       mrcctl rail set DEV weight W\n"
		"       mrcctl peer set NODE policy POLICY\n"
		"       mrcctl key [ show | set FILE | del ]\n"
		"       mrcctl [OPTIONS] class [ show [CLASS] ]\n"
		"       mrcctl class set CLASS rails { RAIL[,RAIL...] | all }\n"
		"       mrcctl help\n"
		"where  OBJECT := { rail | peer | config | class | key | monitor | help }\n"
		"       DEV := { IBDEV:PORT | IBDEV | NETDEV }\n"
		"       NODE := a node id, 1..2147483647\n"
		"       ADDR := the peer's IPv4 or IPv6 address on one plane\n"
		"       KEY := { ");
	known_keys(f, " | ");
	fprintf(f,
		" }\n"
		"       OPTIONS := { -j[son] | -p[retty] | -s[tats] | -t[imestamp] |\n"
		"                    -V[ersion] | -h[elp] }\n"
		"\n"
		"  -j, --json        JSON output (show: an array; monitor: one object per line)\n"
		"  -p, --pretty      indented JSON (implies -j; not for monitor)\n"
		"  -s, --stats       rail/peer show: add the rail/path counters\n"
		"  -t, --timestamp   monitor: prefix events with the local time\n"
		"  -V, --version     print the version and exit\n"
		"  -h, --help        print this help and exit\n"
		"\n"
		"Commands and objects may be abbreviated (mrcctl r s).  See also\n"
		"\"mrcctl rail help\", \"mrcctl peer help\", \"mrcctl config help\",\n"
		"\"mrcctl monitor help\".\n");
}

static int do_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	usage(stdout);
	return 0;
}

/* In abbreviation order: "c" is config, "m" monitor. */
static const struct mrcctl_obj objects[] = {
	{ "rail", do_rail },
	{ "peer", do_peer },
	{ "config", do_config },
	{ "monitor", do_monitor },
	{ "class", do_class },
	{ "key", do_key },
	{ "help", do_help },
	{ NULL, NULL }
};

static int run_object(int argc, char **argv)
{
	const struct mrcctl_obj *o;

	for (o = objects; o->name; o++)
		if (matches(argv[0], o->name))
			return o->fn(argc - 1, argv + 1);
	fprintf(stderr, "Error: unknown object \"%s\", try \"mrcctl help\"\n",
		argv[0]);
	return 1;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "stats", no_argument, NULL, 's' },
		{ "statistics", no_argument, NULL, 's' },
		{ "timestamp", no_argument, NULL, 't' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c, ret;

	opterr = 0;
	/* "+": options end at the first non-option, as in iproute2. */
	while ((c = getopt_long(argc, argv, "+jpstVh", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			opt.json = true;
			break;
		case 'p':
			opt.pretty = true;
			opt.json = true;
			break;
		case 's':
			opt.stats = true;
			break;
		case 't':
			opt.timestamp = true;
			break;
		case 'V':
			printf("mrcctl %s (mrc netlink version %d)\n",
			       MRCCTL_VERSION, MRC_GENL_VERSION);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			if (optopt && strncmp(argv[optind - 1], "--", 2))
				fprintf(stderr, "Error: unknown option \"-%c\"",
					optopt);
			else
				fprintf(stderr, "Error: bad option \"%s\"",
					argv[optind - 1]);
			fprintf(stderr, ", try \"mrcctl --help\"\n");
			return 1;
		}
	}
	argc -= optind;
	argv += optind;

	if (argc < 1) {
		usage(stderr);
		return 1;
	}
	print_init(stdout, opt.json, opt.pretty);
	ret = run_object(argc, argv);
	nl_close();
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "Error: writing output: %s\n", strerror(errno));
		ret = 1;
	}
	return ret;
}
