#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh - mrc-sim's small checks (seconds), TAP.  The engine of
# mrc/core/ in a simulated 64-host, 8-leaf, 8-spine Clos at 100 Gbit/s:
#   - a single flow on an idle fabric reaches >= 99% of line rate (its
#     completion time is within 1/0.99 of the ideal: every wire byte
#     serialised at the link rate plus the path's latency);
#   - permutation, 63:1 incast, all-to-all and ring all-reduce: every
#     message delivered exactly once, every send completed without
#     error, no completion time below the ideal;
#   - --ctl-prio (control packets first at every port) shortens an
#     8-plane permutation's median FCT, and a permutation through
#     degraded links ends without an RTO;
#   - 63:1 incast with receiver-driven credits: within 10% of N x S / R,
#     no drops and a fair share (switch buffers that hold the unscheduled
#     windows); in 256 KiB buffers, hardly a granted packet dropped, and
#     none at all without an unscheduled window; the same incast without
#     credits drops at the last hop;
#   - a link down from the start and a spine down mid-run (one with a
#     ring all-reduce): the flows through them are retried on other paths
#     and all finish; the ring's fault profile (profile.c) accounts for
#     every DATA packet lost at the spine; with --probe-rearm timer the
#     ring takes longer;
#   - 32 pairs of hosts exchanging 100 requests and replies of 4 KiB:
#     delivered exactly once, acknowledgments carried on the replies,
#     nothing resent, the timer never runs for nothing and at most once
#     per pair;
#   - two runs with one seed give byte-identical results, another seed
#     gives other ones.
# Needs jq.  MRC_SIM: the binary (default: next to this script).
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SIM=${MRC_SIM:-$HERE/mrc-sim}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

N=0
PASS=0
FAIL=0

echo "TAP version 13"

ok() {		# ok COND DESC
	N=$((N + 1))
	if [ "$1" = 1 ]; then
		PASS=$((PASS + 1))
		echo "ok $N - $2"
	else
		FAIL=$((FAIL + 1))
		echo "not ok $N - $2"
	fi
}

# jq expression on a run's JSON: "1" if true.
is() {		# is NAME EXPR
	[ -s "$TMP/$1.json" ] || { echo 0; return; }
	jq -r "if ($2) then 1 else 0 end" "$TMP/$1.json" 2>/dev/null || echo 0
}

sim() {		# sim NAME ARGS...: a run, its JSON in $TMP/NAME.json
	local name=$1
	shift
	"$SIM" --quiet --json "$TMP/$name.json" "$@" > "$TMP/$name.log" 2>&1
	echo "# $name: $(jq -c '{delivered, messages, slowdown,
		drops, retrans: .engine.tx_retrans}' "$TMP/$name.json" \
		2>/dev/null)"
}

EXACTLY_ONCE='.delivered == .messages and .missing == 0 and
	      .duplicates == 0 and .failed == 0 and .unacked == 0 and
	      .rx_bad == 0 and .engine.tx_done == .messages'
NOT_BELOW='.below_ideal == 0 and .slowdown.min >= 1'

if [ ! -x "$SIM" ]; then
	echo "Bail out! $SIM not built (make -C tools/mrc-sim)"
	exit 1
fi

sim single --pattern single --size 4194304
ok "$(is single "$EXACTLY_ONCE and $NOT_BELOW")" \
	'single flow: delivered once, not faster than the ideal'
ok "$(is single '.slowdown.max <= 1 / 0.99')" \
	'single flow on an idle path: >= 99% of line rate'

# 16 MiB: the ideal is the fluid bound over both planes, which the last
# packets of a short flow cannot reach (one plane finishes a few packets
# later); 4 MiB is within 1.2% of it, 16 MiB within 0.2%.
sim single2 --pattern single --size 16777216 --planes 2
ok "$(is single2 "$EXACTLY_ONCE and .slowdown.max <= 1 / 0.99")" \
	'single 16 MiB flow sprayed over 2 planes: >= 99% of their line rate'

sim perm0 --pattern perm
sim perm --pattern perm --jitter-ns 2000
ok "$(is perm "$EXACTLY_ONCE")" \
	'64-host permutation: every message delivered exactly once'
ok "$(is perm "$NOT_BELOW")" '64-host permutation: no FCT below the ideal'

# --ctl-prio: on 8 planes of 12.5 Gbit/s a data packet holds a port for
# 2.6 us, and in a permutation every host's SACKs wait behind its own
# data at its NIC and behind others' at each switch; served first, they
# come back sooner, the window moves on sooner, and the median FCT drops
# (seeds 1-3: 5-7%).
sim permq --pattern perm --planes 8 --rate-gbps 12.5 --entropy 16
sim permp --pattern perm --planes 8 --rate-gbps 12.5 --entropy 16 --ctl-prio
ok "$(is permp "$EXACTLY_ONCE and $NOT_BELOW and .config.ctl_prio == 1 and
	.fct_us.p50 < 0.97 * $(jq .fct_us.p50 "$TMP/permq.json" 2>/dev/null || echo 0)")" \
	'8-plane permutation, control packets first at every port: delivered once, median FCT 3% lower than in FIFO ports'

sim incast --pattern incast --size 262144 --jitter-ns 2000
ok "$(is incast "$EXACTLY_ONCE")" \
	'63:1 incast: every message delivered exactly once'
ok "$(is incast "$NOT_BELOW")" '63:1 incast: no FCT below the ideal'

# Receiver-driven credits (credits.c driving mrc/core/credit_*.c, the
# module's default credit knobs): 63 x 1 MiB to one host.  The switch
# buffers hold the unscheduled windows (63 x 128 KiB) and the outstanding
# credit, so credits must finish within 10% of N x S / R with no drop at
# all, and share the drain fairly (Jain's index of the messages' rates
# at least 0.95: the first sender to ask does not take a saved-up burst);
# without credits the same incast overflows the last hop (what that
# costs depends on how soon the losses are found: only that it ends later
# than the ideal is checked).  In 256 KiB buffers the windows overflow
# the last hop at once, and that is what it drops: granted packets come
# at the pace it drains (the outstanding credit follows the credit loop,
# and a sender whose packets were lost does not hold the others up), so
# at most one in fifty of the messages' packets is a granted one lost.
INCAST_IDEAL='(.config.incast_n * .config.size * 8 /
	      (.config.rate_gbps * .config.planes * 1000))'
sim cred --pattern incast --size 1048576 --jitter-ns 2000 --buf-kb 16384 \
	--credits on
ok "$(is cred "$EXACTLY_ONCE and $NOT_BELOW and .credit.msgs_sched == 63 and
	.credit.grants > 0 and .credit.over_credit == 0")" \
	'63:1 incast with credits: delivered once, every sender scheduled by grants'
ok "$(is cred ".span_us <= 1.1 * $INCAST_IDEAL and
	([.drops[]] | add) == 0 and ([.sched_drops[]] | add) == 0")" \
	'63:1 incast with credits: within 10% of N x S / R, no drops'
ok "$(is cred ".jain >= 0.95")" \
	'63:1 incast with credits: the senders share the drain (Jain >= 0.95)'
sim cred256 --pattern incast --size 1048576 --jitter-ns 2000 --buf-kb 256 \
	--credits on
ok "$(is cred256 "$EXACTLY_ONCE and ([.sched_drops[]] | add) * 50 <=
	.config.incast_n * .config.size / 4096")" \
	'63:1 incast with credits, 256 KiB buffers: at most 1 packet in 50 a granted one dropped'
# With no unscheduled window (credit_unsched_bytes 0) every byte waits
# for a grant, so the same shallow buffers hold only granted bytes: no
# drop anywhere, and the round trip each message waits for its first
# grant still fits within 10% of N x S / R.
sim pull256 --pattern incast --size 1048576 --jitter-ns 2000 --buf-kb 256 \
	--credits on --knob credit_unsched_bytes=0
ok "$(is pull256 "$EXACTLY_ONCE and .credit.msgs_sched == 63 and
	.credit.rx_unsched_bytes == 0 and .credit.over_credit == 0 and
	([.drops[]] | add) == 0 and .span_us <= 1.1 * $INCAST_IDEAL")" \
	'63:1 incast without an unscheduled window, 256 KiB buffers: no drop, within 10% of N x S / R'
sim nocred --pattern incast --size 1048576 --jitter-ns 2000 --buf-kb 16384 \
	--credits off
ok "$(is nocred "$EXACTLY_ONCE and .credit.grants == 0 and
	.drops.leaf_down > 0 and .span_us > $INCAST_IDEAL")" \
	'63:1 incast without credits: the last hop drops, slower than the ideal'

sim a2a --pattern a2a --size 65536 --jitter-ns 2000
ok "$(is a2a "$EXACTLY_ONCE and $NOT_BELOW and
	.collective_slowdown >= 1")" \
	'64-host all-to-all: every message delivered exactly once, none faster than the ideal'

sim ring --pattern ring --size 4194304
ok "$(is ring "$EXACTLY_ONCE and $NOT_BELOW and
	.collective_slowdown >= 1 and .messages == 2 * 63 * 64")" \
	'64-host ring all-reduce: 2(N-1) steps of every host delivered once, not faster than the ideal'

# Requests and replies: each reply and each later request carries the
# acknowledgment of the message it answers (unless a SACK of it showed a
# hole: msg_rx.c, Answers), the timer runs at most once per pair (the
# last reply's hold) and never for nothing, and nothing is resent.  With
# the timer's deadlines never taken back it ran 1,819 times (132 for
# nothing); with holds after a hole was shown, 25 packets were resent.
sim rpc --pattern rpc --size 4096 --msgs 100 --jitter-ns 2000
ok "$(is rpc "$EXACTLY_ONCE and $NOT_BELOW and .messages == 32 * 200 and
	.engine.done_on_data >= 1 and .engine.tx_retrans == 0 and
	.engine.timer_idle == 0 and .engine.timer_runs <= 32")" \
	'32 request/response pairs: delivered once, acks on replies, nothing resent, no idle timer'

# Plane 0, leaf 0 to spine 3 fails before the first packet: the
# permutation's paths through it black-hole until the engine retires them.
sim link --pattern perm --link-down 0:0:3@0
ok "$(is link "$EXACTLY_ONCE and .drops.fault > 0 and
	.engine.path_down_pkts + .engine.rto_pkts > 0")" \
	'link down: its flows lose packets, retire the paths and finish'

# Spine 2 fails 20 us in, comes back at 200 us.
sim spine --pattern perm --spine-down 0:2@20-200 --knob data_rto_min_ms=1
ok "$(is spine "$EXACTLY_ONCE and .drops.fault > 0")" \
	'spine down mid-run and back: every flow finishes'

# Two core links at 10 % of their rate: a packet that sits in one of
# their queues while later ones are acked is resent elsewhere and its
# path retired (msg_ack.c, Stuck packets); without that a whole window
# waited behind it (1,828 us against 117 undegraded).
sim deg --pattern perm --degrade 0:1:3:0.1@0 --degrade 0:5:6:0.1@0
ok "$(is deg "$EXACTLY_ONCE and .engine.stuck_loss_pkts > 0 and
	.fct_us.max <= 2 * $(jq .fct_us.max "$TMP/perm0.json" 2>/dev/null ||
	echo 0)")" \
	'two degraded core links: stuck packets resent, tail within 2x undegraded'
# The same links with control packets first and 24 values: probes
# travel with the data (fabric.c, pkt_ctl_lane()); in the control lane
# they passed the slow queues, brought the paths through them back at
# once, and RTOs followed (seeds 1-3: 1,833, 614, 655 us against 100-107
# undegraded; now 114-122).
sim permp24 --pattern perm --entropy 24 --ctl-prio
sim degp --pattern perm --entropy 24 --ctl-prio \
	--degrade 0:1:3:0.1@0 --degrade 0:5:6:0.1@0
ok "$(is degp "$EXACTLY_ONCE and .engine.rto_pkts == 0 and
	.fct_us.max <= 1.5 * $(jq .fct_us.max "$TMP/permp24.json" 2>/dev/null ||
	echo 0)")" \
	'two degraded core links, control packets first: no RTO, tail within 1.5x undegraded'
# A fixed floor (data_rto_min_ms) turns the rule off.
sim degfix --pattern perm --degrade 0:1:3:0.1@0 --degrade 0:5:6:0.1@0 \
	--knob data_rto_min_ms=1
ok "$(is degfix "$EXACTLY_ONCE and .engine.stuck_loss_pkts == 0")" \
	'the same with data_rto_min_ms 1: no stuck-packet loss'

sim ringf --pattern ring --size 4194304 --spine-down 0:5@100
ok "$(is ringf "$EXACTLY_ONCE and .drops.fault > 0")" \
	'ring all-reduce with a spine failing mid-run: it finishes'
# The profile: every DATA packet lost at the spine was sent by a flow
# whose route through it the ECMP gives, none on a path out of the spray
# set, and the critical chain is 2(N - 1) steps long.
ok "$(is ringf ".fault_profile.drops_data > 0 and
	.fault_profile.hit_data_drops == .fault_profile.drops_data and
	.fault_profile.drops_data_retired == 0 and
	.fault_profile.out_faulty > 0 and .ring_chain.steps == 2 * 63 and
	.ring_chain.stall_us < .collective_us")" \
	'ring with a spine failing: the fault profile accounts for every DATA drop'
# --probe-rearm timer (mrc/msg.c today): the paths the engine retires
# wait for the peer timer's next deadline before their first probe, so
# the sound ones among them (receiver refusals, lost SACKs) come back
# later and the ring takes longer.
sim ringt --pattern ring --size 4194304 --spine-down 0:5@100 \
	--probe-rearm timer
ok "$(is ringt "$EXACTLY_ONCE and .config.probe_rearm == \"timer\" and
	.collective_us > $(jq .collective_us "$TMP/ringf.json" 2>/dev/null ||
	echo 1e18)")" \
	'--probe-rearm timer: retired paths are probed later, the ring takes longer'

# --fct: one line per message; --series: its bins add up to every byte
# of payload delivered (new bytes at the receivers), in Gbit/s x bin
# (within 64 bytes: each bin is printed to 0.001 Gbit/s, 0.3 bytes).
"$SIM" --quiet --json "$TMP/out.json" --fct "$TMP/out.fct" \
	--series "$TMP/out.ser" --bin-us 5 --pattern perm --size 100000 \
	> /dev/null 2>&1
ok "$([ "$(grep -vc '^#' "$TMP/out.fct" 2>/dev/null)" = 64 ] &&
	awk '!/^#/ { b += $2 * 5e3 / 8 } END { exit !(b > 64 * 100000 - 64 &&
	b < 64 * 100000 + 64) }' "$TMP/out.ser" 2>/dev/null &&
	echo 1 || echo 0)" \
	'--fct lists every message, --series adds up to every byte delivered'

sim det1 --pattern perm --seed 7 --jitter-ns 1000
sim det2 --pattern perm --seed 7 --jitter-ns 1000
sim det3 --pattern perm --seed 8 --jitter-ns 1000
for r in det1 det2 det3; do
	grep -v '"cost"' "$TMP/$r.json" > "$TMP/$r.res" 2>/dev/null
done
ok "$([ -s "$TMP/det1.res" ] && cmp -s "$TMP/det1.res" "$TMP/det2.res" &&
	echo 1 || echo 0)" 'one seed twice: byte-identical results'
ok "$([ -s "$TMP/det3.res" ] && ! cmp -s "$TMP/det1.res" "$TMP/det3.res" &&
	echo 1 || echo 0)" 'another seed: other results'

echo "1..$N"
echo "$PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
