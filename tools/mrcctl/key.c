// SPDX-License-Identifier: GPL-2.0
/*
 * key.c - mrcctl key: the cluster's default key (KEY_SET, KEY_GET), for
 * the peers added without a key of their own, and the key files that
 * "key set" and "peer add ... key FILE" read.
 */
#include <errno.h>
#include <string.h>

#include "mrcctl.h"
#include "nl.h"
#include "print.h"

int key_file_read(const char *path, unsigned char *key, size_t max)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f) {
		fprintf(stderr, "Error: key file %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	n = fread(key, 1, max + 1, f);
	fclose(f);
	if (n < 16 || n > max) {
		fprintf(stderr,
			"Error: key file %s holds %s%zu bytes; a key is 16 to %zu bytes\n",
			path, n > max ? "more than " : "", n > max ? max : n,
			max);
		explicit_bzero(key, max + 1);
		return -1;
	}
	return n;
}

static void usage_key(FILE *f)
{
	fprintf(f,
		"Usage: mrcctl [OPTIONS] key [ show ]\n"
		"       mrcctl key set FILE\n"
		"       mrcctl key del\n"
		"       mrcctl key help\n"
		"where  FILE := a file holding the cluster's default key, 16 to\n"
		"               64 bytes taken as they are\n"
		"\n"
		"A peer added without a key of its own (peer add ... key FILE)\n"
		"takes the default key set at that moment: its SIDR handshake is\n"
		"then authenticated, and it is reached only if it holds the same\n"
		"key for this node.  Changing or deleting the default later does\n"
		"not change the peers added before.  The key is never shown:\n"
		"show says whether one is set.  set and del need CAP_NET_ADMIN.\n");
}

static int keyed_cb(const struct nlattr *a, void *data)
{
	int *keyed = data;

	if (mnl_attr_get_type(a) != MRC_A_KEYED)
		return MNL_CB_OK;
	if (mnl_attr_validate(a, MNL_TYPE_U8) < 0)
		return bad_attr("key", MRC_A_KEYED);
	*keyed = mnl_attr_get_u8(a);
	return MNL_CB_OK;
}

static int key_get_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), keyed_cb,
			      data) < 0 ? MNL_CB_ERROR : MNL_CB_OK;
}

static int do_key_show(int argc, char **argv)
{
	struct nlmsghdr *nlh;
	char buf[256];
	int keyed = -1;

	if (argc > 0)
		return try_help("unexpected argument", argv[0], "key");
	if (mrc_connect())
		return 1;
	nlh = mrc_put(buf, MRC_CMD_KEY_GET, NLM_F_ACK);
	if (nl_request(nlh, key_get_cb, &keyed) < 0) {
		nlerr_print();
		return 1;
	}
	if (keyed < 0) {
		fprintf(stderr, "Error: the kernel did not say (no keyed attribute)\n");
		return 1;
	}
	open_json_object(NULL);
	print_bool(PRINT_JSON, "default_key", NULL, keyed);
	print_fmt("default key %s\n", keyed ? "set" : "none");
	close_json_object();
	return 0;
}

static int key_request(const unsigned char *key, int len)
{
	struct nlmsghdr *nlh;
	char buf[256];
	int ret = 0;

	if (mrc_connect())
		return 1;
	nlh = mrc_put(buf, MRC_CMD_KEY_SET, NLM_F_ACK);
	if (len)
		mnl_attr_put(nlh, MRC_A_KEY, len, key);
	if (nl_request(nlh, NULL, NULL) < 0) {
		nlerr_print();
		ret = 1;
	}
	explicit_bzero(buf, sizeof(buf));
	return ret;
}

static int do_key_set(int argc, char **argv)
{
	unsigned char key[65];	/* one more than a key, to see a longer file */
	int len, ret;

	if (argc != 1) {
		fprintf(stderr,
			"Error: key set needs FILE, try \"mrcctl key help\"\n");
		return 1;
	}
	len = key_file_read(argv[0], key, sizeof(key) - 1);
	if (len < 0)
		return 1;
	ret = key_request(key, len);
	explicit_bzero(key, sizeof(key));
	return ret;
}

static int do_key_del(int argc, char **argv)
{
	if (argc > 0)
		return try_help("unexpected argument", argv[0], "key");
	return key_request(NULL, 0);
}

static const struct mrcctl_cmd key_cmds[] = {
	{ "show", 0, do_key_show },
	{ "set", 2, do_key_set },	/* "s" is show */
	{ "del", 0, do_key_del },
	{ "delete", 0, do_key_del },
	{ NULL, 0, NULL }
};

int do_key(int argc, char **argv)
{
	return mrcctl_cmd_run(key_cmds, argc, argv, usage_key, "key");
}
