#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Hostile traffic from a third node.  Nodes 1 and 2 are peers sharing a
# key (the authenticated handshake, auth.sh); node 3 runs no mrc and is
# nobody's peer: a host on the same fabric that wants to disturb them.
# In each of seven phases node 2 sends node 1 bulk traffic (mrc-perf bw
# through /dev/mrc, 64 KiB messages, SECS seconds) and COUNT mrc_echo
# messages:
#
#   alone1, alone2 (first and last): nothing else;
#   busy1 (after alone1): node 3 keeps its vCPU busy and sends nothing:
#	what a third TCG guest alone costs the other two on this host;
#   control1, control2: node 3 sends node 1's mrc QPs on plane 0 the
#	stream below with a wrong Q_Key: rxe drops it before mrc sees it,
#	so the phase shows what the stream costs the fabric and the
#	guests' CPUs;
#   attack1, attack2 (each after its control): the same stream with
#	mrc's Q_Key (garbage.c, up to RATE datagrams a second, default
#	10000): random bytes, and well-formed and damaged packets of every
#	routed type in node 2's name with random tokens (bad_token: what an
#	off-path node can forge, RAIL_DOWN included) or
#	in strangers' names (unknown_peer).
#
# Then node 3 sends SIDR requests in node 2's name from an unprivileged
# process (librdmacm, sidr.c), NSIDR without a MAC and NSIDR with a
# random one.
#
# Asserts on node 1: every datagram of the attack that reached mrc is
# counted under the drop reason mrc's own parser gives it (garbage.c
# prints the expectations; what went unseen - lost by the fabric before
# node 1's NIC, or by rxe with no receive posted, rogue_lib.sh - may
# fall short, by no more than that), no other reason moved; cm_no_auth
# and cm_bad_auth count exactly the forged requests; the token for node
# 2 and every path's remote QPN do not change; every path stays active;
# every mrc_echo message arrives intact and in order and every send
# completes with status 0 (nothing lost); the receive buffers return to
# 0.  Node 2 reports its bulk rate under attack as a share of the
# control phases' (the two of each summed: the host's other load varies
# between phases) and of the unloaded ones, the busy phase's as a share
# of the unloaded ones, and for each phase the host's CPU use: its busy
# share and each guest's QEMU process's (host_during_run, sampled on
# the host every second into shared/hostcpu).  Figures, not checks: they
# follow the host's load more than mrc, because the three TCG guests
# share the host's two CPUs (with MRC_HOSTILE_PROFILE=1 node 1's own vCPU
# shows mostly idle through the attack).  Against the unloaded phases
# the attacker's CPU time counts too, and that of the host's packets; the
# control phase costs the same.  Replaying captured RAIL_DOWNs needs a
# node on the path (auth.sh does it from node 2); node 3 sees none of
# node 2's frames.  Written as titled cases (lib.sh's case_title and chk_*
# helpers).
source "$(dirname "$0")/lib.sh"
NODES=3
TIMEOUT=${MRC_HOSTILE_TIMEOUT:-900}
SECS=${MRC_HOSTILE_SECS:-15}
RATE=${MRC_HOSTILE_RATE:-10000}
NSIDR=${MRC_HOSTILE_NSIDR:-10}
COUNT=${MRC_HOSTILE_COUNT:-20}
MIN_RATE=${MRC_HOSTILE_MIN_RATE:-1000}
# 1: node 1 runs perf (cpu-clock, system-wide) through each phase with
# traffic from node 3 and reports its top symbols
PROFILE=${MRC_HOSTILE_PROFILE:-}
PERF_PORT=18515

source "$MRC_LIB_DIR/echo_lib.sh"
ROGUE_TOS=0x30		# garbage.c GARBAGE_TOS
source "$MRC_LIB_DIR/rogue_lib.sh"

GARBAGE=$MRC_LIB_DIR/garbage
SIDR=$MRC_LIB_DIR/sidr
if [ -z "${MRC_IN_VM:-}" ] &&
   ! make -s -C "$MRC_LIB_DIR" garbage sidr > /dev/null 2>&1; then
	echo "not ok 1 build selftests/mrc/garbage and sidr (need libibverbs-dev, librdmacm-dev)"
	exit 1
fi

RAIL=rxe0:1
R=/sys/kernel/mrc/rails/$RAIL
KEY=/tmp/mrc-hostile.key
REASONS="truncated bad_version bad_type bad_length bad_offset msg_too_big
bad_seg bad_sack not_for_us unknown_peer no_memory duplicate bad_field
wrong_path unexpected unresolved bad_credit bad_token"

cm_stat() { cat "/sys/kernel/mrc/stats/cm_$1"; }

# Host side, while the fabric runs: every second, a line "BUSY TOTAL NCPU
# Q1 Q2 Q3" in shared/hostcpu: the host's busy and total CPU time over
# its NCPU CPUs (/proc/stat) and each guest's QEMU process's (user +
# system), in clock ticks.  The guests take the difference over a phase
# (host_share).
host_during_run() {
	local out=$1 n p line q ncpu
	local -a pid=()
	ncpu=$(nproc)
	while sleep 1; do
		line=$(awk -v n="$ncpu" '$1 == "cpu" { t = 0
			for (i = 2; i <= NF; i++) t += $i
			print t - $5 - $6, t, n; exit }' /proc/stat)
		for n in 1 2 3; do
			p=${pid[n]:-}
			if [ -z "$p" ] || [ ! -e /proc/$p ]; then
				p=$(pgrep -f -- "file:$out/console.$n.log" | head -n 1)
				pid[n]=$p
			fi
			q=$(awk '{ print $14 + $15 }' /proc/${p:-0}/stat 2>/dev/null)
			line="$line ${q:-0}"
		done
		echo "$line" > "$out/shared/hostcpu.new" &&
			mv "$out/shared/hostcpu.new" "$out/shared/hostcpu"
	done
}

# host_share A B: from two hostcpu lines, the host's busy share of its
# CPUs and each guest's share of one CPU, in percent, over that time.
host_share() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		split(a, x); split(b, y); t = y[2] - x[2]; ncpu = y[3]
		if (x[2] == "" || t <= 0 || ncpu < 1) {
			print "no host figures"; exit
		}
		# /proc/stat sums all CPUs: t is ncpu CPUs long
		printf "host busy %d%% of its %d CPUs; guests (%% of one CPU):", \
			100 * (y[1] - x[1]) / t, ncpu
		for (i = 4; i <= 6; i++)
			printf " node%d %d%%", i - 3, 100 * ncpu * (y[i] - x[i]) / t
	}'
}

# snapshot FILE: node 1's drop reasons on plane 0, handshake counters and
# what reached its NIC, rxe and mrc (rogue_lib.sh).
snapshot() {
	local r
	{
		for r in $REASONS; do echo "$r $(cat $R/drops/$r)"; done
		for r in no_auth bad_auth stale expired; do
			echo "cm_$r $(cm_stat $r)"
		done
		fabric_counters
	} > "$1"
}

# peer_state NODE: what a forged packet or request in NODE's name could
# change here: our token for it, its incarnation as we know it, and
# every path's plane, entropy and remote QPN.
peer_state() {
	echo "token $(peer_token "$1")"
	mrcctl -j peer show "$1" |
		jq -c '[.[0].paths[] | [.plane, .entropy, .remote_qpn]]'
}

# bulk OUT: node 2's mrc-perf bw to node 1 for SECS s; its rate in KB/s
# (10^3 B/s) in OUT.
bulk() {
	mrc-perf -c 1 -p $PERF_PORT bw -m 65536 -n 1000000 -T "$SECS" -j \
		> /tmp/bulk.json 2>/tmp/bulk.err &&
		jq -r '[.. | objects | .bw_MBps? // empty][0] * 1000 | floor' \
			/tmp/bulk.json > "$1" &&
		[ -s "$1" ]
}

# phase NAME STREAM: node 2 sends COUNT mrc_echo messages and bulk
# traffic to node 1 (bulk's rate in /tmp/NAME, put as bw-NAME); node 3
# sends nothing (STREAM none), garbage.c's stream with a wrong Q_Key
# (control) or with mrc's (attack), for the
# phase's length (garbage.c's output in /tmp/garbage.NAME, copied to the
# shared folder).  Titled by the caller.
phase() {
	local name=$1 stream=$2 gpid v qk=() ppid= h0
	barrier "start-$name"
	h0=$(cat "$MRC_SHARED/hostcpu" 2>/dev/null)
	[ "$stream" = control ] && qk=(-k 0x1234)
	if is_node 1 && [ -n "$PROFILE" ]; then
		perf record -q -a -F 499 -o /tmp/$name.perf.data -- \
			sleep $((SECS + 6)) > /dev/null 2>&1 &
		ppid=$!
	fi
	if is_node 3 && [ "$stream" = busy ]; then
		timeout $((SECS + 6)) sh -c 'while :; do :; done'
		ok_eq "node 3 kept its vCPU busy for $((SECS + 6)) s, sending nothing" \
			124 "$?"
	elif is_node 3 && [ "$stream" != none ]; then
		$GARBAGE -d rxe0 -t "$(node_ip 1 0)" -q "$(get qpns1)" -s 2 \
			-D 1 -r "$RATE" -T $((SECS + 6)) -S "$RANDOM" "${qk[@]}" \
			> /tmp/garbage.$name 2>&1 &
		gpid=$!
		wait $gpid
		ok_eq "garbage ran for $((SECS + 6)) s" 0 "$?"
		cp /tmp/garbage.$name "$MRC_SHARED/garbage.$name"
		grep '^#\|^sent\|^rate' /tmp/garbage.$name | sed 's/^/# /'
		v=$(awk '$1 == "rate" { print $2 }' /tmp/garbage.$name)
		ok "garbage: at least $MIN_RATE of the $RATE datagrams/s asked for (${v:-0}/s)" \
			test "${v:-0}" -ge "$MIN_RATE"
		put "garbage-$name" "${v:-0}"
	elif is_node 2; then
		sleep 2		# once node 3's stream flows
		echo reset > $D/mrc_echo/ctl
		ok "send $COUNT messages of 1..65536 B to node1 (mrc_echo)" \
			sh -c "echo send 1 7 $COUNT 65536 $((4242 + ${#name})) > $D/mrc_echo/ctl"
		ok "mrc-perf bw 64 KiB for $SECS s" bulk /tmp/$name ||
			sed 's/^/# /' /tmp/bulk.err
		diag "$name: $(cat /tmp/$name) KB/s"
		put "bw-$name" "$(cat /tmp/$name)"
		diag "$name, host CPU: $(host_share "$h0" "$(cat "$MRC_SHARED/hostcpu" 2>/dev/null)")"
		wait_for "$COUNT sends completed" 300 sends_done "$COUNT"
		chk_echo_stat 'every send completed with status 0' done_ok = "$COUNT"
	fi
	if [ -n "$ppid" ]; then
		wait "$ppid"
		diag "$name: node 1's CPU (perf, system-wide, top symbols):"
		perf report -q -i /tmp/$name.perf.data --stdio --no-children \
			--sort sym --percent-limit 1 -g none 2>/dev/null |
			head -n 25 | sed 's/^ */  /' | while IFS= read -r v; do
				diag "$v"; done
		rm -f /tmp/$name.perf.data
	fi
	barrier "end-$name"
}

# forge_sidr: NSIDR SIDR requests in node 2's name to node 1 without a
# MAC and NSIDR with a random one, from an unprivileged process.
forge_sidr() {
	local i v
	rm -f /tmp/sidr.out
	for ((i = 0; i < NSIDR; i++)); do
		for v in none random; do
			"${UNPRIV[@]}" $SIDR -t "$(node_ip 1 0)" -s 2 -n 1 \
				-m $v >> /tmp/sidr.out 2>&1
		done
	done
	ok_eq "nobody: $NSIDR requests as node2 without a MAC and $NSIDR with a random one: all rejected" \
		$((2 * NSIDR)) "$(grep -c '^result rejected' /tmp/sidr.out)"
}

# check_counts NAME: node 1's counters over attack phase NAME against
# garbage.c's expectations.
check_counts() {
	local out=$MRC_SHARED/garbage.$1 b=/tmp/hostile.before
	local a=/tmp/hostile.after k r want got sent nic unseen short=0
	local seen="" extra=0 d

	snapshot $a
	ok 'garbage tool ran on node 3' test -s "$out"
	grep '^#\|^sent\|^rate' "$out" | sed 's/^/# /'
	diag "node1 plane 0:$(fabric_diag $b $a)"
	sent=$(awk '$1 == "sent" { print $3 }' "$out")
	nic=$(($(stat_of $a rogue_at_nic) - $(stat_of $b rogue_at_nic)))
	ok "node 3's datagrams at node1's NIC: $nic of $sent sent" \
		test "${sent:-0}" -gt 0 -a "$nic" -le "${sent:-0}"
	# What mrc could not see: lost before node 1's NIC, or by rxe
	# (a RoCE frame at the NIC that completed into no receive).
	unseen=$((sent - nic + \
		$(stat_of $a roce_at_nic) - $(stat_of $b roce_at_nic) - \
		($(stat_of $a rxe_rdma_recvs) - $(stat_of $b rxe_rdma_recvs))))
	[ "$unseen" -ge 0 ] || unseen=0
	diag "unseen by mrc: $((sent - nic)) lost before node1's NIC, $unseen in all with rxe's"
	while read -r k r want; do
		[ "$k" = expect ] || continue
		seen="$seen $r"
		got=$(($(stat_of $a "$r") - $(stat_of $b "$r")))
		d=$((want - got))
		[ "$d" -gt 0 ] && short=$((short + d))
		ok "drops/$r: $got of $want sent counted (unseen: $unseen)" \
			test "$got" -le "$want" -a "$d" -le "$unseen"
	done < "$out"
	ok "garbage not counted: $short in all, no more than went unseen ($unseen)" \
		test "$short" -le "$unseen"
	for r in $REASONS; do
		case " $seen " in *" $r "*) continue ;; esac
		got=$(($(stat_of $a "$r") - $(stat_of $b "$r")))
		[ "$got" = 0 ] || diag "drops/$r moved by $got (not sent by node 3)"
		[ "$r" = no_memory ] || [ "$r" = duplicate ] ||
			extra=$((extra + got))
	done
	ok_eq 'no other reason moved' 0 "$extra"
}

run_guest() {
	local n=$MRC_NODE o=$((3 - MRC_NODE)) pid state0 v a1 a2 c h i

	case_title 'nodes 1 and 2 peers with a shared key, node 3 nobody'
	if is_node 3; then
		ok 'node3: rxe0 and rxe1 there, no mrc' \
			test -e /sys/class/infiniband/rxe0 -a ! -e /sys/module/mrc
	else
		is_node 1 && put key "$(python3 -c 'import os; print(os.urandom(32).hex())')"
		ok 'write the key file (0600)' sh -c "umask 077 && python3 -c 'import sys
open(sys.argv[1], \"wb\").write(bytes.fromhex(sys.argv[2]))' $KEY $(get key)"
		ok 'modprobe mrc' modprobe mrc node_id="$n"
		mount -t debugfs none $D 2>/dev/null
		ok "add peer node$o with the key" mrcctl peer add "$o" \
			addr "$(node_ip "$o" 0),$(node_ip "$o" 1)" key $KEY
		ok 'insmod mrc_echo' insmod "$ECHO_KO"
		chk_paths_active "$o" 16 60
		chk_token_known "$o"
		echo reset > $D/mrc_echo/ctl
	fi
	if is_node 1; then
		put qpns1 "$(tr ' ' , < $R/qpns)"
		mrc-perf -s -p $PERF_PORT > /tmp/perf-server.log 2>&1 &
		pid=$!
		ok 'count node 3'"'"'s datagrams and all RoCE frames at eth0 (tc ingress)' \
			count_at_nic
	fi

	case_title "alone: node 2's traffic to node 1"
	phase alone1 none
	case_title "busy: node 3 keeps its vCPU busy and sends nothing (what a third guest costs the host)"
	phase busy1 busy
	for i in 1 2; do
		case_title "control $i: node 3 sends the same stream with a wrong Q_Key (rxe drops it, mrc never sees it)"
		phase control$i control

		case_title "attack $i: node 3's garbage at up to $RATE/s at node 1; node 2 sends on"
		if is_node 1; then
			state0=$(peer_state 2)
			snapshot /tmp/hostile.before
		fi
		phase attack$i attack
		if is_node 1; then
			case_title "attack $i: node 1 counted every hostile packet and changed nothing"
			sleep 2		# what rxe still holds reaches mrc
			check_counts attack$i
			ok_eq 'token for node2 and every path'"'"'s remote QPN unchanged' \
				"$state0" "$(peer_state 2)"
			chk_paths_active 2 16 30
		fi
	done
	case_title "alone again: node 2's traffic to node 1"
	phase alone2 none

	case_title 'forged SIDR requests in node 2'"'"'s name from an unprivileged process on node 3'
	if is_node 1; then
		state0=$(peer_state 2)
		snapshot /tmp/hostile.before
	fi
	barrier sidr
	is_node 3 && forge_sidr
	barrier sidr-done
	if is_node 1; then
		snapshot /tmp/hostile.after
		for v in no_auth bad_auth; do
			ok_eq "cm_$v counts the $NSIDR forged requests" "$NSIDR" \
				$(($(stat_of /tmp/hostile.after cm_$v) - \
				   $(stat_of /tmp/hostile.before cm_$v)))
		done
		_sleep 3	# a re-resolution would have started by now
		ok_eq 'token for node2 and every path'"'"'s remote QPN unchanged' \
			"$state0" "$(peer_state 2)"
		chk_paths_active 2 16 30
	fi

	if is_node 1; then
		case_title 'every message of node 2 arrived, intact and in order'
		chk_echo_stat "node2's $COUNT messages of each phase" rx = $((7 * COUNT))
		chk_echo_stat 'every message intact' rx_bad = 0
		chk_echo_stat 'in order' rx_order = 0
	fi
	if is_node 2; then
		case_title 'the good traffic under attack'
		a1=$(get bw-alone1) a2=$(get bw-alone2)
		c=$(($(get bw-control1) + $(get bw-control2)))
		h=$(($(get bw-attack1) + $(get bw-attack2)))
		v=$((100 * h / (c ? c : 1)))
		diag "bulk KB/s: alone $a1, busy $(get bw-busy1), control $(get bw-control1)," \
		     "attack $(get bw-attack1), control $(get bw-control2)," \
		     "attack $(get bw-attack2), alone $a2"
		diag "with node 3 only busy: $((200 * $(get bw-busy1) / (a1 + a2 ? a1 + a2 : 1)))% of the unloaded rate"
		diag "node 3 sent $(get garbage-attack1)/s and $(get garbage-attack2)/s" \
		     "(control: $(get garbage-control1)/s and $(get garbage-control2)/s)"
		# A figure, not a check: see the header.
		diag "under attack: $((100 * h / (a1 + a2 ? a1 + a2 : 1)))% of the unloaded rate," \
		     "$v% of the rate beside the same stream dropped by rxe" \
		     "($h KB/s against $c, two phases each; issue 21's target: 80%)"
	fi
	barrier done

	if ! is_node 3; then
		case_title 'no leak'
		is_node 1 && kill "$pid"
		ok 'rmmod mrc_echo' rmmod mrc_echo
		chk_rx_buffers_free 30
		ok 'modprobe -r mrc' modprobe -r mrc
	fi
	rm -f $KEY
}

mrc_test_main "$@"
