// SPDX-License-Identifier: GPL-2.0
/*
 * credit_test.c - user-space unit tests of mrc/core/credit*.c (receiver-driven
 * credits): API checks, then an incast simulation of N senders -> 1
 * receiver over a bottleneck link with a shallow drop-tail queue.
 *
 * Output is TAP 13; the exit status is 0 only if every test passed.
 *   make -C selftests/mrc/unit run
 *   MRC_TEST_SEED=N ./credit_test     reproduce a run
 */
#include <stdio.h>
#include <stdlib.h>

#include "../../../mrc/core/credit.h"
#include "tap.h"

#define US	1000ULL
#define MS	1000000ULL
#define KB	1024U
#define ULL(x)	((unsigned long long)(x))

static struct mrc_credit_params defp(void)
{
	struct mrc_credit_params p;

	mrc_credit_params_default(&p);
	return p;
}

/* A table of @n senders in a static buffer (the caller's allocation). */
static struct mrc_credit_rx *mkrx(u32 n, const struct mrc_credit_params *p)
{
	static u64 buf[(sizeof(struct mrc_credit_rx) +
			64 * sizeof(struct mrc_credit_rx_entry) +
			128 * sizeof(u32)) / 8 + 1];
	struct mrc_credit_rx *rx = (struct mrc_credit_rx *)buf;

	if (mrc_credit_rx_size(n) > sizeof(buf) ||
	    mrc_credit_rx_init(rx, n, p))
		return NULL;
	return rx;
}

/* ---------------------------------------------------------------- */
/* parameters                                                        */
/* ---------------------------------------------------------------- */

static void params__defaults(void)
{
	struct mrc_credit_params p = defp();
	const char *why = NULL;

	CHECK(mrc_credit_params_check(&p, &why) == 0, "refused: %s", why);
	CHECK(p.policy == MRC_CREDIT_FAIR, "policy %u", p.policy);
	CHECK(!strcmp(mrc_credit_policy_name(MRC_CREDIT_FAIR), "fair") &&
	      !strcmp(mrc_credit_policy_name(MRC_CREDIT_SRPT), "srpt") &&
	      !mrc_credit_policy_name(MRC_CREDIT_POLICY_NR), "names");
}

static void params__check_refuses(void)
{
	struct mrc_credit_params p;
	const char *why;
	unsigned int i;

	for (i = 0; i < 9; i++) {
		p = defp();
		switch (i) {
		case 0:
			p.rate = 0;
			break;
		case 1:
			p.rate = MRC_CREDIT_MAX_RATE + 1;
			break;
		case 2:
			p.policy = MRC_CREDIT_POLICY_NR;
			break;
		case 3:
			p.grant_unit = 0;
			break;
		case 4:
			p.burst = p.grant_unit - 1;
			break;
		case 5:
			p.max_outstanding = p.grant_unit - 1;
			break;
		case 6:
			p.max_msg = 0;
			break;
		case 7:
			p.grant_timeout_ns = 0;
			break;
		case 8:
			p.request_timeout_ns = MRC_CREDIT_TIMEOUT_MAX_NS + 1;
			break;
		}
		why = NULL;
		CHECK(mrc_credit_params_check(&p, &why) == -EINVAL && why,
		      "bad params %u accepted", i);
	}
}

/* ---------------------------------------------------------------- */
/* receiver                                                          */
/* ---------------------------------------------------------------- */

static void rx__size_bounded(void)
{
	struct mrc_credit_params p = defp();

	CHECK(mrc_credit_rx_size(0) == 0, "size(0)");
	CHECK(mrc_credit_rx_size(MRC_CREDIT_MAX_SENDERS + 1) == 0, "size(max+1)");
	CHECK(mrc_credit_rx_size(U32_MAX) == 0, "size(U32_MAX)");
	/* 3 entries and a hash index of 8 bucket heads (>= 2 x 3) */
	CHECK(mrc_credit_rx_size(3) == sizeof(struct mrc_credit_rx) +
	      3 * sizeof(struct mrc_credit_rx_entry) + 8 * sizeof(u32),
	      "size(3)");
	CHECK(mrc_credit_rx_init((struct mrc_credit_rx *)&p, 0, &p) == -EINVAL,
	      "init(0)");
}

static void rx__senders_bounded(void)
{
	struct mrc_credit_params p = defp();
	struct mrc_credit_rx *rx = mkrx(2, &p);
	struct mrc_credit_grant g[2];
	u32 len = p.unsched + 8 * KB;
	int i, n;

	CHECK(mrc_credit_rx_request(rx, &p, 10, 1, len, 0, NULL) == 0, "s10");
	CHECK(mrc_credit_rx_request(rx, &p, 11, 1, len, 0, NULL) == 0, "s11");
	/* Any number of further senders: refused, nothing allocated. */
	for (i = 0; i < 1000; i++)
		CHECK(mrc_credit_rx_request(rx, &p, 100 + i, 1, len, 0,
					    NULL) == -ENOSPC, "s%d", 100 + i);
	CHECK(rx->stats.req_full == 1000, "req_full %llu",
	      ULL(rx->stats.req_full));
	CHECK(mrc_credit_rx_waiting(rx) == 2, "waiting");
	/* Sender 10 gets all it asked for and its data arrives: idle. */
	n = mrc_credit_rx_pace(rx, &p, 1 * US, 1 * MS, g, 2);
	CHECK(n == 2, "pace %d", n);
	CHECK(rx->e[0].granted == len && rx->e[1].granted == len,
	      "granted %u %u", rx->e[0].granted, rx->e[1].granted);
	CHECK(mrc_credit_rx_data(rx, &p, 10, 1, len, p.unsched, 8 * KB,
				 2 * US) == 0, "data");
	/* Its slot goes to a new sender; 11 still holds credit. */
	CHECK(mrc_credit_rx_request(rx, &p, 12, 1, len, 3 * US, NULL) == 0,
	      "s12 takes the idle slot");
	CHECK(rx->e[0].key == 12, "slot key %u", rx->e[0].key);
	CHECK(mrc_credit_rx_request(rx, &p, 13, 1, len, 3 * US, NULL) ==
	      -ENOSPC, "s13");
	CHECK(mrc_credit_rx_pace(rx, &p, 4 * US, 0, g, 1) == -EINVAL,
	      "short out[] accepted");
	mrc_credit_rx_forget(rx, 11);
	CHECK(rx->total_outstanding == 0, "forget left %llu outstanding",
	      ULL(rx->total_outstanding));
	CHECK(mrc_credit_rx_request(rx, &p, 13, 1, len, 3 * US, NULL) == 0,
	      "s13 after forget");
}

static void rx__requests_validated(void)
{
	struct mrc_credit_params p = defp();
	struct mrc_credit_rx *rx = mkrx(4, &p);
	struct mrc_credit_grant g[4], r;
	u32 len = p.unsched + 64 * KB;

	CHECK(mrc_credit_rx_request(rx, &p, 1, 7, p.max_msg + 1, 0, NULL) ==
	      -EMSGSIZE, "oversize");
	CHECK(mrc_credit_rx_request(rx, &p, 1, 7, U32_MAX, 0, NULL) ==
	      -EMSGSIZE, "oversize max");
	CHECK(mrc_credit_rx_request(rx, &p, 1, 7, p.unsched, 0, NULL) ==
	      -EINVAL, "nothing to schedule");
	CHECK(mrc_credit_rx_request(rx, &p, 1, 7, len, 0, NULL) == 0, "ok");
	/* Demand is fixed per message: a repeat cannot raise it. */
	CHECK(mrc_credit_rx_request(rx, &p, 1, 7, len + 1, 0, NULL) == -EINVAL,
	      "length changed");
	CHECK(rx->e[0].requested == len, "requested %u", rx->e[0].requested);
	CHECK(mrc_credit_rx_request(rx, &p, 1, 8, len, 0, NULL) == -EBUSY,
	      "second message while waiting");
	CHECK(mrc_credit_rx_pace(rx, &p, 10 * US, 10 * US, g, 4) == 1, "pace");
	CHECK(mrc_credit_rx_request(rx, &p, 1, 7, len, 0, &r) ==
	      MRC_CREDIT_REQ_RESEND, "dup");
	CHECK(r.granted == g[0].granted && r.seq == g[0].seq && r.key == 1 &&
	      r.msg_id == 7, "resend %u/%u vs %u/%u", r.granted, r.seq,
	      g[0].granted, g[0].seq);
	CHECK(rx->e[0].granted == g[0].granted, "dup moved the grant");
	/* Data beyond the grant. */
	CHECK(mrc_credit_rx_data(rx, &p, 1, 7, len, g[0].granted, 1, 0) ==
	      -EPERM, "over credit");
	CHECK(mrc_credit_rx_data(rx, &p, 9, 5, len, p.unsched, 100, 0) ==
	      -EPERM, "scheduled data of an unknown sender");
	CHECK(mrc_credit_rx_data(rx, &p, 9, 5, len, 0, 100, 0) == 0,
	      "unscheduled data of an unknown sender");
	CHECK(rx->stats.req_oversize == 2 && rx->stats.req_bad == 2 &&
	      rx->stats.req_busy == 1 && rx->stats.req_dup == 1 &&
	      rx->stats.data_over_credit == 2, "counters %llu %llu %llu %llu %llu",
	      ULL(rx->stats.req_oversize), ULL(rx->stats.req_bad),
	      ULL(rx->stats.req_busy), ULL(rx->stats.req_dup),
	      ULL(rx->stats.data_over_credit));
}

/*
 * Regression (rogue.sh spoof_credit): a CREDIT_REQ for an earlier message
 * of the sender - a replay of a real one, one reordered behind the next,
 * or a forged one - used to come back -EBUSY, and the kernel glue then
 * forgot the entry of the message being scheduled and took the earlier
 * one: the real sender's grants started over from its window.  Now it is
 * refused (-ESTALE) while the entry is busy; a later message still takes
 * it over (its sender gave the previous one up), in a new epoch too.
 */
/*
 * A chained REQUEST (offset 0) is scheduled from byte 0: its first
 * bytes are granted and settle credit, not charged as unscheduled.  A
 * REQUEST that claims more than the window gets the window.
 */
static void rx__chained_request(void)
{
	struct mrc_credit_params p = defp();
	struct mrc_credit_rx *rx = mkrx(2, &p);
	struct mrc_credit_grant g[2];
	u32 len = p.unsched + 64 * KB, u = p.grant_unit;
	int n;

	CHECK(mrc_credit_rx_request_unsched(rx, &p, 1, 7, len, 0, 0, NULL) ==
	      0, "req");
	CHECK(rx->e[0].granted == 0 && rx->e[0].unsched == 0, "granted %u",
	      rx->e[0].granted);
	CHECK(mrc_credit_rx_unsched(rx, &p, 1, 7, len) == 0, "its window");
	CHECK(mrc_credit_rx_unsched(rx, &p, 1, 6, len) == p.unsched &&
	      mrc_credit_rx_unsched(rx, &p, 2, 7, 100) == 100, "others'");
	CHECK(mrc_credit_rx_data(rx, &p, 1, 7, len, 0, u, 0) == -EPERM,
	      "byte 0 before a grant");
	n = mrc_credit_rx_pace(rx, &p, 10 * US, US, g, 2);
	CHECK(n == 1 && g[0].granted >= u && g[0].granted < p.unsched,
	      "grant from 0: %d, %u", n, n > 0 ? g[0].granted : 0);
	CHECK(mrc_credit_rx_data(rx, &p, 1, 7, len, 0, u, 11 * US) == 0,
	      "data");
	CHECK(!rx->stats.unsched_bytes &&
	      rx->total_outstanding == g[0].granted - u,
	      "charged %llu, outstanding %llu", ULL(rx->stats.unsched_bytes),
	      ULL(rx->total_outstanding));
	CHECK(mrc_credit_rx_request_unsched(rx, &p, 2, 1, len, U32_MAX, 0,
					    NULL) == 0, "req 2");
	CHECK(rx->e[1].granted == p.unsched, "claimed more: %u",
	      rx->e[1].granted);
}

static void rx__earlier_message_refused(void)
{
	struct mrc_credit_params p = defp();
	struct mrc_credit_rx *rx = mkrx(4, &p);
	struct mrc_credit_grant g[4];
	u64 epoch = 0x65000000ULL << 32, cur = epoch | 20;
	u32 len = p.unsched + 64 * KB, granted;

	CHECK(mrc_credit_rx_request(rx, &p, 1, cur, len, 0, NULL) == 0, "req");
	CHECK(mrc_credit_rx_pace(rx, &p, 10 * US, 10 * US, g, 4) == 1, "pace");
	granted = rx->e[0].granted;
	/* Earlier seq, earlier epoch, seq wrapped below: all refused. */
	CHECK(mrc_credit_rx_request(rx, &p, 1, epoch | 19, len, 0, NULL) ==
	      -ESTALE, "replay of the previous message");
	CHECK(mrc_credit_rx_request(rx, &p, 1, epoch | 0, 2 * len, 0, NULL) ==
	      -ESTALE, "first message of the epoch");
	CHECK(mrc_credit_rx_request(rx, &p, 1, (epoch - (1ULL << 32)) | 99,
				    len, 0, NULL) == -ESTALE, "older epoch");
	CHECK(mrc_credit_rx_request(rx, &p, 1, (epoch | 20) - 0x80000000ULL,
				    len, 0, NULL) == -ESTALE, "half a seq away");
	CHECK(rx->e[0].msg_id == cur && rx->e[0].granted == granted &&
	      rx->e[0].seq == 1, "entry moved: %llx %u %u",
	      ULL(rx->e[0].msg_id), rx->e[0].granted, rx->e[0].seq);
	CHECK(rx->stats.req_stale == 4, "req_stale %llu",
	      ULL(rx->stats.req_stale));
	/* Granted in full but still in flight: busy, still refused. */
	while (rx->e[0].granted < len)
		mrc_credit_rx_pace(rx, &p, 20 * US, 10 * US, g, 4);
	CHECK(rx->e[0].outstanding, "nothing outstanding");
	CHECK(mrc_credit_rx_request(rx, &p, 1, epoch | 19, len, 20 * US,
				    NULL) == -ESTALE, "replay while in flight");
	/* The next message (in order) takes the entry over. */
	CHECK(mrc_credit_rx_request(rx, &p, 1, epoch | 21, len, 20 * US,
				    NULL) == 0, "next message");
	CHECK(rx->e[0].msg_id == (epoch | 21), "entry %llx",
	      ULL(rx->e[0].msg_id));
	/* While it waits: a later epoch is -EBUSY (caller replaces). */
	CHECK(mrc_credit_rx_request(rx, &p, 1, epoch + (1ULL << 32), len,
				    20 * US, NULL) == -EBUSY, "new epoch");
	/* Forgotten (peer restarted): any message may start. */
	mrc_credit_rx_forget(rx, 1);
	CHECK(mrc_credit_rx_request(rx, &p, 1, epoch | 3, len, 30 * US,
				    NULL) == 0, "after forget");
	CHECK(rx->stats.req_stale == 5 && rx->stats.req_busy == 1,
	      "req_stale %llu req_busy %llu", ULL(rx->stats.req_stale),
	      ULL(rx->stats.req_busy));
}

/*
 * An idle entry (everything granted and arrived) still refuses an
 * earlier message while it was active within stale_ns (a replay that
 * arrives late must not make up a message); quiet for longer, it takes
 * any, so an entry that a forged later id took frees its sender.
 */
/* Lanes (msg_id bits 31..26) are not ordered among themselves. */
static void rx__earlier_message_lanes(void)
{
	struct mrc_credit_params p = defp();
	struct mrc_credit_rx *rx = mkrx(4, &p);
	u64 epoch = 0x65000000ULL << 32;
	u64 bulk = epoch | 2U << MRC_CREDIT_LANE_SHIFT | 20;
	u32 len = p.unsched + 64 * KB;

	CHECK(mrc_credit_rx_request(rx, &p, 1, bulk, len, 0, NULL) == 0, "req");
	/* the same lane, earlier: refused */
	CHECK(mrc_credit_rx_request(rx, &p, 1, bulk - 1, len, 0, NULL) ==
	      -ESTALE, "earlier in the bulk lane");
	/* lane 0 message 21 (numerically below): not earlier, only busy */
	CHECK(mrc_credit_rx_request(rx, &p, 1, epoch | 21, len, 0, NULL) ==
	      -EBUSY, "default lane while bulk is busy");
	/* the same lane wraps within 26 bits */
	CHECK(mrc_credit_rx_request(rx, &p, 1, epoch |
				    2U << MRC_CREDIT_LANE_SHIFT |
				    ((1U << MRC_CREDIT_LANE_SHIFT) - 1),
				    len, 0, NULL) == -ESTALE,
	      "bulk lane, 21 before (wrapped)");
}

/* Grants for every open entry until entry 0 has all of its message. */
static u64 grant_all(struct mrc_credit_rx *rx,
		     const struct mrc_credit_params *p, u64 now)
{
	struct mrc_credit_grant g[4];

	while (rx->e[0].granted < rx->e[0].requested) {
		now += 10 * US;
		mrc_credit_rx_pace(rx, p, now, 10 * US, g, 4);
	}
	return now;
}

/*
 * A request of a lane the entry served before is compared with that
 * lane's newest, even after another lane's message took the entry: a
 * replay of the bulk lane's finished message must not take the entry
 * from the default lane's; a new epoch starts every lane afresh.
 */
static void rx__earlier_message_other_lane(void)
{
	struct mrc_credit_params p = defp();
	struct mrc_credit_rx *rx = mkrx(4, &p);
	u64 epoch = 0x65000000ULL << 32, now = 0;
	u64 bulk = epoch | 2U << MRC_CREDIT_LANE_SHIFT | 20;
	u32 len = p.unsched + 8 * KB;

	p.stale_ns = 100 * MS;
	CHECK(mrc_credit_rx_request(rx, &p, 1, bulk, len, now, NULL) == 0,
	      "bulk 20");
	now = grant_all(rx, &p, now);
	CHECK(mrc_credit_rx_data(rx, &p, 1, bulk, len, p.unsched, 8 * KB,
				 now) == 0, "bulk data");
	/* the default lane's message 5 takes the idle entry */
	CHECK(mrc_credit_rx_request(rx, &p, 1, epoch | 5, len, now, NULL) == 0,
	      "default 5");
	now = grant_all(rx, &p, now);
	/* granted, its data on the way: the entry is not waiting */
	CHECK(rx->e[0].outstanding && !rx->nwaiting, "outstanding %u",
	      rx->e[0].outstanding);
	CHECK(mrc_credit_rx_request(rx, &p, 1, bulk, len, now, NULL) ==
	      -ESTALE, "bulk 20 again (a replay)");
	CHECK(mrc_credit_rx_request(rx, &p, 1, bulk - 1, len, now, NULL) ==
	      -ESTALE, "bulk 19");
	CHECK(rx->e[0].msg_id == (epoch | 5), "entry %llx",
	      ULL(rx->e[0].msg_id));
	/* the bulk lane's next message and an unseen lane are newer */
	CHECK(mrc_credit_rx_request(rx, &p, 1, bulk + 1, len, now, NULL) == 0,
	      "bulk 21");
	CHECK(mrc_credit_rx_data(rx, &p, 1, epoch | 5, len, p.unsched,
				 8 * KB, now) == 0, "default data");
	now = grant_all(rx, &p, now);
	CHECK(mrc_credit_rx_request(rx, &p, 1,
				    epoch | 3U << MRC_CREDIT_LANE_SHIFT | 7,
				    len, now, NULL) == 0, "lane 3, first");
	/* the next epoch: every lane new, the old epoch stale */
	CHECK(mrc_credit_rx_request(rx, &p, 1, bulk + 2, len, now, NULL) ==
	      -EBUSY, "bulk 22 while lane 3 waits");
	now = grant_all(rx, &p, now);
	CHECK(mrc_credit_rx_request(rx, &p, 1, (epoch + (1ULL << 32)) | 1,
				    len, now, NULL) == 0, "next epoch");
	now = grant_all(rx, &p, now);
	CHECK(mrc_credit_rx_request(rx, &p, 1, bulk + 3, len, now, NULL) ==
	      -ESTALE, "the old epoch");
	CHECK(rx->stats.req_stale == 3 && rx->stats.req_busy == 1,
	      "req_stale %llu req_busy %llu", ULL(rx->stats.req_stale),
	      ULL(rx->stats.req_busy));
}

/*
 * @bulk's last bytes arrive, @next (another lane) takes the entry: from
 * then on a request of @bulk is a replay (stale).
 */
static u64 finish_then_replay(struct mrc_credit_rx *rx,
			      const struct mrc_credit_params *p, u64 bulk,
			      u64 next, u32 len, u64 now)
{
	now = grant_all(rx, p, now);
	CHECK(mrc_credit_rx_data(rx, p, 1, bulk, len, p->unsched, 8 * KB,
				 now) == 0, "bulk data");
	CHECK(mrc_credit_rx_request(rx, p, 1, next, len, now, NULL) == 0,
	      "the next message %llx", ULL(next));
	CHECK(mrc_credit_rx_request(rx, p, 1, bulk, len, now, NULL) ==
	      -ESTALE, "bulk %llx again (a replay)", ULL(bulk));
	return now;
}

/*
 * A message whose sender gave its schedule up (its receiver's endpoint
 * was busy) asks again with the same id after another lane's message
 * took the entry: taken, not stale.  Once it finished, a replay of its
 * request is stale again.
 */
static void rx__unfinished_asks_again(void)
{
	struct mrc_credit_params p = defp();
	struct mrc_credit_rx *rx = mkrx(4, &p);
	struct mrc_credit_grant g[4];
	u64 epoch = 0x65000000ULL << 32, now = 0;
	u64 bulk = epoch | 2U << MRC_CREDIT_LANE_SHIFT | 20;
	u32 len = p.unsched + 8 * KB;

	CHECK(mrc_credit_rx_request(rx, &p, 1, bulk, len, now, NULL) == 0,
	      "bulk 20");
	now = grant_all(rx, &p, now);
	/* its sender went away busy: none of it comes, it is reclaimed */
	now += p.grant_timeout_ns;
	mrc_credit_rx_pace(rx, &p, now, 10 * US, g, 4);
	CHECK(!rx->e[0].outstanding && rx->e[0].reclaimed_bytes == 8 * KB,
	      "reclaimed %llu", ULL(rx->e[0].reclaimed_bytes));
	CHECK(mrc_credit_rx_request(rx, &p, 1, epoch | 5, len, now, NULL) == 0,
	      "default 5 takes the idle entry");
	now = grant_all(rx, &p, now);
	CHECK(mrc_credit_rx_data(rx, &p, 1, epoch | 5, len, p.unsched,
				 8 * KB, now) == 0, "default data");
	CHECK(mrc_credit_rx_request(rx, &p, 1, bulk, len, now, NULL) == 0,
	      "bulk 20 asks again: taken");
	CHECK(rx->e[0].msg_id == bulk && rx->e[0].granted == p.unsched,
	      "entry %llx granted %u", ULL(rx->e[0].msg_id),
	      rx->e[0].granted);
	/* finished: its request is a replay from now on */
	now = finish_then_replay(rx, &p, bulk, epoch | 6, len, now);
	/* one that left with bytes outstanding may ask again, in turn */
	now = grant_all(rx, &p, now);
	CHECK(mrc_credit_rx_request(rx, &p, 1, bulk + 1, len, now, NULL) == 0,
	      "bulk 21 while default 6 is in flight");
	CHECK(mrc_credit_rx_request(rx, &p, 1, epoch | 6, len, now, NULL) ==
	      -EBUSY, "default 6 again: open, waits for bulk 21");
	CHECK(mrc_credit_rx_request(rx, &p, 1, epoch | 5, len, now, NULL) ==
	      -ESTALE, "default 5: older than the open one");
	CHECK(rx->stats.req_stale == 2 && rx->stats.req_busy == 1,
	      "req_stale %llu req_busy %llu", ULL(rx->stats.req_stale),
	      ULL(rx->stats.req_busy));
}

/*
 * Any message's scheduled bytes settle the entry's outstanding credit (a
 * late resend of the one before): no sign that the entry's own message
 * finished.  One given up with its grant unused, its credit so settled,
 * still asks again once another lane's message took the entry; it was
 * stale for stale_ns, and its sender stalled that long.
 */
static void rx__settled_by_another_asks_again(void)
{
	struct mrc_credit_params p = defp();
	struct mrc_credit_rx *rx = mkrx(4, &p);
	u64 epoch = 0x65000000ULL << 32, now = 0;
	u64 bulk = epoch | 2U << MRC_CREDIT_LANE_SHIFT | 20;
	u32 len = p.unsched + 8 * KB;

	CHECK(mrc_credit_rx_request(rx, &p, 1, bulk, len, now, NULL) == 0,
	      "bulk 20");
	now = grant_all(rx, &p, now);
	/* bulk 19's scheduled bytes, resent late, settle bulk 20's credit */
	CHECK(mrc_credit_rx_data(rx, &p, 1, bulk - 1, len, p.unsched, 8 * KB,
				 now) == 0, "bulk 19 data");
	CHECK(!rx->e[0].outstanding, "outstanding %u", rx->e[0].outstanding);
	CHECK(mrc_credit_rx_request(rx, &p, 1, epoch | 5, len, now, NULL) == 0,
	      "default 5 takes the idle entry");
	now = grant_all(rx, &p, now);
	CHECK(mrc_credit_rx_request(rx, &p, 1, bulk, len, now, NULL) == 0,
	      "bulk 20 asks again: taken");
	CHECK(rx->e[0].msg_id == bulk, "entry %llx", ULL(rx->e[0].msg_id));
	/* its last byte came: a replay of its request is stale */
	finish_then_replay(rx, &p, bulk, epoch | 6, len, now);
	CHECK(rx->stats.req_stale == 1, "req_stale %llu",
	      ULL(rx->stats.req_stale));
}

static void rx__earlier_message_idle(void)
{
	struct mrc_credit_params p = defp();
	struct mrc_credit_rx *rx = mkrx(4, &p);
	struct mrc_credit_grant g[4];
	u64 now = 0, last;
	u32 len = p.unsched + 8 * KB;

	p.stale_ns = 100 * MS;
	CHECK(mrc_credit_rx_request(rx, &p, 1, 50, len, now, NULL) == 0, "req");
	while (rx->e[0].granted < len) {
		now += 10 * US;
		mrc_credit_rx_pace(rx, &p, now, 10 * US, g, 4);
	}
	CHECK(mrc_credit_rx_data(rx, &p, 1, 50, len, p.unsched, 8 * KB,
				 now) == 0, "data");
	CHECK(!rx->e[0].outstanding, "outstanding %u", rx->e[0].outstanding);
	last = rx->e[0].expiry;
	CHECK(mrc_credit_rx_request(rx, &p, 1, 49, len, last + p.stale_ns - 1,
				    NULL) == -ESTALE, "idle, recent");
	CHECK(rx->e[0].msg_id == 50, "entry %llx", ULL(rx->e[0].msg_id));
	CHECK(mrc_credit_rx_request(rx, &p, 1, 49, len, last + p.stale_ns,
				    NULL) == 0, "idle, quiet");
	CHECK(rx->e[0].msg_id == 49 && rx->e[0].granted == p.unsched,
	      "entry %llx granted %u", ULL(rx->e[0].msg_id),
	      rx->e[0].granted);
}

/* Granted bytes per interval track the rate; outstanding stays capped. */
static void rx__pacing_matches_rate(void)
{
	struct mrc_credit_params p = defp();
	struct mrc_credit_rx *rx;
	struct mrc_credit_grant g[8];
	u64 now, total = 0, expect;
	int i, k, n;

	p.rate = 1250000000ULL;		/* 10 Gbit/s */
	p.max_outstanding = 1U << 20;
	rx = mkrx(8, &p);
	for (k = 0; k < 8; k++)
		CHECK(mrc_credit_rx_request(rx, &p, k, 1, p.max_msg, 0,
					    NULL) == 0, "req %d", k);
	for (i = 1, now = 0; i <= 5000; i++) {
		now += 1700;		/* an odd period: remainders carry */
		n = mrc_credit_rx_pace(rx, &p, now, 1700, g, 8);
		for (k = 0; k < n; k++) {
			/* Perfect drain: everything granted arrives. */
			u32 from = g[k].granted - (u32)rx->e[g[k].idx].outstanding;

			total += rx->e[g[k].idx].outstanding;
			mrc_credit_rx_data(rx, &p, g[k].key, 1, p.max_msg, from,
					   g[k].granted - from, now);
		}
		CHECK(rx->total_outstanding <= p.max_outstanding, "outstanding");
	}
	expect = p.rate * now / 1000000000ULL;
	/* Within the initial burst and one unit of the ideal. */
	CHECK(total + p.grant_unit >= expect &&
	      total <= expect + p.burst + p.grant_unit,
	      "granted %llu, rate says %llu", ULL(total), ULL(expect));
	/* Fair: every sender within one unit of the others. */
	for (k = 1; k < 8; k++)
		CHECK(rx->e[k].granted_bytes + p.grant_unit >=
		      rx->e[0].granted_bytes &&
		      rx->e[0].granted_bytes + p.grant_unit >=
		      rx->e[k].granted_bytes, "sender %d got %llu vs %llu", k,
		      ULL(rx->e[k].granted_bytes), ULL(rx->e[0].granted_bytes));
	printf("# paced %llu bytes in %llu ns (rate says %llu)\n", ULL(total),
	       ULL(now), ULL(expect));
}

/*
 * A late pace (timer fired 8 periods late) still grants what drained
 * meanwhile while senders wait; an idle receiver saves only burst.
 */
static void rx__late_pace_keeps_rate(void)
{
	struct mrc_credit_params p = defp();
	struct mrc_credit_grant g[2];
	struct mrc_credit_rx *rx;
	u64 late = 8 * MS, drained;
	int n;

	p.rate = 2000000;		/* 2 MB/s: 16000 bytes in 8 ms */
	p.burst = 8 * KB;
	p.max_outstanding = 1U << 20;
	drained = p.rate * late / 1000000000ULL;
	rx = mkrx(2, &p);
	/* Idle for 8 ms: only burst saved up, none lost to the counter. */
	CHECK(mrc_credit_rx_pace(rx, &p, late, late, g, 2) == 0, "idle");
	CHECK(rx->tokens == p.burst && !rx->stats.capped_bytes,
	      "idle tokens %lld capped %llu", (long long)rx->tokens,
	      ULL(rx->stats.capped_bytes));
	/* A sender waits; the next pace comes 8 ms late. */
	CHECK(mrc_credit_rx_request(rx, &p, 1, 1, p.unsched + 1024 * KB,
				    late, NULL) == 0, "req");
	n = mrc_credit_rx_pace(rx, &p, 2 * late, late, g, 2);
	/* The saved burst and the 16000 drained bytes, in whole units. */
	drained += p.burst;
	CHECK(n == 1 && g[0].granted - p.unsched ==
	      drained - drained % p.grant_unit,
	      "n %d granted %u (burst + drained %llu)", n, n ? g[0].granted : 0,
	      ULL(drained));
	CHECK(!rx->stats.capped_bytes, "capped %llu",
	      ULL(rx->stats.capped_bytes));
	/* 130 ms late: 100 ms accounted, the other 30 ms counted as lost. */
	n = mrc_credit_rx_pace(rx, &p, 2 * late + 130 * MS, 130 * MS, g, 2);
	CHECK(n == 1 && rx->stats.paces == 3 &&
	      rx->stats.capped_bytes == p.rate * 30 / 1000,
	      "n %d paces %llu capped %llu", n, ULL(rx->stats.paces),
	      ULL(rx->stats.capped_bytes));
	/* The whole rate was granted or counted: nothing else lost. */
	CHECK(rx->e[0].granted_bytes + (u64)rx->tokens ==
	      p.burst + p.rate * 108 / 1000,
	      "granted %llu tokens %lld", ULL(rx->e[0].granted_bytes),
	      (long long)rx->tokens);
}

/*
 * At the highest rate a pace more than 1 s late counts a whole second of
 * drain as capped: rate x 1 s in ns is 1.25e20, beyond u64 (credit_fuzz
 * found capped_bytes wrapping to 1.4e10 there).
 */
static void rx__capped_at_max_rate(void)
{
	struct mrc_credit_params p = defp();
	struct mrc_credit_grant g[2];
	struct mrc_credit_rx *rx;
	u64 late = 2000 * MS;

	p.rate = MRC_CREDIT_MAX_RATE;
	rx = mkrx(2, &p);
	CHECK(mrc_credit_rx_request(rx, &p, 1, 1, p.unsched + 1024 * KB, 0,
				    NULL) == 0, "req");
	mrc_credit_rx_pace(rx, &p, late, late, g, 2);
	CHECK(rx->stats.capped_bytes >= MRC_CREDIT_MAX_RATE &&
	      rx->stats.capped_bytes <= MRC_CREDIT_MAX_RATE / 10 * 11 +
	      p.burst, "capped %llu, 1 s at the rate is %llu",
	      ULL(rx->stats.capped_bytes), ULL(MRC_CREDIT_MAX_RATE));
}

static void rx__reclaims_expired(void)
{
	struct mrc_credit_params p = defp();
	struct mrc_credit_rx *rx = mkrx(2, &p);
	struct mrc_credit_grant g[2];
	u32 len = p.unsched + 1024 * KB;
	u64 t = 0;

	p.max_outstanding = 64 * KB;
	p.burst = 64 * KB;
	mrc_credit_rx_init(rx, 2, &p);
	CHECK(mrc_credit_rx_request(rx, &p, 1, 1, len, t, NULL) == 0, "req");
	CHECK(mrc_credit_rx_pace(rx, &p, t, 0, g, 2) == 1, "first grant");
	CHECK(rx->total_outstanding == 64 * KB, "outstanding %llu",
	      ULL(rx->total_outstanding));
	/* Nothing arrives: the pool is full until grant_timeout. */
	t += p.grant_timeout_ns - 1;
	CHECK(mrc_credit_rx_pace(rx, &p, t, 1 * MS, g, 2) == 0, "granted more");
	t += 1;
	CHECK(mrc_credit_rx_pace(rx, &p, t, 1 * MS, g, 2) == 1, "no reclaim");
	CHECK(rx->stats.reclaimed_bytes == 64 * KB, "reclaimed %llu",
	      ULL(rx->stats.reclaimed_bytes));
	CHECK(g[0].granted == p.unsched + 128 * KB && g[0].seq == 2,
	      "grant %u seq %u", g[0].granted, g[0].seq);
}

/* Delivers every grant of @g[0..n) whole at @t (perfect drain). */
static void deliver(struct mrc_credit_rx *rx, const struct mrc_credit_params *p,
		    const struct mrc_credit_grant *g, int n, u32 len, u64 t)
{
	int k;

	for (k = 0; k < n; k++) {
		u32 out = rx->e[g[k].idx].outstanding;

		mrc_credit_rx_data(rx, p, g[k].key, g[k].msg_id, len,
				   g[k].granted - out, out, t);
	}
}

/*
 * With loop_mult, outstanding credit is capped by the credit loop: two
 * unscheduled windows before MRC_CREDIT_LOOP_SAMPLES grants were timed,
 * then loop_mult x the drain of the least grant-to-data time, within
 * max_outstanding; without it, max_outstanding alone.
 */
static void rx__loop_caps_outstanding(void)
{
	struct mrc_credit_params p = defp();
	struct mrc_credit_grant g[2];
	struct mrc_credit_rx *rx;
	u32 len = 64U << 20, floor;
	u64 t = US;
	int i, n;

	p.rate = 12500000000ULL;	/* 100 Gbit/s: 1.25 MB per 100 us */
	p.burst = 8U << 20;
	p.max_outstanding = 32U << 20;
	p.loop_mult = 4;
	floor = 2 * p.unsched;
	rx = mkrx(2, &p);
	CHECK(mrc_credit_rx_request(rx, &p, 1, 1, len, t, NULL) == 0, "req");
	n = mrc_credit_rx_pace(rx, &p, t, 0, g, 2);
	CHECK(n == 1 && rx->total_outstanding == floor && rx->out_cap == floor,
	      "before samples: n %d, outstanding %llu, cap %llu (want %u)", n,
	      ULL(rx->total_outstanding), ULL(rx->out_cap), floor);
	/* Each grant's bytes arrive 100 us later: a loop of 100 us. */
	for (i = 0; i < MRC_CREDIT_LOOP_SAMPLES; i++) {
		CHECK(mrc_credit_rx_loop_ns(rx) == 0, "loop after %d", i);
		t += 100 * US;
		deliver(rx, &p, g, n, len, t);
		n = mrc_credit_rx_pace(rx, &p, t, 100 * US, g, 2);
		CHECK(n == 1, "pace %d granted %d", i, n);
	}
	CHECK(mrc_credit_rx_loop_ns(rx) == 100 * US, "loop %u ns",
	      mrc_credit_rx_loop_ns(rx));
	CHECK(rx->out_cap == 4 * 1250000, "cap %llu", ULL(rx->out_cap));
	CHECK(rx->total_outstanding <= rx->out_cap, "outstanding %llu",
	      ULL(rx->total_outstanding));
	/* A shorter loop lowers it (down to the floor), max_outstanding caps. */
	t += 2 * US;
	deliver(rx, &p, g, n, len, t);
	mrc_credit_rx_pace(rx, &p, t, 2 * US, g, 2);
	CHECK(rx->out_cap == floor, "2 us loop: cap %llu", ULL(rx->out_cap));
	p.max_outstanding = 64 * KB;
	mrc_credit_rx_pace(rx, &p, t, 0, g, 2);
	CHECK(rx->out_cap == 64 * KB, "max_outstanding: cap %llu",
	      ULL(rx->out_cap));
	p.max_outstanding = 32U << 20;
	p.loop_mult = 0;
	mrc_credit_rx_pace(rx, &p, t, 0, g, 2);
	CHECK(rx->out_cap == p.max_outstanding, "fixed: cap %llu",
	      ULL(rx->out_cap));
}

/* Arrivals since the last pace make one due after a few grant units. */
static void rx__arrivals_clock_pace(void)
{
	struct mrc_credit_params p = defp();
	struct mrc_credit_grant g[1];
	struct mrc_credit_rx *rx = mkrx(1, &p);
	u32 i;

	for (i = 0; i < MRC_CREDIT_PACE_DATA_UNITS; i++) {
		CHECK(!mrc_credit_rx_data_due(rx, p.grant_unit), "due at %u", i);
		mrc_credit_rx_data(rx, &p, 1, 1, p.unsched, i * p.grant_unit,
				   p.grant_unit, 0);
	}
	CHECK(mrc_credit_rx_data_due(rx, p.grant_unit), "not due");
	mrc_credit_rx_pace(rx, &p, 1, 1, g, 1);
	CHECK(!mrc_credit_rx_data_due(rx, p.grant_unit) && !rx->since_pace,
	      "a pace leaves %u bytes", rx->since_pace);
}

/*
 * A sender whose granted bytes stop coming (lost, waiting for its
 * retransmission timer) holds its credit outside the cap once the others
 * delivered MRC_CREDIT_STALL_CAPS caps, so the others go on at the full
 * cap; the credit still counts as outstanding.
 */
static void rx__stalled_sender_outside_cap(void)
{
	struct mrc_credit_params p = defp();
	struct mrc_credit_grant g[2];
	struct mrc_credit_rx *rx;
	u32 len = 64U << 20, a_out, b_max = 0;
	const struct mrc_credit_rx_entry *a, *b;
	u64 t = 0;
	int i, n, k;

	p.rate = 1250000000ULL;		/* 10 Gbit/s */
	p.burst = 1U << 20;
	p.max_outstanding = 32U << 20;
	p.loop_mult = 4;
	rx = mkrx(2, &p);
	CHECK(mrc_credit_rx_request(rx, &p, 1, 1, len, t, NULL) == 0, "req a");
	CHECK(mrc_credit_rx_request(rx, &p, 2, 1, len, t, NULL) == 0, "req b");
	a = mrc_credit_rx_lookup(rx, 1);
	b = mrc_credit_rx_lookup(rx, 2);
	n = mrc_credit_rx_pace(rx, &p, t, 0, g, 2);
	a_out = a->outstanding;
	CHECK(n == 2 && a_out && rx->total_outstanding == rx->out_cap,
	      "n %d, a %u, outstanding %llu", n, a_out,
	      ULL(rx->total_outstanding));
	/*
	 * B's bytes arrive 5 us after each pace; A's never.  Once A counts
	 * as stalled it gets no more credit.
	 */
	for (i = 0; i < 400; i++) {
		t += 5 * US;
		for (k = 0; k < n; k++)
			if (g[k].key == 2)
				deliver(rx, &p, &g[k], 1, len, t);
		n = mrc_credit_rx_pace(rx, &p, t, 5 * US, g, 2);
		if (!rx->out_stalled)
			a_out = a->outstanding;
		else
			b_max = b->outstanding > b_max ? b->outstanding : b_max;
	}
	CHECK(rx->out_stalled && a->outstanding == a_out &&
	      rx->out_stalled == a_out, "a %u of %u, stalled %llu",
	      a->outstanding, a_out, ULL(rx->out_stalled));
	CHECK(b_max + a_out > rx->out_cap && b_max <= rx->out_cap,
	      "b got at most %u beside a's %u (cap %llu)", b_max, a_out,
	      ULL(rx->out_cap));
	CHECK(rx->total_outstanding <= rx->out_cap + a_out, "outstanding %llu",
	      ULL(rx->total_outstanding));
}

/*
 * One sender's request, granted at @t up to the cap of the credit loop
 * bound (loop_mult 4, a burst that fills the cap at once).
 */
static struct mrc_credit_rx *granted_to_cap(struct mrc_credit_params *p,
					    u64 t)
{
	struct mrc_credit_grant g[1];
	struct mrc_credit_rx *rx;

	p->loop_mult = 4;
	p->burst = 1U << 20;
	rx = mkrx(1, p);
	CHECK(mrc_credit_rx_request(rx, p, 1, 1, 64U << 20, t, NULL) == 0,
	      "req");
	CHECK(mrc_credit_rx_pace(rx, p, t, 0, g, 1) == 1 &&
	      rx->total_outstanding == rx->out_cap, "grant");
	return rx;
}

/*
 * Nothing arrives at all: a sender's credit is outside the cap once it
 * had no news (grant or data) for a sixteenth of the grant timeout
 * (before the loop is known), not sooner.
 */
static void rx__silent_fabric_stalls_after_a_while(void)
{
	struct mrc_credit_params p = defp();
	struct mrc_credit_grant g[1];
	struct mrc_credit_rx *rx;
	u64 t = 10 * MS, wait = p.grant_timeout_ns / MRC_CREDIT_STALL_LOOPS;

	rx = granted_to_cap(&p, t);
	mrc_credit_rx_pace(rx, &p, t + wait - 1, wait - 1, g, 1);
	CHECK(!rx->out_stalled, "stalled %llu after %llu ns",
	      ULL(rx->out_stalled), ULL(wait - 1));
	mrc_credit_rx_pace(rx, &p, t + wait, 1, g, 1);
	CHECK(rx->out_stalled == rx->total_outstanding && rx->out_stalled,
	      "after %llu ns: stalled %llu of %llu", ULL(wait),
	      ULL(rx->out_stalled), ULL(rx->total_outstanding));
}

/*
 * A caller's clock may run behind the one that stamped the last arrival
 * (another CPU's): a pace whose now is before that news does not find a
 * sender stalled by time (the difference would wrap).
 */
static void rx__clock_behind_news_no_stall(void)
{
	struct mrc_credit_params p = defp();
	struct mrc_credit_grant g[1];
	struct mrc_credit_rx *rx;
	u64 t = 10 * MS, wait = p.grant_timeout_ns / MRC_CREDIT_STALL_LOOPS;

	rx = granted_to_cap(&p, t);
	/* another sender's unscheduled bytes, stamped by a later clock */
	mrc_credit_rx_data(rx, &p, 9, 5, 100, 0, 100, t + wait + 10);
	CHECK(rx->arrived_ns == t + wait + 10, "arrived_ns %llu",
	      ULL(rx->arrived_ns));
	mrc_credit_rx_pace(rx, &p, t + wait - 1, wait - 1, g, 1);
	CHECK(!rx->out_stalled, "stalled %llu with the pacer's clock behind",
	      ULL(rx->out_stalled));
}

static void rx__srpt_order(void)
{
	struct mrc_credit_params p = defp();
	struct mrc_credit_rx *rx;
	struct mrc_credit_grant g[3];
	int n;

	p.policy = MRC_CREDIT_SRPT;
	p.burst = 16 * KB;
	rx = mkrx(3, &p);
	mrc_credit_rx_request(rx, &p, 1, 1, p.unsched + 1024 * KB, 0, NULL);
	mrc_credit_rx_request(rx, &p, 2, 1, p.unsched + 12 * KB, 0, NULL);
	mrc_credit_rx_request(rx, &p, 3, 1, p.unsched + 64 * KB, 0, NULL);
	n = mrc_credit_rx_pace(rx, &p, 0, 0, g, 3);
	/* 12 KB to the shortest, the other 4 KB to the next. */
	CHECK(n == 2 && g[0].key == 2 && g[0].granted == p.unsched + 12 * KB &&
	      g[1].key == 3 && g[1].granted == p.unsched + 4 * KB,
	      "n %d: %u@%u %u@%u", n, g[0].key, g[0].granted, g[1].key,
	      g[1].granted);
}

/* Background entries get only what the others leave (both policies). */
static void rx__background_last(void)
{
	struct mrc_credit_params p = defp();
	struct mrc_credit_grant g[3];
	struct mrc_credit_rx *rx;
	unsigned int pol;
	int n;

	for (pol = 0; pol < MRC_CREDIT_POLICY_NR; pol++) {
		p.policy = pol;
		p.burst = 8 * KB;
		rx = mkrx(3, &p);
		/* 2 (background) asks first; 1 and 3 are normal */
		mrc_credit_rx_request(rx, &p, 2, 1, p.unsched + 64 * KB, 0,
				      NULL);
		mrc_credit_rx_set_low(rx, 2, true);
		mrc_credit_rx_request(rx, &p, 1, 1, p.unsched + 64 * KB, 0,
				      NULL);
		mrc_credit_rx_request(rx, &p, 3, 1, p.unsched + 64 * KB, 0,
				      NULL);
		/* 8 KB of budget: none of it to the background sender */
		n = mrc_credit_rx_pace(rx, &p, 0, 0, g, 3);
		CHECK(n >= 1 && g[0].key != 2 && (n < 2 || g[1].key != 2),
		      "policy %u: n %d, first to %u", pol, n, g[0].key);
		/* the normal ones done: now the background one gets it */
		mrc_credit_rx_forget(rx, 1);
		mrc_credit_rx_forget(rx, 3);
		n = mrc_credit_rx_pace(rx, &p, 0, MS, g, 3);
		CHECK(n == 1 && g[0].key == 2, "policy %u: n %d, to %u", pol,
		      n, n ? g[0].key : 0);
		/* a new request of the same sender is normal again */
		mrc_credit_rx_forget(rx, 2);
		mrc_credit_rx_request(rx, &p, 2, 2, p.unsched + 64 * KB, 0,
				      NULL);
		mrc_credit_rx_request(rx, &p, 1, 2, p.unsched + 64 * KB, 0,
				      NULL);
		mrc_credit_rx_set_low(rx, 1, true);
		n = mrc_credit_rx_pace(rx, &p, 0, MS, g, 3);
		CHECK(n >= 1 && g[0].key == 2, "policy %u: n %d, first to %u",
		      pol, n, g[0].key);
	}
}

/* ---------------------------------------------------------------- */
/* sender                                                            */
/* ---------------------------------------------------------------- */

static void tx__unscheduled_only(void)
{
	struct mrc_credit_params p = defp();
	struct mrc_credit_tx tx;

	memset(&tx, 0, sizeof(tx));
	CHECK(!mrc_credit_tx_start(&tx, &p, 1, p.unsched, 0), "needs request");
	CHECK(mrc_credit_tx_may_send(&tx, U32_MAX, 0) == p.unsched, "window");
	CHECK(mrc_credit_tx_sent(&tx, p.unsched) == 0, "sent");
	CHECK(mrc_credit_tx_done(&tx), "done");
	CHECK(!mrc_credit_tx_request_due(&tx, &p, 1000 * MS), "request due");
	CHECK(tx.unsched_bytes == p.unsched && !tx.sched_bytes, "stats");
}

static void tx__grants_validated(void)
{
	struct mrc_credit_params p = defp();
	struct mrc_credit_tx tx;
	u32 len = p.unsched + 100 * KB, u = p.unsched;

	memset(&tx, 0, sizeof(tx));
	CHECK(mrc_credit_tx_start(&tx, &p, 5, len, 0), "no request");
	CHECK(mrc_credit_tx_may_send(&tx, U32_MAX, 0) == u, "unsched");
	CHECK(mrc_credit_tx_sent(&tx, u + 1) == -EPERM, "over credit");
	CHECK(mrc_credit_tx_sent(&tx, u) == 0, "sent");
	CHECK(mrc_credit_tx_may_send(&tx, 1, 100) == 0, "no credit yet");
	CHECK(mrc_credit_tx_grant(&tx, &p, 6, len, u + 8 * KB, 1, 200) == -ENOENT,
	      "other message");
	CHECK(mrc_credit_tx_grant(&tx, &p, 5, len, len + 1, 1, 200) == -ERANGE,
	      "beyond the message");
	CHECK(mrc_credit_tx_grant(&tx, &p, 5, len, u + 8 * KB, 1, 300) == 1, "ok");
	CHECK(tx.wait_ns == 200, "wait %llu", ULL(tx.wait_ns));
	CHECK(mrc_credit_tx_grant(&tx, &p, 5, len, u + 8 * KB, 1, 300) == 0,
	      "dup");
	CHECK(mrc_credit_tx_grant(&tx, &p, 5, len + 8, u + 8 * KB, 1, 300) ==
	      -ENOENT, "other msg_len");
	CHECK(mrc_credit_tx_grant(&tx, &p, 5, len, u + 16 * KB, 1, 300) == -EINVAL,
	      "same seq, other offset");
	CHECK(mrc_credit_tx_grant(&tx, &p, 5, len, u + 4 * KB, 2, 300) == -EINVAL,
	      "newer seq, offset back");
	CHECK(mrc_credit_tx_grant(&tx, &p, 5, len, u + 16 * KB, 3, 300) == 1,
	      "ok 3");
	CHECK(mrc_credit_tx_grant(&tx, &p, 5, len, u + 64 * KB, 2, 300) ==
	      -EINVAL, "old seq, more credit");
	CHECK(mrc_credit_tx_grant(&tx, &p, 5, len, u + 8 * KB, 1, 300) ==
	      -ESTALE, "old seq, overtaken");
	CHECK(tx.granted == u + 16 * KB, "granted %u", tx.granted);
	CHECK(mrc_credit_tx_may_send(&tx, U32_MAX, 300) == 16 * KB, "room");
	CHECK(tx.grants == 2 && tx.grants_dup == 1 && tx.grants_bad == 6 &&
	      tx.grants_stale == 1, "counts %llu %llu %llu %llu",
	      ULL(tx.grants), ULL(tx.grants_dup), ULL(tx.grants_bad),
	      ULL(tx.grants_stale));
}

/*
 * A scheduled message that starts within request_timeout of its
 * predecessor's last grant chains: no window, a REQUEST from byte 0.
 * Not after the timeout, not after a message that asked no credit, and
 * never a message within the window.
 */
static void tx__chained(void)
{
	struct mrc_credit_params p = defp();
	struct mrc_credit_tx tx;
	u32 len = p.unsched + 8 * KB, t = p.request_timeout_ns;

	memset(&tx, 0, sizeof(tx));
	CHECK(mrc_credit_tx_start(&tx, &p, 1, len, 0), "request");
	CHECK(tx.granted == p.unsched && !tx.msgs_chained, "the first: window");
	mrc_credit_tx_sent(&tx, p.unsched);
	CHECK(mrc_credit_tx_grant(&tx, &p, 1, len, len, 1, 100) == 1, "grant");
	mrc_credit_tx_sent(&tx, 8 * KB);
	CHECK(mrc_credit_tx_start(&tx, &p, 2, len, 100 + t - 1), "request 2");
	CHECK(tx.granted == 0 && tx.unsched_end == 0 && tx.msgs_chained == 1,
	      "chained: granted %u", tx.granted);
	CHECK(mrc_credit_tx_may_send(&tx, 4096, 100 + t) == 0, "no credit");
	CHECK(mrc_credit_tx_grant(&tx, &p, 2, len, 4 * KB, 1, 2 * t) == 1,
	      "grant from 0");
	CHECK(mrc_credit_tx_may_send(&tx, U32_MAX, 2 * t) == 4 * KB, "4 KB");
	mrc_credit_tx_sent(&tx, 4 * KB);
	CHECK(tx.sched_bytes == 12 * KB && tx.unsched_bytes == p.unsched,
	      "stats %llu %llu", ULL(tx.sched_bytes), ULL(tx.unsched_bytes));
	/* its last grant at 2t: a message after 3t has the window again */
	mrc_credit_tx_grant(&tx, &p, 2, len, len, 2, 2 * t);
	mrc_credit_tx_sent(&tx, len - 4 * KB);
	CHECK(mrc_credit_tx_start(&tx, &p, 3, len, 3 * t), "request 3");
	CHECK(tx.granted == p.unsched && tx.msgs_chained == 1,
	      "after the timeout: window");
	mrc_credit_tx_sent(&tx, p.unsched);
	mrc_credit_tx_grant(&tx, &p, 3, len, len, 1, 3 * t);
	mrc_credit_tx_sent(&tx, 8 * KB);
	/* a message within the window neither chains nor asks */
	CHECK(!mrc_credit_tx_start(&tx, &p, 4, p.unsched, 3 * t),
	      "short asks");
	CHECK(tx.granted == p.unsched && tx.msgs_chained == 1, "short chained");
	mrc_credit_tx_sent(&tx, p.unsched);
	/* ... and the one after it did not ask: the window */
	CHECK(mrc_credit_tx_start(&tx, &p, 5, len, 3 * t), "request 5");
	CHECK(tx.granted == p.unsched && tx.msgs_chained == 1,
	      "after a short one: window");
}

static void tx__rerequest_after_timeout(void)
{
	struct mrc_credit_params p = defp();
	struct mrc_credit_tx tx;
	u32 len = p.unsched + 100 * KB;

	memset(&tx, 0, sizeof(tx));
	mrc_credit_tx_start(&tx, &p, 5, len, 0);
	mrc_credit_tx_requested(&tx, &p, 0);
	CHECK(!mrc_credit_tx_request_due(&tx, &p, p.request_timeout_ns),
	      "due while it still has credit");
	mrc_credit_tx_sent(&tx, p.unsched);
	CHECK(!mrc_credit_tx_request_due(&tx, &p, p.request_timeout_ns - 1),
	      "due early");
	CHECK(mrc_credit_tx_request_due(&tx, &p, p.request_timeout_ns),
	      "not due");
	CHECK(!mrc_credit_tx_request_due(&tx, &p, p.request_timeout_ns + 1),
	      "due twice");
}

/*
 * Grants that arrive late or overtaken are what the receiver really sent:
 * grants_stale, not grants_bad (credit.sh checks grants_bad is 0 on a
 * fabric that reorders).  Their shape must still fit what was taken.
 */
/*
 * A chained message (its schedule from 0) is given up, its receiver's
 * endpoint busy, and started again with its own id: now with the whole
 * window unscheduled.  The grants of its earlier schedule still in
 * flight grant nothing past the window: stale, not forged; the next
 * one past the window is taken.
 */
/*
 * rerequest_ns below the request timeout: a starved sender asks again
 * after it (its RTO floor, from the host), and after a grant; chaining
 * still goes by the request timeout.
 */
static void tx__rerequest_sooner(void)
{
	struct mrc_credit_params p = defp();
	struct mrc_credit_tx tx;
	u32 len = p.unsched + 100 * KB, r = 1 * MS;
	u64 t = p.request_timeout_ns;

	p.rerequest_ns = r;
	memset(&tx, 0, sizeof(tx));
	mrc_credit_tx_start(&tx, &p, 5, len, 0);
	mrc_credit_tx_requested(&tx, &p, 0);
	mrc_credit_tx_sent(&tx, p.unsched);
	CHECK(!mrc_credit_tx_request_due(&tx, &p, r - 1), "due early");
	CHECK(mrc_credit_tx_request_due(&tx, &p, r), "not due at %u", r);
	CHECK(mrc_credit_tx_grant(&tx, &p, 5, len, p.unsched + 4 * KB, 1,
				  2 * r) == 1, "grant");
	mrc_credit_tx_sent(&tx, 4 * KB);
	CHECK(!mrc_credit_tx_request_due(&tx, &p, 3 * r - 1), "due early 2");
	CHECK(mrc_credit_tx_request_due(&tx, &p, 3 * r), "not due after grant");
	mrc_credit_tx_grant(&tx, &p, 5, len, len, 2, 3 * r);
	mrc_credit_tx_sent(&tx, len - p.unsched - 4 * KB);
	CHECK(mrc_credit_tx_start(&tx, &p, 6, len, 3 * r + t - 1) &&
	      tx.msgs_chained == 1, "not chained within the request timeout");
	/* above the timeout it is the timeout */
	p.rerequest_ns = 2 * p.request_timeout_ns;
	memset(&tx, 0, sizeof(tx));
	mrc_credit_tx_start(&tx, &p, 5, len, 0);
	mrc_credit_tx_sent(&tx, p.unsched);
	CHECK(!mrc_credit_tx_request_due(&tx, &p, t - 1) &&
	      mrc_credit_tx_request_due(&tx, &p, t), "not the timeout");
}

static void tx__resumed_old_schedule_stale(void)
{
	struct mrc_credit_params p = defp();
	struct mrc_credit_tx tx;
	u32 len = p.unsched + 32 * KB, u = p.unsched;

	memset(&tx, 0, sizeof(tx));
	mrc_credit_tx_start(&tx, &p, 6, len, 0);
	CHECK(mrc_credit_tx_grant(&tx, &p, 6, len, len, 1, 1) == 1, "6 all");
	mrc_credit_tx_sent(&tx, mrc_credit_tx_may_send(&tx, U32_MAX, 2));
	CHECK(mrc_credit_tx_start(&tx, &p, 7, len, 3) && tx.granted == 0,
	      "7 chained: granted %u", tx.granted);
	tx.active = 0;			/* given up: credit_peer.c reset */
	CHECK(mrc_credit_tx_start(&tx, &p, 7, len, 4) && tx.granted == u,
	      "7 again, with its window: granted %u", tx.granted);
	CHECK(mrc_credit_tx_grant(&tx, &p, 7, len, 8 * KB, 1, 5) == -ESTALE,
	      "7's first grant of the chained schedule");
	CHECK(mrc_credit_tx_grant(&tx, &p, 7, len, u, 2, 5) == -ESTALE,
	      "... up to the window");
	CHECK(mrc_credit_tx_grant(&tx, &p, 7, len, u + 4 * KB, 3, 5) == 1,
	      "past the window: taken");
	CHECK(mrc_credit_tx_grant(&tx, &p, 7, len, u, 4, 5) == -EINVAL,
	      "then a newer seq granting less is forged");
	CHECK(tx.grants == 2 && tx.grants_stale == 2 && tx.grants_bad == 1,
	      "counts %llu %llu %llu", ULL(tx.grants), ULL(tx.grants_stale),
	      ULL(tx.grants_bad));
}

static void tx__late_grants_stale(void)
{
	struct mrc_credit_params p = defp();
	struct mrc_credit_tx tx;
	u32 len = p.unsched + 32 * KB, u = p.unsched;

	memset(&tx, 0, sizeof(tx));
	mrc_credit_tx_start(&tx, &p, 7, len, 0);
	CHECK(mrc_credit_tx_grant(&tx, &p, 7, len, u + 8 * KB, 1, 1) == 1,
	      "grant 1");
	CHECK(mrc_credit_tx_grant(&tx, &p, 7, len, len, 2, 2) == 1, "grant 2");
	mrc_credit_tx_sent(&tx, mrc_credit_tx_may_send(&tx, U32_MAX, 3));
	CHECK(mrc_credit_tx_done(&tx), "done");
	/* a small message between: needs no credit, keeps the record */
	CHECK(!mrc_credit_tx_start(&tx, &p, 8, 100, 4), "small");
	CHECK(mrc_credit_tx_start(&tx, &p, 9, len, 5), "next scheduled");
	CHECK(mrc_credit_tx_grant(&tx, &p, 7, len, u + 8 * KB, 1, 6) ==
	      -ESTALE, "message 7's first grant, overtaken");
	CHECK(mrc_credit_tx_grant(&tx, &p, 7, len, len, 2, 6) == -ESTALE,
	      "message 7's last grant, repeated");
	CHECK(mrc_credit_tx_grant(&tx, &p, 7, len, u + 4 * KB, 3, 6) ==
	      -ENOENT, "message 7: a newer seq granting less");
	CHECK(mrc_credit_tx_grant(&tx, &p, 7, len + 1, len, 2, 6) == -ENOENT,
	      "message 7: another length");
	CHECK(mrc_credit_tx_grant(&tx, &p, 8, 100, 100, 1, 6) == -ENOENT,
	      "message 8 asked for nothing");
	CHECK(tx.granted == u, "granted %u", tx.granted);
	/* reset mid-message: later grants of it are late, not forged */
	tx.active = 0;
	CHECK(mrc_credit_tx_grant(&tx, &p, 9, len, u + 8 * KB, 1, 7) ==
	      -ESTALE, "grant after reset");
	CHECK(mrc_credit_tx_grant(&tx, &p, 9, len, len + 1, 2, 7) == -ERANGE,
	      "beyond, after reset");
	CHECK(tx.granted == u && !mrc_credit_tx_may_send(&tx, U32_MAX, 8),
	      "took credit after reset: %u", tx.granted);
	CHECK(tx.grants == 2 && tx.grants_stale == 3 && tx.grants_bad == 4 &&
	      !tx.grants_dup, "counts %llu %llu %llu %llu", ULL(tx.grants),
	      ULL(tx.grants_stale), ULL(tx.grants_bad), ULL(tx.grants_dup));
}

/*
 * credit_peer.c: a receiver with credits off answers a request with the
 * whole message at sequence 2^31 - 1.  Taken at any point of a message
 * (even after pacer grants); later pacer grants are stale, repeats dup.
 */
static void tx__whole_message_grant(void)
{
	struct mrc_credit_params p = defp();
	struct mrc_credit_tx tx;
	u32 len = p.unsched + 100 * KB, u = p.unsched;

	memset(&tx, 0, sizeof(tx));
	mrc_credit_tx_start(&tx, &p, 9, len, 0);
	CHECK(mrc_credit_tx_grant(&tx, &p, 9, len, len, 0x7fffffff, 10) == 1,
	      "whole message, fresh");
	CHECK(mrc_credit_tx_may_send(&tx, U32_MAX, 10) == len, "all of it");
	CHECK(mrc_credit_tx_grant(&tx, &p, 9, len, len, 0x7fffffff, 20) == 0,
	      "repeat is a duplicate");
	CHECK(mrc_credit_tx_grant(&tx, &p, 9, len, u + 8 * KB, 3, 20) ==
	      -ESTALE,
	      "pacer grant after it");

	memset(&tx, 0, sizeof(tx));
	mrc_credit_tx_start(&tx, &p, 10, len, 0);
	CHECK(mrc_credit_tx_grant(&tx, &p, 10, len, u + 8 * KB, 1000, 10) ==
	      1,
	      "pacer grant");
	CHECK(mrc_credit_tx_grant(&tx, &p, 10, len, len, 0x7fffffff, 20) == 1,
	      "whole message after pacer grants");
	CHECK(tx.granted == len, "granted %u", tx.granted);
}

/* The packet that uses up the credit, and only that one, asks for a SACK. */
static void tx__limited(void)
{
	struct mrc_credit_params p = defp();
	struct mrc_credit_tx tx;
	u32 seg = p.grant_unit, u = p.unsched, len = u + 3 * seg + 100;

	memset(&tx, 0, sizeof(tx));
	CHECK(!mrc_credit_tx_limited(&tx, seg), "inactive");
	mrc_credit_tx_start(&tx, &p, 3, len, 0);
	CHECK(!mrc_credit_tx_limited(&tx, seg), "window left");
	mrc_credit_tx_sent(&tx, u - seg);
	CHECK(!mrc_credit_tx_limited(&tx, seg), "one packet of it left");
	mrc_credit_tx_sent(&tx, seg - 1);
	CHECK(mrc_credit_tx_limited(&tx, seg), "less than a packet left");
	mrc_credit_tx_sent(&tx, 1);
	CHECK(mrc_credit_tx_limited(&tx, seg), "window used up");
	mrc_credit_tx_grant(&tx, &p, 3, len, u + 2 * seg, 1, 10);
	CHECK(!mrc_credit_tx_limited(&tx, seg), "granted two");
	mrc_credit_tx_sent(&tx, seg);
	CHECK(!mrc_credit_tx_limited(&tx, seg), "one granted left");
	mrc_credit_tx_sent(&tx, seg);
	CHECK(mrc_credit_tx_limited(&tx, seg), "grant used up");
	/* the rest: one packet and a 100-byte tail */
	mrc_credit_tx_grant(&tx, &p, 3, len, len - 100, 2, 20);
	CHECK(!mrc_credit_tx_limited(&tx, seg), "one more granted");
	mrc_credit_tx_sent(&tx, seg);
	CHECK(mrc_credit_tx_limited(&tx, seg), "the tail not granted");
	mrc_credit_tx_grant(&tx, &p, 3, len, len, 3, 30);
	CHECK(!mrc_credit_tx_limited(&tx, seg), "the tail granted");
	mrc_credit_tx_sent(&tx, 100);
	CHECK(mrc_credit_tx_done(&tx) && !mrc_credit_tx_limited(&tx, seg),
	      "done: the LAST flag asks for the SACK");
}

/* Random grants thrown at a sender never let it past a legitimate bound. */
static void tx__random_grants_fuzz(void)
{
	struct mrc_credit_params p = defp();
	struct mrc_credit_tx tx;
	u32 len = p.unsched + 256 * KB, prev;
	int i;

	memset(&tx, 0, sizeof(tx));
	mrc_credit_tx_start(&tx, &p, 9, len, 0);
	for (i = 0; i < 200000; i++) {
		u64 msg = rnd(4) ? 9 : rng();
		u32 off = rnd(2) ? rnd(len + 2) : (u32)rng();
		u32 seq = rnd(2) ? tx.seq + rnd(3) - 1 : (u32)rng();

		prev = tx.granted;
		mrc_credit_tx_grant(&tx, &p, msg, rnd(8) ? len : (u32)rng(), off,
				    seq, i);
		CHECK(tx.granted >= prev && tx.granted <= len, "granted %u",
		      tx.granted);
		mrc_credit_tx_sent(&tx, mrc_credit_tx_may_send(&tx, rnd(9000),
							       i));
		CHECK(tx.sent <= tx.granted, "sent %u > granted %u", tx.sent,
		      tx.granted);
		if (failed_checks)
			break;
	}
}

/* ---------------------------------------------------------------- */
/* incast simulation                                                 */
/* ---------------------------------------------------------------- */

/*
 * Time steps of SIM_DT ns.  Senders and the bottleneck all run at C =
 * 10 Gbit/s (1.25 bytes/ns, a 4 KB packet every 3277 ns); the bottleneck
 * has a drop-tail queue of Q bytes.  Data takes D_UP ns from a sender to
 * the queue and D_DOWN ns from the link to the receiver; control packets
 * (REQUEST, GRANT) take D_CTL ns and do not queue.  The receiver's pacer
 * runs every PACE_NS.
 */
#define SIM_DT		8
#define PKT		4096U
#define C_BPS		1250000000ULL
#define D_UP		2000
#define D_DOWN		1000
#define D_CTL		3000
#define PACE_NS		2000
#define MAX_SEND	8
#define MAX_MSGS	16
#define RING		8192

enum { EV_DATA, EV_REQ, EV_GRANT };

struct ev {
	u64 t;
	u32 type, s, len, off, msg_len, seq;
	u64 msg;
};

struct ring {
	struct ev e[RING];
	u32 head, tail;
};

static bool ring_push(struct ring *r, const struct ev *e)
{
	if (r->tail - r->head >= RING)
		return false;
	r->e[r->tail++ % RING] = *e;
	return true;
}

static struct ev *ring_peek(struct ring *r)
{
	return r->head == r->tail ? NULL : &r->e[r->head % RING];
}

struct sim_cfg {
	u32 nsend;
	u32 nmsg[MAX_SEND];
	u32 size[MAX_SEND][MAX_MSGS];
	u32 policy;
	u32 queue;		/* bottleneck queue, bytes */
	u32 grant_loss_pct;
	bool adversary;		/* inject forged/duplicate grants/requests */
	bool credits;		/* false: no credits (everything unscheduled) */
	bool no_window;		/* credits with unsched 0: all scheduled */
	u32 late_max;		/* each pace up to this many periods late */
	u64 max_ns;
};

struct sim_res {
	u64 drops, pkts, max_queue, end_ns, bytes;
	u64 done_ns[MAX_SEND][MAX_MSGS];
	u64 first_done_ns, at_first[MAX_SEND];
	bool snap;
	double jain_window;
	bool all_done;
	u64 over_credit, tx_bad, tx_dup, tx_stale, grants_lost, rx_refused;
	u64 requests;
	u64 reclaimed, wait_ns;
	u64 unsched, chained;	/* bytes charged unscheduled; chained msgs */
	double goodput, jain;
};

struct sim_sender {
	struct mrc_credit_tx tx;
	u32 cur;		/* message being sent */
	u64 nic_free;
	u64 delivered;		/* bytes at the receiver */
	u32 rcvd[MAX_MSGS];
	struct ev last_grant[4];	/* for replays */
	u32 ngrants;
};

static struct sim_sender ss[MAX_SEND];
static struct ring up, link_q, down, ctl_rx, ctl_tx;

static u64 msg_id_of(u32 s, u32 m)
{
	return ((u64)s << 32) | (m + 1);
}

/* What a grant of @msg to sender @s says its length is (0: no such). */
static u32 sim_msg_len(const struct sim_cfg *c, u32 s, u64 msg)
{
	u32 m = (u32)msg - 1;

	return msg >> 32 == s && m < c->nmsg[s] ? c->size[s][m] : 0;
}

static double jain(const u64 *x, u32 n)
{
	double sum = 0, sq = 0;
	u32 i;

	for (i = 0; i < n; i++) {
		sum += (double)x[i];
		sq += (double)x[i] * x[i];
	}
	return sq ? sum * sum / (n * sq) : 0;
}

static void sim_start_msg(const struct sim_cfg *c,
			  const struct mrc_credit_params *p, u32 s, u64 now)
{
	struct sim_sender *x = &ss[s];
	struct ev e = { .type = EV_REQ, .s = s };

	if (x->cur >= c->nmsg[s])
		return;
	e.msg = msg_id_of(s, x->cur);
	e.msg_len = c->size[s][x->cur];
	e.t = now + D_CTL;
	if (mrc_credit_tx_start(&x->tx, p, e.msg, e.msg_len, now)) {
		e.off = x->tx.granted;	/* the window it sends, 0: chained */
		ring_push(&ctl_rx, &e);
		mrc_credit_tx_requested(&x->tx, p, now);
	}
}

static void sim_run(const struct sim_cfg *c, struct sim_res *r)
{
	struct mrc_credit_params p = defp();
	struct mrc_credit_rx *rx;
	struct mrc_credit_grant go[4 * MAX_SEND];
	u64 now, link_free = 0, qbytes = 0, next_pace = PACE_NS, total = 0;
	u64 last_pace = 0;
	struct ev e, *h;
	u32 s, i, m, ngo;
	int n, rc;

	p.rate = C_BPS;
	p.policy = c->policy;
	p.unsched = c->credits ? 3 * PKT : U32_MAX - 1;
	if (c->no_window)
		p.unsched = 0;
	p.grant_unit = PKT;
	p.burst = 2 * PKT;
	p.max_outstanding = 6 * PKT;
	p.grant_timeout_ns = 60 * US;
	p.request_timeout_ns = 40 * US;
	rx = mkrx(c->nsend, &p);

	memset(r, 0, sizeof(*r));
	memset(ss, 0, sizeof(ss));
	memset(&up, 0, sizeof(up));
	memset(&link_q, 0, sizeof(link_q));
	memset(&down, 0, sizeof(down));
	memset(&ctl_rx, 0, sizeof(ctl_rx));
	memset(&ctl_tx, 0, sizeof(ctl_tx));
	for (s = 0; s < c->nsend; s++) {
		for (m = 0; m < c->nmsg[s]; m++)
			total += c->size[s][m];
		sim_start_msg(c, &p, s, 0);
	}

	for (now = 0; now < c->max_ns && r->bytes < total; now += SIM_DT) {
		/* Senders: one packet at a time at line rate. */
		for (s = 0; s < c->nsend; s++) {
			struct sim_sender *x = &ss[s];
			u32 want, ok;

			if (x->cur >= c->nmsg[s] || x->nic_free > now)
				continue;
			want = x->tx.msg_len - x->tx.sent;
			want = want < PKT ? want : PKT;
			ok = mrc_credit_tx_may_send(&x->tx, want, now);
			if (ok == want) {
				e = (struct ev){ .t = now + D_UP,
					.type = EV_DATA, .s = s, .len = ok,
					.off = x->tx.sent, .msg = x->tx.msg_id,
					.msg_len = x->tx.msg_len };
				CHECK(mrc_credit_tx_sent(&x->tx, ok) == 0,
				      "sender %u over credit", s);
				ring_push(&up, &e);
				r->pkts++;
				x->nic_free = now + ok * 4 / 5;
				if (mrc_credit_tx_done(&x->tx)) {
					x->cur++;
					sim_start_msg(c, &p, s, x->nic_free);
				}
			} else if (mrc_credit_tx_request_due(&x->tx, &p, now)) {
				e = (struct ev){ .t = now + D_CTL,
					.type = EV_REQ, .s = s,
					.msg = x->tx.msg_id,
					.msg_len = x->tx.msg_len,
					.off = x->tx.granted };
				ring_push(&ctl_rx, &e);
				mrc_credit_tx_requested(&x->tx, &p, now);
			}
		}
		/* Arrivals at the bottleneck queue: drop-tail. */
		while ((h = ring_peek(&up)) && h->t <= now) {
			e = *h;
			up.head++;
			if (qbytes + e.len > c->queue) {
				r->drops++;
				continue;
			}
			qbytes += e.len;
			if (qbytes > r->max_queue)
				r->max_queue = qbytes;
			ring_push(&link_q, &e);
		}
		/* The link: serialises back to back from the queue. */
		while ((h = ring_peek(&link_q)) &&
		       (link_free > h->t ? link_free : h->t) <= now) {
			e = *h;
			link_q.head++;
			qbytes -= e.len;
			link_free = (link_free > e.t ? link_free : e.t) +
				    e.len * 4 / 5;
			e.t = link_free + D_DOWN;
			ring_push(&down, &e);
		}
		/* Receiver: data. */
		while ((h = ring_peek(&down)) && h->t <= now) {
			e = *h;
			down.head++;
			if (c->credits &&
			    mrc_credit_rx_data(rx, &p, e.s, e.msg, e.msg_len,
					       e.off, e.len, now))
				r->over_credit++;
			m = (u32)(e.msg & 0xffffffff) - 1;
			ss[e.s].rcvd[m] += e.len;
			ss[e.s].delivered += e.len;
			r->bytes += e.len;
			if (ss[e.s].rcvd[m] == e.msg_len)
				r->done_ns[e.s][m] = now;
			/* Bytes per sender when the first one finishes. */
			if (ss[e.s].rcvd[m] == e.msg_len &&
			    m + 1 == c->nmsg[e.s] && !r->snap) {
				for (s = 0; s < c->nsend; s++)
					r->at_first[s] = ss[s].delivered;
				r->snap = true;
			}
			r->end_ns = now;
		}
		/* Receiver: requests (a duplicate gets its grant again). */
		ngo = 0;
		while ((h = ring_peek(&ctl_rx)) && h->t <= now &&
		       ngo < ARRAY_SIZE(go) - MAX_SEND) {
			e = *h;
			ctl_rx.head++;
			r->requests++;
			rc = mrc_credit_rx_request_unsched(rx, &p, e.s, e.msg,
							   e.msg_len, e.off,
							   now, &go[ngo]);
			if (rc < 0)
				r->rx_refused++;
			if (rc == MRC_CREDIT_REQ_RESEND)
				ngo++;
		}
		/* Receiver: the pacer's timer. */
		if (c->credits && now >= next_pace) {
			n = mrc_credit_rx_pace(rx, &p, now, now - last_pace,
					       &go[ngo], c->nsend);
			CHECK(n >= 0, "pace %d", n);
			ngo += n > 0 ? n : 0;
			last_pace = now;
			next_pace += PACE_NS;
			/* A late timer (a busy or descheduled vCPU). */
			if (c->late_max)
				next_pace = now + PACE_NS +
					    rnd(c->late_max * PACE_NS + 1);
		}
		for (i = 0; i < ngo; i++) {
			if (c->grant_loss_pct && rnd(100) < c->grant_loss_pct) {
				r->grants_lost++;
				continue;
			}
			e = (struct ev){ .t = now + D_CTL, .type = EV_GRANT,
				.s = go[i].key, .msg = go[i].msg_id,
				.off = go[i].granted, .seq = go[i].seq };
			ring_push(&ctl_tx, &e);
		}
		/* Senders: grants, and an adversary's forgeries. */
		if (c->adversary && !rnd(100)) {
			s = rnd(c->nsend);
			e = (struct ev){ .t = now, .type = EV_GRANT, .s = s,
				.msg = ss[s].tx.msg_id, .off = ss[s].tx.granted,
				.seq = ss[s].tx.seq };
			switch (rnd(6)) {
			case 0:		/* another message, far ahead */
				e.msg ^= 0x8000;
				e.off = U32_MAX;
				e.seq += 1;
				break;
			case 1:		/* beyond the message */
				e.off = ss[s].tx.msg_len + 1 + rnd(1 << 20);
				e.seq += 1;
				break;
			case 2:		/* old sequence, large offset */
				e.off = ss[s].tx.msg_len;
				e.seq -= 1 + rnd(5);
				break;
			case 3:		/* replay of an older grant */
				if (ss[s].ngrants)
					e = ss[s].last_grant[rnd(4) %
						(ss[s].ngrants < 4 ?
						 ss[s].ngrants : 4)];
				e.t = now;
				break;
			case 4: {	/* forged REQUESTs at the receiver */
				struct ev q = { .t = now, .type = EV_REQ,
					.s = s, .msg = ss[s].tx.msg_id,
					.msg_len = ss[s].tx.msg_len + 1 };

				/*
				 * Unknown senders are dropped before the
				 * credit layer (MRC_DROP_UNKNOWN_PEER); the
				 * table bound is rx__senders_bounded's.
				 */
				if (rnd(2))
					q.msg_len = U32_MAX;
				ring_push(&ctl_rx, &q);
				break;
			}
			default:	/* exact duplicate */
				break;
			}
			ring_push(&ctl_tx, &e);
		}
		while ((h = ring_peek(&ctl_tx)) && h->t <= now) {
			e = *h;
			ctl_tx.head++;
			if (e.s >= c->nsend)
				continue;
			ss[e.s].last_grant[ss[e.s].ngrants++ % 4] = e;
			mrc_credit_tx_grant(&ss[e.s].tx, &p, e.msg,
					    sim_msg_len(c, e.s, e.msg), e.off,
					    e.seq, now);
		}
	}

	r->all_done = r->bytes == total;
	r->first_done_ns = U64_MAX;
	for (s = 0; s < c->nsend; s++) {
		u64 last = 0;

		for (m = 0; m < c->nmsg[s]; m++)
			last = r->done_ns[s][m] > last ? r->done_ns[s][m] : last;
		if (last && last < r->first_done_ns)
			r->first_done_ns = last;
		r->tx_bad += ss[s].tx.grants_bad;
		r->tx_dup += ss[s].tx.grants_dup;
		r->tx_stale += ss[s].tx.grants_stale;
		r->wait_ns += ss[s].tx.wait_ns;
		r->chained += ss[s].tx.msgs_chained;
	}
	r->reclaimed = rx->stats.reclaimed_bytes;
	r->unsched = rx->stats.unsched_bytes;
	r->goodput = r->end_ns ? (double)r->bytes /
		     ((double)r->end_ns * C_BPS / 1e9) : 0;
	/* Jain over per-sender goodput: its bytes / its finish time. */
	r->jain = 0;
	if (r->first_done_ns != U64_MAX) {
		u64 rate[MAX_SEND];

		for (s = 0; s < c->nsend; s++) {
			u64 last = 0, bytes = 0;

			for (m = 0; m < c->nmsg[s]; m++) {
				bytes += c->size[s][m];
				if (r->done_ns[s][m] > last)
					last = r->done_ns[s][m];
			}
			rate[s] = last ? bytes * 1000000ULL / last : 0;
		}
		r->jain = jain(rate, c->nsend);
		r->jain_window = jain(r->at_first, c->nsend);
	}
}

static void report(const char *what, const struct sim_res *r)
{
	printf("# %s: %llu pkts, %llu drops, max queue %llu B,", what,
	       ULL(r->pkts), ULL(r->drops), ULL(r->max_queue));
	printf(" goodput %.1f%% of C, Jain %.4f", 100 * r->goodput, r->jain);
	printf(" (bytes when the first finished: %.4f), end %llu us,",
	       r->jain_window, ULL(r->end_ns / US));
	printf(" grants lost %llu, reclaimed %llu B,", ULL(r->grants_lost),
	       ULL(r->reclaimed));
	printf(" forged/dup/stale grants refused %llu/%llu/%llu,",
	       ULL(r->tx_bad), ULL(r->tx_dup), ULL(r->tx_stale));
	printf(" requests refused %llu, data over credit %llu,",
	       ULL(r->rx_refused), ULL(r->over_credit));
	printf(" unscheduled %llu B, chained messages %llu\n",
	       ULL(r->unsched), ULL(r->chained));
}

static struct sim_cfg incast_cfg(void)
{
	struct sim_cfg c;
	u32 s, m;

	memset(&c, 0, sizeof(c));
	c.nsend = 3;
	/*
	 * 64 KB, ~5.5 BDP (base RTT ~9.3 us): the worst case of the
	 * knobs below, max_outstanding (24 KB) + 3 senders starting a
	 * message at once (3 x 12 KB unscheduled) + 1 packet.
	 */
	c.queue = 16 * PKT;
	c.credits = true;
	c.max_ns = 100 * MS;
	for (s = 0; s < 3; s++) {
		c.nmsg[s] = 8;
		for (m = 0; m < 8; m++)
			c.size[s][m] = 256 * KB + 1000 * m;
	}
	return c;
}

/*
 * The 3->1 incast, each pace up to @late_max periods late: nothing
 * dropped, goodput >= 90%, fair.
 */
static void incast_check(const char *what, u32 late_max)
{
	struct sim_cfg c = incast_cfg();
	struct sim_res r;

	c.late_max = late_max;
	sim_run(&c, &r);
	report(what, &r);
	CHECK(r.all_done, "not all delivered");
	CHECK(r.drops == 0, "%llu drops", ULL(r.drops));
	CHECK(r.goodput >= 0.90, "goodput %.3f", r.goodput);
	CHECK(r.jain >= 0.95, "jain %.4f", r.jain);
	CHECK(r.jain_window >= 0.95, "jain in the window %.4f", r.jain_window);
	CHECK(r.over_credit == 0, "over credit %llu", ULL(r.over_credit));
}

static void sim__incast_fair(void)
{
	incast_check("incast 3->1 fair", 0);
}

/*
 * The pacer's timer fires up to 4 periods late (1-3x the period is what
 * debugfs mrc/credit's pace histogram shows in a TCG guest): it still
 * grants the drain rate, and the queue holds.
 */
static void sim__incast_late_pacer(void)
{
	incast_check("incast 3->1, pacer up to 4 periods late", 4);
}

/*
 * Back-to-back messages chain: each sender's messages after its first
 * ask for credit from byte 0, so only the first windows come
 * unscheduled, and a queue with room for max_outstanding plus ONE
 * sender's window (not all three) holds, even with a late pacer.
 */
static void sim__back_to_back_chain(void)
{
	struct sim_cfg c = incast_cfg();
	struct sim_res r;

	c.queue = 6 * PKT + 3 * PKT + PKT;
	c.late_max = 4;
	sim_run(&c, &r);
	report("incast 3->1 back to back, queue for one window", &r);
	CHECK(r.all_done, "not all delivered");
	CHECK(r.chained == 3 * 7, "chained %llu of 21", ULL(r.chained));
	CHECK(r.unsched == 3 * 3 * PKT, "unscheduled %llu B", ULL(r.unsched));
	CHECK(r.drops == 0, "%llu drops", ULL(r.drops));
	CHECK(r.goodput >= 0.90, "goodput %.3f", r.goodput);
	CHECK(r.over_credit == 0, "over credit %llu", ULL(r.over_credit));
}

/*
 * No unscheduled window (credit_unsched_bytes 0): every message asks
 * from byte 0, even the first of an exchange, so the bottleneck queue
 * only ever holds granted bytes.  A queue of five packets, less than
 * max_outstanding's six (part of the credit is always on the wire),
 * holds with a late pacer; with the window (three senders starting
 * at once, three packets each) the same queue overflows.
 */
static void sim__no_window_queue_holds_credit_only(void)
{
	struct sim_cfg c = incast_cfg();
	struct sim_res r;
	u64 bytes;
	u32 s, m;

	c.no_window = true;
	c.queue = 5 * PKT;
	c.late_max = 4;
	sim_run(&c, &r);
	report("incast 3->1 without a window, a queue of 5 packets", &r);
	CHECK(r.all_done, "not all delivered");
	CHECK(r.unsched == 0, "unscheduled %llu B", ULL(r.unsched));
	for (s = 0; s < c.nsend; s++) {
		for (bytes = 0, m = 0; m < c.nmsg[s]; m++)
			bytes += c.size[s][m];
		CHECK(ss[s].tx.unsched_bytes == 0 &&
		      ss[s].tx.sched_bytes == bytes,
		      "sender %u: unsched %llu, sched %llu of %llu B", s,
		      ULL(ss[s].tx.unsched_bytes), ULL(ss[s].tx.sched_bytes),
		      ULL(bytes));
	}
	CHECK(r.drops == 0, "%llu drops", ULL(r.drops));
	CHECK(r.goodput >= 0.90, "goodput %.3f", r.goodput);
	CHECK(r.over_credit == 0, "over credit %llu", ULL(r.over_credit));
	/* The same queue with the default window overflows. */
	c.no_window = false;
	sim_run(&c, &r);
	report("incast 3->1 with the window, a queue of 5 packets", &r);
	CHECK(r.drops > 0, "no drop with the window in that queue?");
}

/* The same incast without credits: the queue overflows (the baseline). */
static void sim__incast_no_credits_drops(void)
{
	struct sim_cfg c = incast_cfg();
	struct sim_res r;

	c.credits = false;
	sim_run(&c, &r);
	report("incast 3->1 credits off", &r);
	CHECK(r.drops > 0, "no drops without credits?");
}

static void sim__srpt_short_first(void)
{
	struct sim_cfg c;
	struct sim_res fair, srpt;
	static const u32 sz[3] = { 1024 * KB, 64 * KB, 256 * KB };
	u32 s;

	memset(&c, 0, sizeof(c));
	c.nsend = 3;
	c.queue = 16 * PKT;
	c.credits = true;
	c.max_ns = 100 * MS;
	for (s = 0; s < 3; s++) {
		c.nmsg[s] = 1;
		c.size[s][0] = sz[s];
	}
	c.policy = MRC_CREDIT_FAIR;
	sim_run(&c, &fair);
	c.policy = MRC_CREDIT_SRPT;
	sim_run(&c, &srpt);
	report("srpt 1M/64K/256K", &srpt);
	printf("# completion us fair: 1M %llu 64K %llu 256K %llu;"
	       " srpt: 1M %llu 64K %llu 256K %llu\n",
	       ULL(fair.done_ns[0][0] / US), ULL(fair.done_ns[1][0] / US),
	       ULL(fair.done_ns[2][0] / US), ULL(srpt.done_ns[0][0] / US),
	       ULL(srpt.done_ns[1][0] / US), ULL(srpt.done_ns[2][0] / US));
	CHECK(srpt.all_done && fair.all_done, "not all delivered");
	CHECK(srpt.drops == 0, "%llu drops", ULL(srpt.drops));
	CHECK(srpt.done_ns[1][0] < srpt.done_ns[2][0] &&
	      srpt.done_ns[2][0] < srpt.done_ns[0][0], "srpt order");
	CHECK(srpt.done_ns[1][0] * 10 < fair.done_ns[1][0] * 7,
	      "short message not faster under srpt: %llu vs %llu",
	      ULL(srpt.done_ns[1][0]), ULL(fair.done_ns[1][0]));
	CHECK(srpt.goodput >= 0.90, "goodput %.3f", srpt.goodput);
}

static void sim__lost_grants(void)
{
	struct sim_cfg c = incast_cfg();
	struct sim_res r;

	c.grant_loss_pct = 20;
	sim_run(&c, &r);
	report("incast, 20% grants lost", &r);
	CHECK(r.all_done, "not all delivered: %llu bytes", ULL(r.bytes));
	CHECK(r.grants_lost > 0, "none lost");
	CHECK(r.drops == 0, "%llu drops", ULL(r.drops));
	CHECK(r.over_credit == 0, "over credit %llu", ULL(r.over_credit));
}

static void sim__adversary(void)
{
	struct sim_cfg c = incast_cfg();
	struct sim_res r;

	c.adversary = true;
	c.grant_loss_pct = 5;
	sim_run(&c, &r);
	report("incast, forged/duplicate grants and requests", &r);
	CHECK(r.all_done, "not all delivered");
	CHECK(r.tx_bad > 0 && r.tx_dup > 0 && r.rx_refused > 0,
	      "nothing refused: %llu %llu %llu", ULL(r.tx_bad), ULL(r.tx_dup),
	      ULL(r.rx_refused));
	CHECK(r.over_credit == 0, "a sender exceeded its credit %llu times",
	      ULL(r.over_credit));
	CHECK(r.drops == 0, "%llu drops", ULL(r.drops));
}

/* ---------------------------------------------------------------- */
/* the lookup: hash index, waiting count, messages within the window */
/* ---------------------------------------------------------------- */

/* The waiting count kept by the table equals a scan's. */
static u32 waiting_scan(const struct mrc_credit_rx *rx)
{
	u32 i, n = 0;

	for (i = 0; i < rx->nentries; i++)
		n += rx->e[i].in_use && rx->e[i].granted < rx->e[i].requested;
	return n;
}

/* @n keys from @from on that share one hash bucket. */
static void colliding_keys(const struct mrc_credit_rx *rx, u32 from,
			   u32 *keys, u32 n)
{
	u32 b = mrc_credit_rx_bucket(rx, from), k, i = 0;

	for (k = from; i < n; k++)
		if (mrc_credit_rx_bucket(rx, k) == b)
			keys[i++] = k;
}

static void rx__lookup_collisions(void)
{
	struct mrc_credit_params p = defp();
	struct mrc_credit_rx *rx = mkrx(4, &p);
	const struct mrc_credit_rx_entry *e;
	struct mrc_credit_grant g[4];
	u32 len = p.unsched + 8 * KB, k[3], i;

	colliding_keys(rx, 1000, k, 3);
	CHECK(rx->hbits == 3, "8 buckets for 4 entries: %u", rx->hbits);
	CHECK(mrc_credit_rx_bucket(rx, k[0]) == mrc_credit_rx_bucket(rx, k[2]),
	      "keys %u %u %u collide", k[0], k[1], k[2]);
	for (i = 0; i < 3; i++)
		CHECK(mrc_credit_rx_request(rx, &p, k[i], 10 + i, len, 0,
					    NULL) == 0, "request %u", k[i]);
	CHECK(mrc_credit_rx_waiting(rx) == 3 && waiting_scan(rx) == 3,
	      "waiting %u", mrc_credit_rx_waiting(rx));
	for (i = 0; i < 3; i++) {
		e = mrc_credit_rx_lookup(rx, k[i]);
		CHECK(e && e->key == k[i] && e->msg_id == 10 + i,
		      "key %u found", k[i]);
	}
	CHECK(!mrc_credit_rx_lookup(rx, k[2] + 1), "unknown key not found");
	/* Data of the middle key settles its own entry only. */
	CHECK(mrc_credit_rx_pace(rx, &p, 1 * US, 1 * MS, g, 4) == 3, "pace");
	CHECK(mrc_credit_rx_waiting(rx) == 0 && waiting_scan(rx) == 0,
	      "all granted: waiting %u", mrc_credit_rx_waiting(rx));
	CHECK(mrc_credit_rx_data(rx, &p, k[1], 11, len, p.unsched, 8 * KB,
				 2 * US) == 0, "data of %u", k[1]);
	CHECK(mrc_credit_rx_lookup(rx, k[1])->outstanding == 0 &&
	      mrc_credit_rx_lookup(rx, k[0])->outstanding == 8 * KB &&
	      mrc_credit_rx_lookup(rx, k[2])->outstanding == 8 * KB,
	      "settled the right entry");
	/* Chain head, middle and tail leave; the others stay found. */
	mrc_credit_rx_forget(rx, k[1]);
	CHECK(!mrc_credit_rx_lookup(rx, k[1]), "middle gone");
	CHECK(mrc_credit_rx_lookup(rx, k[0]) && mrc_credit_rx_lookup(rx, k[2]),
	      "the others still found");
	mrc_credit_rx_forget(rx, k[2]);
	mrc_credit_rx_forget(rx, k[0]);
	for (i = 0; i < 3; i++)
		CHECK(!mrc_credit_rx_lookup(rx, k[i]), "key %u gone", k[i]);
	CHECK(rx->total_outstanding == 0, "outstanding %llu",
	      ULL(rx->total_outstanding));
	/* And back, in another order. */
	for (i = 3; i-- > 0;)
		CHECK(mrc_credit_rx_request(rx, &p, k[i], 20 + i, len, 3 * US,
					    NULL) == 0, "again %u", k[i]);
	for (i = 0; i < 3; i++) {
		e = mrc_credit_rx_lookup(rx, k[i]);
		CHECK(e && e->msg_id == 20 + i, "key %u found again", k[i]);
	}
	CHECK(mrc_credit_rx_waiting(rx) == 3 && waiting_scan(rx) == 3,
	      "waiting %u", mrc_credit_rx_waiting(rx));
}

static void rx__lookup_table_full(void)
{
	struct mrc_credit_params p = defp();
	struct mrc_credit_rx *rx = mkrx(2, &p);
	u32 len = p.unsched + 8 * KB, k[3];

	colliding_keys(rx, 7, k, 3);
	CHECK(mrc_credit_rx_request(rx, &p, k[0], 1, len, 0, NULL) == 0 &&
	      mrc_credit_rx_request(rx, &p, k[1], 1, len, 0, NULL) == 0,
	      "two senders");
	CHECK(mrc_credit_rx_request(rx, &p, k[2], 1, len, 0, NULL) == -ENOSPC,
	      "a third one refused");
	CHECK(!mrc_credit_rx_lookup(rx, k[2]), "and not found");
	CHECK(mrc_credit_rx_lookup(rx, k[0]) == &rx->e[0] &&
	      mrc_credit_rx_lookup(rx, k[1]) == &rx->e[1], "both found");
	/* Its DATA beyond the window: nobody granted it. */
	CHECK(mrc_credit_rx_data(rx, &p, k[2], 1, len, p.unsched, 4 * KB,
				 0) == -EPERM, "over credit");
	CHECK(mrc_credit_rx_waiting(rx) == 2 && waiting_scan(rx) == 2,
	      "waiting %u", mrc_credit_rx_waiting(rx));
}

static void rx__lookup_entry_reused(void)
{
	struct mrc_credit_params p = defp();
	struct mrc_credit_rx *rx = mkrx(1, &p);
	u32 len = p.unsched + 8 * KB;
	struct mrc_credit_grant g[1];

	CHECK(mrc_credit_rx_request(rx, &p, 5, 1, len, 0, NULL) == 0, "s5");
	CHECK(mrc_credit_rx_pace(rx, &p, 1 * US, 1 * MS, g, 1) == 1, "pace");
	/* Its message completes: the entry is idle, still its. */
	CHECK(mrc_credit_rx_data(rx, &p, 5, 1, len, p.unsched, 8 * KB,
				 2 * US) == 0, "data");
	CHECK(mrc_credit_rx_lookup(rx, 5) == &rx->e[0], "idle, still found");
	/* A new sender takes it over. */
	CHECK(mrc_credit_rx_request(rx, &p, 6, 1, len, 3 * US, NULL) == 0,
	      "s6 takes the idle entry");
	CHECK(!mrc_credit_rx_lookup(rx, 5), "the old key is gone");
	CHECK(mrc_credit_rx_lookup(rx, 6) == &rx->e[0], "the new key found");
	CHECK(mrc_credit_rx_waiting(rx) == 1 && waiting_scan(rx) == 1,
	      "waiting %u", mrc_credit_rx_waiting(rx));
	/* A late byte of the old sender's message: nobody's grant now. */
	CHECK(mrc_credit_rx_data(rx, &p, 5, 1, len, p.unsched, 4 * KB,
				 4 * US) == -EPERM, "late data over credit");
	CHECK(rx->e[0].outstanding == 0 && rx->e[0].key == 6,
	      "the new sender's entry untouched");
	/* And the old sender comes back for it once it is idle again. */
	CHECK(mrc_credit_rx_request(rx, &p, 5, 2, len, 5 * US, NULL) ==
	      -ENOSPC, "busy entry not taken");
}

static void rx__window_message_skips_table(void)
{
	struct mrc_credit_params p = defp();
	struct mrc_credit_rx *rx = mkrx(2, &p);
	u32 len = p.unsched + 8 * KB;
	struct mrc_credit_grant g[2];
	s64 tokens;

	CHECK(mrc_credit_rx_request(rx, &p, 3, 1, len, 0, NULL) == 0, "s3");
	CHECK(mrc_credit_rx_pace(rx, &p, 1 * US, 1 * MS, g, 2) == 1, "pace");
	tokens = rx->tokens;
	/* A short message of the same sender: all unscheduled. */
	CHECK(mrc_credit_rx_unsched(rx, &p, 3, 2, 4 * KB) == 4 * KB,
	      "short message: all of it unscheduled");
	CHECK(mrc_credit_rx_data(rx, &p, 3, 2, 4 * KB, 0, 4 * KB, 2 * US) == 0,
	      "short message data");
	CHECK(rx->tokens == tokens - 4 * KB, "charged: %lld",
	      (long long)(tokens - rx->tokens));
	CHECK(rx->e[0].outstanding == 8 * KB, "the scheduled one untouched");
	/* From a key that has no entry: the same. */
	CHECK(mrc_credit_rx_data(rx, &p, 99, 7, p.unsched, p.unsched - KB, KB,
				 2 * US) == 0, "unknown sender, window data");
	CHECK(rx->stats.unsched_bytes == 5 * KB, "unsched_bytes %llu",
	      ULL(rx->stats.unsched_bytes));
	CHECK(!mrc_credit_rx_lookup(rx, 99), "no entry made");
}

int main(void)
{
	static const struct tap_test tests[] = {
		{ "params: defaults", params__defaults },
		{ "params: check refuses", params__check_refuses },
		{ "rx: table size bounded", rx__size_bounded },
		{ "rx: senders bounded, idle slot reused", rx__senders_bounded },
		{ "rx: requests validated and counted", rx__requests_validated },
		{ "rx: a chained request is scheduled from byte 0",
		  rx__chained_request },
		{ "rx: an earlier message cannot take a busy entry",
		  rx__earlier_message_refused },
		{ "rx: lanes are not ordered among themselves",
		  rx__earlier_message_lanes },
		{ "rx: a lane is compared with its own newest request",
		  rx__earlier_message_other_lane },
		{ "rx: an unfinished message asks again",
		  rx__unfinished_asks_again },
		{ "rx: a message settled by another's bytes asks again",
		  rx__settled_by_another_asks_again },
		{ "rx: an earlier message and a lately idle entry",
		  rx__earlier_message_idle },
		{ "rx: grants track the drain rate", rx__pacing_matches_rate },
		{ "rx: a late pace keeps the rate", rx__late_pace_keeps_rate },
		{ "rx: capped bytes at the highest rate",
		  rx__capped_at_max_rate },
		{ "rx: expired credit reclaimed", rx__reclaims_expired },
		{ "rx: the credit loop caps outstanding",
		  rx__loop_caps_outstanding },
		{ "rx: arrivals clock the pacer", rx__arrivals_clock_pace },
		{ "rx: a stalled sender's credit is outside the cap",
		  rx__stalled_sender_outside_cap },
		{ "rx: a silent fabric stalls the credit after a while",
		  rx__silent_fabric_stalls_after_a_while },
		{ "rx: a clock behind the last news stalls nobody",
		  rx__clock_behind_news_no_stall },
		{ "rx: srpt grants the shortest first", rx__srpt_order },
		{ "rx: background gets what the others leave",
		  rx__background_last },
		{ "rx: lookup: colliding keys", rx__lookup_collisions },
		{ "rx: lookup: table full", rx__lookup_table_full },
		{ "rx: lookup: entry reused after its message",
		  rx__lookup_entry_reused },
		{ "rx: a message within the window skips the table",
		  rx__window_message_skips_table },
		{ "tx: unscheduled only", tx__unscheduled_only },
		{ "tx: grants validated", tx__grants_validated },
		{ "tx: late grants are stale, not bad", tx__late_grants_stale },
		{ "tx: a resumed message's old schedule is stale",
		  tx__resumed_old_schedule_stale },
		{ "tx: re-request after timeout", tx__rerequest_after_timeout },
		{ "tx: re-request sooner than the timeout",
		  tx__rerequest_sooner },
		{ "tx: back to back in the credit loop: chained",
		  tx__chained },
		{ "tx: whole-message grant (receiver off)",
		  tx__whole_message_grant },
		{ "tx: the packet that ends the credit asks for a SACK",
		  tx__limited },
		{ "tx: random grants never exceed", tx__random_grants_fuzz },
		{ "sim: incast fair share", sim__incast_fair },
		{ "sim: incast, late pacer", sim__incast_late_pacer },
		{ "sim: back-to-back messages chain", sim__back_to_back_chain },
		{ "sim: incast without credits drops", sim__incast_no_credits_drops },
		{ "sim: no unscheduled window: a queue below the credit holds",
		  sim__no_window_queue_holds_credit_only },
		{ "sim: srpt finishes short first", sim__srpt_short_first },
		{ "sim: lost grants recovered", sim__lost_grants },
		{ "sim: forged and duplicate input", sim__adversary },
	};

	return tap_run_seeded(tests, ARRAY_SIZE(tests));
}
