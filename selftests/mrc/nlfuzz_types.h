/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nlfuzz_types.h - the shapes of the tables nlfuzz_gen.py generates from
 * the netlink spec (nlfuzz_spec.h), and what nlfuzz's parts share.
 */
#ifndef NLFUZZ_TYPES_H
#define NLFUZZ_TYPES_H

#include <stdbool.h>
#include <stdint.h>

enum nf_type {
	NF_UNUSED, NF_PAD, NF_FLAG, NF_U8, NF_U16, NF_U32, NF_U64,
	NF_STRING, NF_BINARY, NF_NEST,
};

struct nf_attr {
	const char *name;
	unsigned short id;
	enum nf_type type;
	int nest;		/* index in nf_sets, or -1 */
	bool multi;
	bool has_min, has_max;
	long long min, max;	/* checks: min, max */
	unsigned int min_len, max_len;	/* checks: min-len, max-len */
	unsigned int nenum;	/* entries of its enum, or 0 */
};

struct nf_set {
	const char *name;
	const struct nf_attr *attrs;
	int n;
	int maxid;		/* highest attribute number of the set */
};

struct nf_op {
	const char *name;
	unsigned char cmd;
	bool has_do, has_dump, event, admin;
	const unsigned short *req;	/* top-level attributes of do */
	int nreq;
};

#endif
