// SPDX-License-Identifier: GPL-2.0
/*
 * sidr - send one SIDR request to an mrc node's rdma_cm port, as any
 * local user can (selftests/mrc/auth.sh).
 *
 * It uses librdmacm like any unprivileged program: /dev/infiniband/
 * rdma_cm is open to every user, and a SIDR request carries whatever
 * private data its sender chooses.  The private data is either given
 * (-x HEX: e.g. a real request recorded by debugfs mrc/cm_request, to
 * replay it) or forged with mrc's own encoder (mrc/core/wire.c): a
 * request in the name of node -s to node -n with a new incarnation, a
 * random token and MRC_CM_F_NEED_TOKEN, that is, everything that would
 * reset the target's state for that peer; -m none sends it without a
 * MAC (what a peer without a key sends), -m random with random MAC bytes
 * (what a wrong key gives: the target cannot tell them apart).
 *
 * Prints one line and exits 0 when the exchange ended:
 *	result reply		the target answered (SIDR REP, accepted)
 *	result rejected		the target refused it (a SIDR reply with
 *				a reject status)
 *	result unreachable	no answer (or another error event)
 * Exit 1 on a local error (no route, no device).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include <rdma/rdma_cma.h>

#include "../../mrc/core/wire.h"

#define TIMEOUT_MS	2000

static void die(const char *what)
{
	fprintf(stderr, "sidr: %s: %s\n", what, strerror(errno));
	exit(1);
}

static u64 rand64(void)
{
	u64 v;

	if (getrandom(&v, sizeof(v), 0) != sizeof(v))
		die("getrandom");
	return v;
}

/* The next event of @ch, acknowledged; its type (@status: its status). */
static enum rdma_cm_event_type next_event(struct rdma_event_channel *ch,
					  int *status)
{
	struct rdma_cm_event *ev;
	enum rdma_cm_event_type t;

	if (rdma_get_cm_event(ch, &ev))
		die("rdma_get_cm_event");
	t = ev->event;
	if (status)
		*status = ev->status;
	rdma_ack_cm_event(ev);
	return t;
}

static int unhex(const char *s, u8 *out, size_t max)
{
	size_t n = 0;
	unsigned int b;

	while (s[0] && s[1] && n < max && sscanf(s, "%2x", &b) == 1) {
		out[n++] = b;
		s += 2;
	}
	return *s ? -1 : (int)n;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: sidr -t TARGET_IP (-x HEX | -s SRC_NODE -n DST_NODE [-m none|random])\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct sockaddr_in dst = { .sin_family = AF_INET,
				   .sin_port = htons(MRC_CM_PORT) };
	u8 buf[sizeof(struct mrc_wire_cm)] = {};
	struct rdma_conn_param param = {};
	struct rdma_event_channel *ch;
	struct mrc_cm cm = { .nqp = 1 };
	const char *mac = "none", *hex = NULL;
	enum rdma_cm_event_type t;
	struct rdma_cm_id *id;
	struct timespec now;
	unsigned int i;
	int c, status;

	while ((c = getopt(argc, argv, "t:x:s:n:m:")) != -1) {
		switch (c) {
		case 't':
			if (inet_pton(AF_INET, optarg, &dst.sin_addr) != 1)
				usage();
			break;
		case 'x':
			hex = optarg;
			break;
		case 's':
			cm.src_node = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			cm.dst_node = strtoul(optarg, NULL, 0);
			break;
		case 'm':
			mac = optarg;
			break;
		default:
			usage();
		}
	}
	if (!dst.sin_addr.s_addr)
		usage();
	if (hex) {
		if (unhex(hex, buf, sizeof(buf)) != sizeof(buf)) {
			fprintf(stderr, "sidr: -x needs %zu bytes of hex\n",
				sizeof(buf));
			return 2;
		}
	} else {
		if (!cm.src_node || !cm.dst_node)
			usage();
		clock_gettime(CLOCK_REALTIME, &now);
		cm.flags = MRC_CM_F_NEED_TOKEN;
		cm.incarnation = rand64() | 1;	/* "I restarted" */
		cm.token = rand64() | 1;	/* "send me this" */
		cm.nonce = rand64();
		cm.ts = now.tv_sec * 1000000000ULL + now.tv_nsec;
		cm.qpn[0] = 0x11;
		if (!strcmp(mac, "random")) {
			cm.flags |= MRC_CM_F_MAC;
			for (i = 0; i < MRC_CM_MAC_LEN; i++)
				cm.mac[i] = rand64();
		} else if (strcmp(mac, "none")) {
			usage();
		}
		mrc_wire_cm_put(buf, &cm);
	}

	ch = rdma_create_event_channel();
	if (!ch)
		die("rdma_create_event_channel");
	if (rdma_create_id(ch, &id, NULL, RDMA_PS_UDP))
		die("rdma_create_id");
	if (rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, TIMEOUT_MS))
		die("rdma_resolve_addr");
	if (next_event(ch, NULL) != RDMA_CM_EVENT_ADDR_RESOLVED) {
		errno = EHOSTUNREACH;
		die("address");
	}
	if (rdma_resolve_route(id, TIMEOUT_MS))
		die("rdma_resolve_route");
	if (next_event(ch, NULL) != RDMA_CM_EVENT_ROUTE_RESOLVED) {
		errno = EHOSTUNREACH;
		die("route");
	}
	param.private_data = buf;
	param.private_data_len = sizeof(buf);
	if (rdma_connect(id, &param))
		die("rdma_connect");
	/*
	 * rdma_cm reports a SIDR reply with a reject status as UNREACHABLE
	 * with that (positive) status; no answer at all is UNREACHABLE with
	 * a negative errno.
	 */
	t = next_event(ch, &status);
	printf("result %s\n", t == RDMA_CM_EVENT_ESTABLISHED ? "reply" :
	       t == RDMA_CM_EVENT_REJECTED ||
	       (t == RDMA_CM_EVENT_UNREACHABLE && status > 0) ? "rejected" :
	       "unreachable");
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
	return 0;
}
