#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Unreachable peer: node 1 sends 16 x 4 MiB to node 2 (modules/mrc_echo);
# mid-transfer node 2 takes both planes down.  Every send that was not
# acked completes with -EHOSTUNREACH within the peer timeout (plus the
# time the paths take to be found dead and some TCG slack); a send made
# while the peer is unreachable fails after the peer timeout, and after
# the peer_timeout_ms knob is lowered, after the lower value.  Memory
# returns to baseline on both nodes: mrc's sender and reassembly buffers
# (tx_buffer_bytes, rx_buffer_bytes) go to 0 and no allocation site of
# mrc or mrc_echo holds more slab or vmalloc objects than before the
# transfer.  Once the planes return, a new transfer arrives intact.
#
# Black hole: node 2 then drops every mrc DATA packet it receives (tc u32
# on the mrc type byte) while PROBEs, SACKs and credit packets pass, so
# every path stays active but nothing is ever acknowledged.  A send must
# not wait forever (mrc_ep_close() waits for every send): it fails with
# -ETIMEDOUT after 4 x peer_timeout_ms without progress (counter
# tx_timeout), and its memory is freed.  In the same hole, knob
# data_rto_min_ms: at 2000 ms no RTO fires within 0.5 s, set to 20 ms
# one fires at once.  Then everything unloads cleanly.  Written
# as titled cases (lib.sh's case_title and chk_* helpers).
source "$(dirname "$0")/lib.sh"
NODES=2
TIMEOUT=${MRC_UNREACHABLE_TIMEOUT:-600}
export MRC_APPEND="${MRC_APPEND:-} slub_debug=U"
COUNT=16
SIZE=4194304
SHAPE_MBIT=40		# per plane, while node 2 goes away: 64 MiB take 6.7 s
PEER_TIMEOUT_MS=3000	# the knob's default, set explicitly (the debug lane
			# boots with a longer one)
SLACK_MS=4000		# path detection (RTO <= rto_max_ms) + TCG polling

source "$MRC_LIB_DIR/echo_lib.sh"

# Live objects of mrc's and mrc_echo's allocation sites: slab (per cache
# and caller, from slub_debug=U's alloc_traces) and vmalloc (per caller).
mem_snapshot() {
	local f
	slab_flush_freed
	for f in $D/slab/kmalloc-*/alloc_traces; do
		awk -v c="$(basename "$(dirname "$f")")" '
			/^ *[0-9]+ / && /\[mrc/ {
				site = $2; sub(/\+.*/, "", site)
				n[c ":" site $3] += $1
			}
			END { for (k in n) print k, n[k] }' "$f"
	done
	awk '/\[mrc/ { site = $3; sub(/\+.*/, "", site); n["vmalloc:" site]++ }
	     END { for (k in n) print k, n[k] }' /proc/vmallocinfo
}

# Sites that hold more objects in $2 than in $1.
mem_grown() {
	sort "$1" > /tmp/m.a
	sort "$2" > /tmp/m.b
	join -a 2 -e 0 -o 0,1.2,2.2 /tmp/m.a /tmp/m.b |
		awk '$3 > $2 { print $1 ": " $2 " -> " $3 }'
}

# timed_send SEED: one send of 1..1000 bytes; prints ms until it completed.
timed_send() {
	local t0 n
	n=$(($(echo_stat done_ok) + $(echo_stat done_err) + 1))
	t0=$(now_ms)
	echo "send $OTHER 7 1 1000 $1 0" > $D/mrc_echo/ctl || return 1
	while ! completed_at_least "$n"; do
		[ $(($(now_ms) - t0)) -gt 60000 ] && return 1
		_sleep 0.05
	done
	echo $(($(now_ms) - t0))
}

# Node 1: the transfer's unacked sends fail once node 2's planes are down.
# Its planes are shaped to SHAPE_MBIT each for the transfer, so that the
# transfer lasts far longer than the handshake that takes node 2's planes
# down: unshaped, 64 MiB can all be acked before they go.
sends_fail() {
	local t_down t_fail d

	for d in eth0 eth1; do
		ok "$d shaped to $SHAPE_MBIT mbit" \
			tc qdisc add dev $d root netem rate ${SHAPE_MBIT}mbit
	done
	ok "send $COUNT x $SIZE B to node$OTHER" \
		sh -c "echo send $OTHER 7 $COUNT $SIZE 99 1 > $D/mrc_echo/ctl"
	wait_for 'a message acked' 120 sent_at_least 1
	put go 1
	get planes-down 120 > /dev/null
	t_down=$(now_ms)
	wait_for "all $COUNT sends completed" 60 completed_at_least "$COUNT"
	t_fail=$(now_ms)
	for d in eth0 eth1; do
		tc qdisc del dev $d root
	done
	chk_echo_stat 'some sends failed' done_err '>' 0
	chk_echo_stat 'every failure is -EHOSTUNREACH' done_ehostunreach = \
		"$(echo_stat done_err)"
	diag "$(echo_stat done_ok) sends acked, $(echo_stat done_err) failed" \
	     "with $(echo_stat done_err_last_status), the last" \
	     "$((t_fail - t_down)) ms after both planes went down"
	ok "they failed within peer timeout + slack ($((t_fail - t_down)) ms)" \
		test $((t_fail - t_down)) -le $((PEER_TIMEOUT_MS + SLACK_MS))
}

# Node 2: both planes go down mid-transfer; what was partly received is
# given up.
planes_down() {
	get go 120 > /dev/null
	ok 'both planes down on node2' \
		sh -c 'ip link set eth0 down && ip link set eth1 down'
	put planes-down 1
	# Partial messages expire after 2 x peer_timeout_ms without news.
	chk_rx_buffers_free $(((2 * PEER_TIMEOUT_MS + SLACK_MS) / 1000 + 5))
	diag "received $(echo_stat rx) messages intact; mrc expired" \
	     "$(msg_stat rx_expired) incomplete one(s)"
	chk_echo_stat 'what arrived is intact' rx_bad = 0
	chk_echo_stat 'and in order' rx_order = 0
}

# Node 1: a send to the unreachable peer fails after peer_timeout_ms, at
# its default and lowered.
new_sends_fail() {
	local ms e0

	e0=$(echo_stat done_ehostunreach)
	ms=$(timed_send 1)
	chk_echo_stat 'a send to the unreachable peer fails with -EHOSTUNREACH' \
		done_ehostunreach = $((e0 + 1))
	diag "a new send failed after $ms ms (peer_timeout_ms $PEER_TIMEOUT_MS)"
	ok "after about peer_timeout_ms ($ms ms)" \
		test "$ms" -ge $((PEER_TIMEOUT_MS * 9 / 10)) -a \
		"$ms" -le $((PEER_TIMEOUT_MS + SLACK_MS))

	ok 'mrcctl config set peer_timeout_ms 1000' \
		mrcctl config set peer_timeout_ms 1000
	e0=$(echo_stat done_ehostunreach)
	ms=$(timed_send 2)
	chk_echo_stat 'it fails with -EHOSTUNREACH' done_ehostunreach = $((e0 + 1))
	diag "with peer_timeout_ms 1000 a new send failed after $ms ms"
	ok "after about 1000 ms, well before the default ($ms ms)" \
		test "$ms" -ge 900 -a "$ms" -lt $((PEER_TIMEOUT_MS * 9 / 10))
	echo $PEER_TIMEOUT_MS > /sys/kernel/mrc/peer_timeout_ms

	chk_msg_stat 'sender buffers back to 0' tx_buffer_bytes = 0
}

# The mrc type byte: IPv4 20 + UDP 8 + BTH 12 + DETH 8 + 1 bytes in.
DATA_AT=49

# black_hole: node 2 drops incoming DATA; node 1's send into it fails.
black_hole() {
	local ms t0

	if is_node 2; then
		ok 'drop incoming mrc DATA on both planes (tc u32)' drop_data 1
		echo reset > $D/mrc_echo/ctl
	fi
	barrier hole-up
	if is_node 1; then
		ok 'mrcctl config set peer_timeout_ms 1000' \
			mrcctl config set peer_timeout_ms 1000
		t0=$(msg_stat tx_timeout)
		echo reset > $D/mrc_echo/ctl
		ms=$(now_ms)
		ok 'send 1 x 4 MiB into the black hole' \
			sh -c "echo send $OTHER 7 1 $SIZE 6 1 > $D/mrc_echo/ctl"
		wait_for 'the send completes' 60 completed_at_least 1
		ms=$(($(now_ms) - ms))
		diag "the send into the black hole failed after $ms ms"
		ok_eq 'it failed with -ETIMEDOUT' '1 0 -110' \
			"$(echo_stat done_err) $(echo_stat done_ok) $(echo_stat done_err_last_status)"
		ok "after about 4 x peer_timeout_ms ($ms ms)" \
			test "$ms" -ge 3600 -a "$ms" -le $((4000 + SLACK_MS))
		chk_msg_stat 'counted as tx_timeout' tx_timeout = $((t0 + 1))
		chk_paths_active "$OTHER" 16 10 '(probes pass the hole)'
		chk_msg_stat 'sender buffers back to 0' tx_buffer_bytes = 0
	fi
}

# hole_closed: node 1 is done sending into the black hole (black_hole,
# rto_floor); node 2 received nothing and closes it.
hole_closed() {
	is_node 1 && echo $PEER_TIMEOUT_MS > /sys/kernel/mrc/peer_timeout_ms
	barrier hole-sent
	if is_node 2; then
		chk_echo_stat 'nothing delivered from the black hole' rx = 0
		tc qdisc del dev eth0 ingress
		tc qdisc del dev eth1 ingress
	fi
}

rto_since() { [ "$(msg_stat rto_pkts)" -gt "$1" ]; }

# Knob data_rto_min_ms, in the black hole (nothing is acked, so only an
# RTO finds the packet lost): at 2000 ms (rto_max_ms raised to 2000) no
# RTO fires within half a second; lowered to 20 ms, one fires at once.
# A keepalive that goes unanswered for its path's RTO (milliseconds; a
# loaded host delays answers that long) takes the path out and resends
# what it carries: that resend is counted in path_down_pkts, not by the
# knob, so the check is that every resend is one of those.
rto_floor() {
	local r0 t0 d0 max

	max=$(cat /sys/kernel/mrc/rto_max_ms)
	echo 2000 > /sys/kernel/mrc/rto_max_ms
	ok 'sysfs data_rto_min_ms 2000' \
		sh -c 'echo 2000 > /sys/kernel/mrc/data_rto_min_ms'
	echo reset > $D/mrc_echo/ctl
	r0=$(msg_stat tx_retrans)
	t0=$(msg_stat rto_pkts)
	d0=$(msg_stat path_down_pkts)
	ok 'send 1 x 1000 B into the black hole' \
		sh -c "echo send $OTHER 7 1 1000 8 0 > $D/mrc_echo/ctl"
	_sleep 0.5
	chk_msg_stat 'data_rto_min_ms 2000: no RTO within 0.5 s' \
		rto_pkts = "$t0"
	r0=$(($(msg_stat tx_retrans) - r0))
	d0=$(($(msg_stat path_down_pkts) - d0))
	ok "data_rto_min_ms 2000: no other resend ($r0 resent, $d0 by a path leaving)" \
		test "$r0" -le "$d0"
	ok 'mrcctl config set data_rto_min_ms 20' \
		mrcctl config set data_rto_min_ms 20
	wait_for 'data_rto_min_ms 20: resent by an RTO at once' 5 \
		rto_since "$t0"
	echo "$max" > /sys/kernel/mrc/rto_max_ms
	wait_for 'that send fails too' 60 completed_at_least 1
	ok_eq 'with -ETIMEDOUT' '1 -110' \
		"$(echo_stat done_err) $(echo_stat done_err_last_status)"
}

# The seq of msg_id (n in its low 26 bits, the lane above): header byte
# 16 + 4 (wire.h).
SEQ_AT=$((DATA_AT - 1 + 20))

# drop_data PRIO [u32 MATCH...]: drop incoming mrc DATA (and only what
# also matches MATCH) on both planes, ahead of rxe; the ingress qdisc is
# added with the first filter (PRIO 1).
drop_data() {
	local prio=$1 d
	shift
	for d in eth0 eth1; do
		if [ "$prio" = 1 ]; then
			tc qdisc add dev $d handle ffff: ingress || return 1
		fi
		tc filter add dev $d parent ffff: prio "$prio" protocol ip u32 \
			match ip protocol 17 0xff match ip dport 4791 0xffff \
			match u8 1 0xff at "$DATA_AT" "$@" action drop || return 1
	done
}

# A black hole that heals between the receiver's expiry (2 x
# peer_timeout_ms without DATA) and the sender's stall timeout (4 x): node
# 1 sends A and B (n 0 and 1 of a new epoch) while node 2 drops A's DATA,
# so B waits for A (held); then node 2 drops all DATA until its rx_gc
# gives A up and delivers B, and then lets everything through.  A's next
# retransmission must not be acked as "delivered already" (it never was):
# node 2 drops it (rx_gone_pkts) and A fails with -ETIMEDOUT.  Before the
# fix node 1 reported both sends done with status 0.  Node 2 answers the
# dropped packet with MRC_WF_GONE (rx_gone_sacks), on which node 1 fails
# A at once (tx_epoch_gone), not only at its 4 x peer_timeout_ms stall.
# The heal must come well inside that window: peer_timeout_ms is
# MRC_UNREACH_HEAL_TIMEOUT_MS (1000 x the timeout scale by default; the
# debug-kernel lane sets 6000: with 3000, node 2's expiry, its polling and
# two tc commands took so long there that node 1's stall failed A first).
healed_hole() {
	local h0 g0 rx t=${MRC_UNREACH_HEAL_TIMEOUT_MS:-$((1000 * _MRC_TSCALE))}

	if is_node 2; then
		echo $t > /sys/kernel/mrc/peer_timeout_ms
		echo reset > $D/mrc_echo/ctl
		h0=$(msg_stat rx_held)
		ok "drop incoming DATA of message n 0 (tc u32 at $SEQ_AT)" \
			drop_data 1 match u32 0 0x03ffffff at "$SEQ_AT"
	fi
	barrier heal-a
	if is_node 1; then
		ok "mrcctl config set peer_timeout_ms $t" \
			mrcctl config set peer_timeout_ms $t
		echo reset > $D/mrc_echo/ctl
		g0=$(msg_stat tx_epoch_gone)
		ok 'send A and B (1000 B each)' \
			sh -c "echo send $OTHER 7 2 1000 8 1 > $D/mrc_echo/ctl"
	else
		wait_for 'B complete, held for A' 30 \
			sh -c "[ \$(awk '\$1==\"rx_held\"{print \$2}' $D/mrc/msg) -gt $h0 ]"
		ok 'drop all incoming DATA' drop_data 2
		wait_for 'B delivered once A is given up (2 x peer_timeout_ms)' \
			20 sh -c "grep -qx 'rx 1' $D/mrc_echo/stats"
		ok 'the hole heals' sh -c 'tc qdisc del dev eth0 ingress &&
			tc qdisc del dev eth1 ingress'
		put heal-rx "$(echo_stat rx)"
	fi
	if is_node 1; then
		wait_for 'both sends complete' 60 completed_at_least 2
		rx=$(get heal-rx 60)
		diag "node2 delivered $rx; sends: $(echo_stat done_ok) ok," \
		     "$(echo_stat done_err) failed"
		chk_echo_stat 'no send reported delivered that was not' \
			done_ok = "$rx"
		ok_eq 'A failed with -ETIMEDOUT' '1 -110' \
			"$(echo_stat done_err) $(echo_stat done_err_last_status)"
		chk_msg_stat "failed on node 2's MRC_WF_GONE answer" \
			tx_epoch_gone '>' "$g0"
		echo $PEER_TIMEOUT_MS > /sys/kernel/mrc/peer_timeout_ms
	fi
	barrier heal-done 60
	if is_node 2; then
		chk_msg_stat "A's retransmissions dropped unacked" \
			rx_gone_pkts '>' 0
		chk_msg_stat '... and answered MRC_WF_GONE' rx_gone_sacks '>' 0
		echo $PEER_TIMEOUT_MS > /sys/kernel/mrc/peer_timeout_ms
		echo reset > $D/mrc_echo/ctl
	fi
}

# An expiry armed under a long peer_timeout_ms comes due under a shorter
# one: node 2 holds B (n 1) for A (n 0), whose DATA it drops, while its
# peer_timeout_ms is 10 minutes, so its expiry is 20 minutes away; the
# knob lowered to 1 s, B must be delivered (A given up: it never had a
# context here, its DATA all dropped) within 2 s plus slack.  Before the
# fix the first deadline armed won: B waited 20 minutes.
expiry_rearmed() {
	local h0 e0 t=$((1000 * _MRC_TSCALE))

	if is_node 2; then
		echo 600000 > /sys/kernel/mrc/peer_timeout_ms
		echo reset > $D/mrc_echo/ctl
		h0=$(msg_stat rx_held)
		e0=$(msg_stat rx_expired)
		ok "drop incoming DATA of message n 0 (tc u32 at $SEQ_AT)" \
			drop_data 1 match u32 0 0x03ffffff at "$SEQ_AT"
	fi
	barrier rearm-a
	if is_node 1; then
		echo reset > $D/mrc_echo/ctl
		ok 'send A and B (1000 B each)' \
			sh -c "echo send $OTHER 7 2 1000 8 1 > $D/mrc_echo/ctl"
	else
		wait_for 'B complete, held for A' 30 \
			sh -c "[ \$(awk '\$1==\"rx_held\"{print \$2}' $D/mrc/msg) -gt $h0 ]"
		mrc_sleep 2
		chk_msg_stat 'nothing expired under peer_timeout_ms 600000' \
			rx_expired = "$e0"
		ok "mrcctl config set peer_timeout_ms $t" \
			mrcctl config set peer_timeout_ms $t
		wait_for "B delivered once A expired (2 x $t ms)" \
			$((2 * t / 1000 + 8)) sh -c "grep -qx 'rx 1' $D/mrc_echo/stats"
		ok 'the hole heals' sh -c 'tc qdisc del dev eth0 ingress &&
			tc qdisc del dev eth1 ingress'
		echo $PEER_TIMEOUT_MS > /sys/kernel/mrc/peer_timeout_ms
	fi
	if is_node 1; then
		wait_for 'both sends complete' 60 completed_at_least 2
		chk_echo_stat 'A not reported delivered' done_ok '<=' 1
	fi
	barrier rearm-done 120
	echo reset > $D/mrc_echo/ctl
}

run_guest() {
	OTHER=$((3 - MRC_NODE))
	local a="$(node_ip $OTHER 0),$(node_ip $OTHER 1)" grown t0

	case_title 'mrc_echo on both nodes, all paths up, allocations traced'
	ok 'modprobe mrc node_id' modprobe mrc node_id="$MRC_NODE" \
		peer_timeout_ms=$PEER_TIMEOUT_MS
	mount -t debugfs none $D 2>/dev/null
	ok "add peer node$OTHER on both planes" mrcctl peer add "$OTHER" addr "$a"
	ok 'insmod mrc_echo' insmod "$ECHO_KO"
	chk_paths_active "$OTHER" 16 60
	t0=$(now_ms)
	mem_snapshot > /tmp/mem0
	diag "memory snapshot took $(($(now_ms) - t0)) ms"
	ok 'allocation sites of mrc traced' test -s /tmp/mem0
	barrier paths-up

	case_title 'node 2 goes away mid-transfer: the unacked sends fail in time'
	if is_node 1; then
		sends_fail
	else
		planes_down
	fi

	case_title 'a new send fails after peer_timeout_ms, also once lowered'
	is_node 1 && new_sends_fail
	barrier failed

	case_title 'memory back to baseline'
	mem_snapshot > /tmp/mem1
	grown=$(mem_grown /tmp/mem0 /tmp/mem1)
	ok_eq 'no mrc allocation site holds more than before' '' "$grown"

	case_title 'the planes return: messages flow again'
	if is_node 2; then
		ip link set eth0 up
		ip link set eth1 up
	fi
	chk_paths_active "$OTHER" 16 120 again
	echo reset > $D/mrc_echo/ctl
	barrier planes-up
	if is_node 1; then
		ok 'send 4 messages again' \
			sh -c "echo send $OTHER 7 4 $SIZE 5 0 > $D/mrc_echo/ctl"
		wait_for 'all 4 acked' 300 sent_at_least 4
	else
		wait_for '4 messages received' 300 \
			sh -c "grep -qx 'rx 4' $D/mrc_echo/stats"
		chk_echo_stat 'intact' rx_bad = 0
		chk_echo_stat 'and in order' rx_order = 0
	fi
	barrier again-done

	case_title 'black hole (DATA dropped, probes pass): a send times out'
	black_hole
	case_title 'data_rto_min_ms in the black hole'
	is_node 1 && rto_floor
	case_title 'nothing crosses the black hole'
	hole_closed
	barrier hole-done

	case_title 'a hole that heals between expiry and stall: no false delivery'
	healed_hole

	case_title 'an expiry armed under a long peer_timeout_ms, the knob lowered'
	expiry_rearmed

	case_title 'everything unloads, buffers back to 0'
	ok 'rmmod mrc_echo' rmmod mrc_echo
	chk_msg_stat 'sender buffers back to 0' tx_buffer_bytes = 0
	chk_msg_stat 'receive buffers back to 0' rx_buffer_bytes = 0
	ok 'modprobe -r mrc' modprobe -r mrc
	ok 'mrc unloaded' test ! -e /sys/module/mrc
}

mrc_test_main "$@"
