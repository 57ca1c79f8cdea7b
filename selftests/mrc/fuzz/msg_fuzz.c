// SPDX-License-Identifier: GPL-2.0
/*
 * msg_fuzz.c - libFuzzer target for the message engine (mrc/core/msg_*.c):
 * two engines, A and B, each sending to the other through a wire that
 * the input drives: packets are delivered, dropped, duplicated or
 * reordered, paths go down and come back, send rings fill, allocations
 * fail, the receiving endpoint closes, fills up and opens again, time
 * jumps, old packets arrive again late, and hostile packets are mixed in (SACKs of ids never
 * handed out, NACKs of any range, DATA of far-away sequence numbers or
 * epochs and of any size).  Hostile packets never forge an ack or the
 * content of a real message: those need the peer's token, which the
 * module checks before the engine (peer.c), so an engine cannot tell
 * them from the truth.
 *
 * The oracle is a shadow model of every message sent (a serial number in
 * its first bytes, a pattern after them):
 *  - a message is delivered at most once, with its content intact, and
 *    in order per lane (serials increase);
 *  - after the input, with the wire made perfect and every path alive,
 *    every send completes (nothing waits forever), and every message
 *    whose send completed with status 0 was delivered exactly once, one
 *    refused (no endpoint on its port: -ECONNREFUSED) never;
 *  - memory stays within the bounds at every step: the sender holds at
 *    most tx_msgs_per_peer messages, the receiver at most
 *    rx_msgs_per_peer contexts plus one per lane (the message that
 *    blocks a lane's delivery is always admitted), and their bytes at
 *    most rx_buffer_mb plus one largest message per lane;
 *  - every path's books balance, and nothing is left allocated at the
 *    end.
 */
#define FUZZ_NAME "msg_fuzz"

#include "../unit/msg_host.h"
#include "fuzz.h"

#define MS		1000000ULL
#define MAX_MSGS	256		/* shadow entries per direction */
#define MAX_LEN		(12 * 4032)	/* real messages: up to 12 packets */
#define HOSTILE_MAX_LEN	(1U << 20)	/* hostile DATA: up to 1 MiB */
#define MAX_OPS		400

struct shadow_msg {
	u32 len;
	u8 cls;
	int done_calls;
	int status;
	int delivered;
};

/* One direction: what its sender sent, what its receiver saw. */
struct shadow {
	struct shadow_msg msg[MAX_MSGS];
	u32 nmsgs;
	u64 last_serial[MRC_MSG_LANES];	/* +1; 0 = none delivered yet */
};

#define HISTORY		32		/* packets kept for late replays */

struct fuzz {
	struct host *h[2];
	struct shadow dir[2];		/* dir[i]: sent by h[i] */
	u64 now;
	/* the last packets each side sent, for late duplicates */
	struct host_pkt hist[2][HISTORY];
	unsigned int nhist[2];
};

static struct fuzz F;

static u8 pattern(u32 serial, u32 i)
{
	return (u8)(serial * 131 + i * 7 + (i >> 8));
}

static void on_done(void *ctx, int status)
{
	struct shadow_msg *sm = ctx;

	sm->done_calls++;
	sm->status = status;
	if (sm->done_calls != 1)
		FAIL("a send completed %d times", sm->done_calls);
}

/* Receiver @h got a message from the other side. */
static void on_delivered(struct host *h, const struct mrc_msg_rx *rm)
{
	struct shadow *sd = &F.dir[h == F.h[0] ? 1 : 0];
	const u8 *b = rm->buf;
	struct shadow_msg *sm;
	unsigned int lane;
	u32 serial, i;

	if (rm->dst_port != 9)
		return;		/* no endpoint there: the host drops it */
	if (rm->r.msg_len < 4)
		FAIL("delivered a %u byte message nobody sent", rm->r.msg_len);
	serial = b[0] | b[1] << 8 | b[2] << 16 | (u32)b[3] << 24;
	if (serial >= sd->nmsgs)
		FAIL("delivered serial %u, only %u sent", serial, sd->nmsgs);
	sm = &sd->msg[serial];
	if (sm->len != rm->r.msg_len)
		FAIL("serial %u: %u bytes delivered, %u sent", serial,
		     rm->r.msg_len, sm->len);
	for (i = 4; i < sm->len; i++)
		if (b[i] != pattern(serial, i))
			FAIL("serial %u: byte %u corrupted", serial, i);
	if (++sm->delivered != 1)
		FAIL("serial %u delivered %d times", serial, sm->delivered);
	lane = mrc_msg_seq_lane(rm->seq);
	if (mrc_msg_lane_class(lane) != sm->cls)
		FAIL("serial %u: lane %u, class %u", serial, lane, sm->cls);
	if (sd->last_serial[lane] && serial + 1 <= sd->last_serial[lane])
		FAIL("lane %u: serial %u after %llu", lane, serial,
		     (unsigned long long)sd->last_serial[lane] - 1);
	sd->last_serial[lane] = serial + 1;
}

static const struct host_hooks hooks = { .delivered = on_delivered };

static void send_msg(int i, u32 len, u8 cls)
{
	struct shadow *sd = &F.dir[i];
	struct shadow_msg *sm;
	u8 buf[MAX_LEN];
	u32 serial = sd->nmsgs, k;
	int err;

	if (sd->nmsgs == MAX_MSGS)
		return;
	if (len < 4)
		len = 4;
	buf[0] = serial;
	buf[1] = serial >> 8;
	buf[2] = serial >> 16;
	buf[3] = serial >> 24;
	for (k = 4; k < len; k++)
		buf[k] = pattern(serial, k);
	sm = &sd->msg[serial];
	memset(sm, 0, sizeof(*sm));
	sm->len = len;
	sm->cls = cls;
	if (host_send_msg(F.h[i], buf, len, cls, on_done, sm, &err))
		sd->nmsgs++;
	else if (err != -ENOBUFS && err != -ENOMEM)
		FAIL("send: %d", err);
}

/* Delivers (or not) one packet of @from's queue, as @fate says. */
static void wire_step(struct host *from, u8 fate, u8 pick)
{
	struct host_pkt *hp, tmp;

	if (!from->nout)
		return;
	if (fate % 8 == 7 && from->nout > 1) {	/* reorder: a later one */
		unsigned int j = 1 + pick % (from->nout - 1);
		struct host_pkt *a = &from->out[from->out_head];
		struct host_pkt *b = &from->out[(from->out_head + j) %
						HOST_OUT_MAX];

		tmp = *a;
		*a = *b;
		*b = tmp;
	}
	hp = host_take(from);
	{
		int side = from == F.h[0] ? 0 : 1;

		F.hist[side][F.nhist[side]++ % HISTORY] = *hp;
	}
	switch (fate % 8) {
	case 5:					/* lost */
		return;
	case 6:					/* duplicated */
		host_input(from->peer, hp->pi, hp->buf, hp->len);
		break;
	}
	host_input(from->peer, hp->pi, hp->buf, hp->len);
}

/* A late duplicate: a packet @from sent a while ago arrives again. */
static void replay(struct host *from, u8 pick)
{
	int side = from == F.h[0] ? 0 : 1;
	unsigned int n = F.nhist[side] < HISTORY ? F.nhist[side] : HISTORY;
	struct host_pkt *hp;

	if (!n)
		return;
	hp = &F.hist[side][pick % n];
	host_input(from->peer, hp->pi, hp->buf, hp->len);
}

static void set_path(struct host *h, unsigned int pi, bool up)
{
	struct mrc_path_params pp;

	mrc_path_params_default(&pp);
	if (up) {
		mrc_path_event(&h->path[pi], &pp, MRC_PATH_EV_RAIL_UP, F.now,
			       F.now);
		mrc_path_event(&h->path[pi], &pp, MRC_PATH_EV_REPLY, F.now,
			       F.now);
	} else {
		mrc_path_event(&h->path[pi], &pp, MRC_PATH_EV_RAIL_DOWN, F.now,
			       F.now);
		mrc_msg_tx_path_down(&h->mp, pi, false, F.now);
	}
}

static void all_paths_up(void)
{
	unsigned int i, pi;

	for (i = 0; i < 2; i++)
		for (pi = 0; pi < MRC_MSG_NPATHS; pi++)
			set_path(F.h[i], pi, true);
}

/* A datagram @h receives from its peer's node id, made up. */
static void hostile(struct host *h, struct input *in)
{
	u8 buf[MRC_WIRE_HDR_LEN + 4032];
	struct mrc_pkt pkt = {
		.version = MRC_WIRE_VERSION,
		.src_node = h->peer->node_id,
		.dst_node = h->node_id,
		.entropy = get8(in) % 4,
		.tstamp = F.now - get16(in),
	};
	u8 kind = get8(in) % 8;
	u32 r = get32(in);
	u16 len = 0, list = 0;

	switch (kind) {
	case 0: {				/* SACK of an id never given */
		struct mrc_pkt_sack s = { .cum = get16(in), .nbits = get8(in) };

		s.bitmap[0] = get64(in);
		pkt.type = MRC_PKT_SACK;
		pkt.msg_id = (u64)(h->mp.epoch + 1 + r % 1000) << 32 |
			     get32(in);
		len = mrc_wire_put_sack(buf + MRC_WIRE_HDR_LEN, &s);
		if (r & 16) {			/* with a done list */
			u32 seq[8];
			unsigned int i, n = 1 + (r >> 5) % 8;

			for (i = 0; i < n; i++)
				seq[i] = get32(in);
			pkt.flags |= MRC_WF_DONE_MORE;
			len += mrc_wire_put_done(buf + MRC_WIRE_HDR_LEN + len,
						 seq, n);
		}
		break;
	}
	case 1: {				/* NACK of any range */
		struct mrc_pkt_nack_range nr[2] = {
			{ get16(in), get8(in) }, { get16(in), get8(in) },
		};
		struct mrc_msg_tx *m;

		pkt.type = MRC_PKT_NACK;
		pkt.msg_id = r;
		list_for_each_entry(m, &h->mp.txq, node)
			if (get8(in) & 1) {
				pkt.msg_id = m->msg_id;
				break;
			}
		len = mrc_wire_put_nack(buf + MRC_WIRE_HDR_LEN, nr,
					1 + (r & 1));
		break;
	}
	default: {				/* DATA far away, any size */
		u32 msg_len = 1 + get32(in) % HOSTILE_MAX_LEN;
		/*
		 * Ids the real sender never uses: sequence numbers far ahead
		 * in the receiver's epoch or, rarely, an epoch so far ahead
		 * that the sender never reaches it (whose first message of a
		 * lane is then the head, admitted past the bounds).
		 */
		u32 epoch = h->mp.rx_epoch + (kind == 7 ? 100000 + r % 3 : 0);
		u32 seq = (r % MRC_MSG_LANES) << MRC_MSG_LANE_SHIFT |
			  (100000 + (r >> 2) % 100000);
		u16 seg = 4032;

		if (kind == 7 && (r & 8))	/* a new epoch's first */
			seq &= ~MRC_MSG_SEQ_MASK;
		pkt.type = MRC_PKT_DATA;
		pkt.msg_id = (u64)epoch << 32 | seq;
		pkt.msg_len = msg_len;
		pkt.seg = seg;
		pkt.offset = (get16(in) % mrc_wire_npkts(msg_len, seg)) * seg;
		len = min_t(u32, seg, msg_len - pkt.offset);
		if ((r & 16) && len + 4 * 8 <= MRC_WIRE_MAX_PAYLOAD) {
			/* acks of any of our messages, any epoch (v7) */
			u32 seq[8];
			unsigned int i;

			pkt.ndone = 1 + (r >> 5) % 8;
			for (i = 0; i < pkt.ndone; i++)
				seq[i] = get32(in);
			pkt.flags |= MRC_WF_DONE_MORE;
			pkt.credit = get8(in) & 1 ? h->mp.epoch : get32(in);
			pkt.ack_delay_us = get16(in);
			list = mrc_wire_put_done(buf + MRC_WIRE_HDR_LEN, seq,
						 pkt.ndone);
		}
		memset(buf + MRC_WIRE_HDR_LEN + list, 0x5a, len);
		break;
	}
	}
	pkt.len = len;
	mrc_wire_put_hdr(buf, &pkt);
	if (kind == 0 && host_input(h, pkt.entropy, buf,
				    MRC_WIRE_HDR_LEN + len) == MRC_DROP_NONE)
		FAIL("a SACK of a future epoch was taken");
	else if (kind)
		host_input(h, pkt.entropy, buf, MRC_WIRE_HDR_LEN + list + len);
}

static void check_bounds(struct host *h)
{
	u64 max_bytes = (h->knob[MRC_KNOB_rx_buffer_mb] << 20) +
			(u64)MRC_MSG_LANES * HOSTILE_MAX_LEN;

	if (h->mp.ntx > h->knob[MRC_KNOB_tx_msgs_per_peer])
		FAIL("%u messages queued", h->mp.ntx);
	if (h->mp.nrx > h->knob[MRC_KNOB_rx_msgs_per_peer] + MRC_MSG_LANES)
		FAIL("%u receive contexts, limit %llu + %u lanes", h->mp.nrx,
		     (unsigned long long)h->knob[MRC_KNOB_rx_msgs_per_peer],
		     MRC_MSG_LANES);
	if ((u64)atomic64_read(&h->node.rx_bytes) > max_bytes)
		FAIL("%lld reassembly bytes",
		     (long long)atomic64_read(&h->node.rx_bytes));
	if (h->mp.inflight > 128)
		FAIL("%u packets in flight, cwnd %u", h->mp.inflight,
		     h->mp.cwnd);
}

static void run_both(void)
{
	int i;

	for (i = 0; i < 2; i++) {
		F.h[i]->now = F.now;
		host_run(F.h[i]);
		check_bounds(F.h[i]);
	}
}

static void check_paths(struct host *h)
{
	unsigned int pi;

	for (pi = 0; pi < MRC_MSG_NPATHS; pi++) {
		const struct mrc_path *p = &h->path[pi];
		const struct mrc_path_stats *s = &p->stats;

		if (s->tx_pkts != p->inflight_pkts + s->acked_pkts +
		    s->lost_pkts + s->released_pkts)
			FAIL("path %u: books do not balance", pi);
	}
}

/* What a host's sender holds, to stderr (a failing input's diagnosis). */
static void dump(struct host *h)
{
	struct mrc_msg_tx *m;
	unsigned int pi;

	fprintf(stderr, "host %u: now %llu ntx %u inflight %u cwnd %u armed %d at %llu kicks %u stuck %llu progress %llu ring_full %d\n",
		h->node_id, (unsigned long long)h->now, h->mp.ntx,
		h->mp.inflight, h->mp.cwnd, h->armed,
		(unsigned long long)h->arm_at, h->kicks,
		(unsigned long long)h->mp.stuck_ns,
		(unsigned long long)h->mp.progress_ns, h->mp.ring_full);
	list_for_each_entry(m, &h->mp.txq, node)
		fprintf(stderr, "  msg %llx len %u cls %u npkts %u acked %u inflight %u lost %u cum %u\n",
			(unsigned long long)m->msg_id, m->len, m->cls,
			m->sb.npkts, mrc_txsb_acked(&m->sb),
			mrc_txsb_inflight(&m->sb), mrc_txsb_lost(&m->sb),
			mrc_txsb_cum(&m->sb));
	for (pi = 0; pi < MRC_MSG_NPATHS; pi++)
		if (h->path[pi].stats.tx_pkts || h->path[pi].state)
			fprintf(stderr, "  path %u state %u inflight %u\n", pi,
				h->path[pi].state, h->path[pi].inflight_pkts);
}

/* The wire made perfect, every path alive: run until all is done. */
static void drain(void)
{
	u64 t0 = F.h[0]->knob[MRC_KNOB_peer_timeout_ms];
	u64 t1 = F.h[1]->knob[MRC_KNOB_peer_timeout_ms];
	/*
	 * The longest a send may take from here: a sender whose receiver
	 * gave its epoch up (see msg_rx.c, Expiry) fails it only after
	 * MRC_MSG_STALL_MULT (4) of its own peer timeouts without progress,
	 * and its successors then start over.  Twenty of the longer one
	 * bound that with room to spare.
	 */
	u64 end = F.now + 20 * (t0 > t1 ? t0 : t1) * MS;
	int i;

	for (i = 0; i < 2; i++) {
		F.h[i]->send_err_n = 0;
		F.h[i]->alloc_fail = -1;
		F.h[i]->closed_port = 0;
		F.h[i]->busy_port = 0;
	}
	all_paths_up();
	/* until nothing is due: sends done, expiry clocks run out */
	while (F.now < end) {
		u64 t;

		run_both();
		if (F.h[0]->nout || F.h[1]->nout) {
			host_pump(F.h[0]);
			host_pump(F.h[1]);
			continue;
		}
		t = host_next_due(F.h[0]);
		if (host_next_due(F.h[1]) < t)
			t = host_next_due(F.h[1]);
		if (t == U64_MAX)
			break;
		F.now = t > F.now ? t : F.now + 1000;
		/* keepalives answered: paths that timed out come back */
		if (F.now % (50 * MS) < 2 * MS)
			all_paths_up();
	}
	for (i = 0; i < 2; i++)
		if (F.h[i]->mp.ntx) {
			dump(F.h[i]);
			FAIL("host %d: %u sends never completed", i,
			     F.h[i]->mp.ntx);
		}
	run_both();
}

static void check_shadow(int i)
{
	struct shadow *sd = &F.dir[i];
	u32 s;

	for (s = 0; s < sd->nmsgs; s++) {
		struct shadow_msg *sm = &sd->msg[s];

		if (sm->done_calls != 1)
			FAIL("dir %d serial %u: %d completions", i, s,
			     sm->done_calls);
		if (sm->status == 0 && sm->delivered != 1)
			FAIL("dir %d serial %u: acked, delivered %d times", i, s,
			     sm->delivered);
		if (sm->status == -ECONNREFUSED && sm->delivered)
			FAIL("dir %d serial %u: refused, delivered %d times",
			     i, s, sm->delivered);
	}
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct input in = { data, size };
	unsigned int nlinks, nqps, op, i;
	u8 b;

	memset(&F, 0, sizeof(F));
	F.now = 1000 * MS;
	nlinks = 1 + get8(&in) % 3;
	nqps = 1 + get8(&in) % 4;
	for (i = 0; i < 2; i++) {
		struct host *h = host_new(i + 1, nlinks, nqps, 4096, F.now);

		h->hooks = &hooks;
		F.h[i] = h;
	}
	host_link(F.h[0], F.h[1]);
	b = get8(&in);
	for (i = 0; i < 2; i++) {
		u64 *k = F.h[i]->knob;

		k[MRC_KNOB_rx_msgs_per_peer] = 2 + b % 14;
		k[MRC_KNOB_rx_buffer_mb] = 1 + (b >> 4) % 4;
		k[MRC_KNOB_tx_msgs_per_peer] = 4 + get8(&in) % 60;
		k[MRC_KNOB_peer_timeout_ms] = 100 + 10 * (get8(&in) % 90);
		/* 0: the floor learned from the RTTs, as by default */
		k[MRC_KNOB_data_rto_min_ms] = get8(&in) % 51;
	}

	for (op = 0; op < MAX_OPS && in.n; op++) {
		u8 c = get8(&in), x = get8(&in);
		int side = x & 1;
		struct host *h = F.h[side];

		switch (c % 14) {
		case 0:
		case 1:
			send_msg(side, 1 + get16(&in) % MAX_LEN, (x >> 1) % 4);
			break;
		case 2:
			/* each side's batch of arrivals ends (node.batch_done) */
			host_batch_end(F.h[0]);
			host_batch_end(F.h[1]);
			F.now += (u64)get16(&in) * 1000;
			break;
		case 3:
		case 4:
		case 5:
		case 6:
			wire_step(h, x >> 1, get8(&in));
			break;
		case 7:
			set_path(h, (x >> 1) % (nlinks * MRC_MSG_LINK_PATHS),
				 false);
			break;
		case 8:
			set_path(h, (x >> 1) % (nlinks * MRC_MSG_LINK_PATHS),
				 true);
			break;
		case 9:
			hostile(h, &in);
			break;
		case 10:
			h->send_err = (x & 2) ? -EAGAIN : -EIO;
			h->send_err_n = 1 + (x >> 2) % 3;
			break;
		case 11:
			h->alloc_fail = (x >> 1) % 4;
			break;
		case 12:
			replay(h, x >> 1);
			break;
		case 13:	/* the receiving endpoint: closed, full, open */
			h->closed_port = (x >> 1) % 3 == 1 ? 9 : 0;
			h->busy_port = (x >> 1) % 3 == 2 ? 9 : 0;
			break;
		}
		run_both();
	}
	drain();
	for (i = 0; i < 2; i++) {
		check_shadow(i);
		check_paths(F.h[i]);
	}
	for (i = 0; i < 2; i++) {
		host_stop(F.h[i]);
		if (F.h[i]->allocs || F.h[i]->rx_free_bad ||
		    atomic64_read(&F.h[i]->node.rx_bytes) ||
		    atomic64_read(&F.h[i]->node.tx_bytes))
			FAIL("host %d: %ld allocations left", i,
			     F.h[i]->allocs);
		check_paths(F.h[i]);
	}
	for (i = 0; i < 2; i++)
		host_destroy(F.h[i]);
	return 0;
}
