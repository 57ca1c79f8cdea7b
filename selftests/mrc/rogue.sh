#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Hostile wire input.  Node 2's mrc sends a legitimate transfer to node 1
# (modules/mrc_echo, as in transfer.sh) while, on the same node, the rogue
# tool (selftests/mrc/rogue.c) opens its own UD QP on rxe0 and sends node 1's
# mrc QPs every kind of bad packet: wrong qkey, truncated headers, every
# unknown version and type, bad lengths/offsets/segments, huge message
# lengths, bad SACK/NACK bodies, packets for another node, from a node that
# is not a peer, from a QP that is not one of the peer's paths, HELLO and
# PROBE floods.  It also forges frames on the wire (packet socket, ICRC
# recomputed) that come from a real path of the peer: DATA of a given-up
# epoch, SACK/NACK for messages node 1 never sent, and datagrams larger than
# any receive buffer (rxe puts the QP into ERROR; mrc recovers it).
#
# Node 1 asserts: every kind is counted under the reason the tool expected
# (rails/rxe0:1/drops/<reason>, same figures in `mrcctl -j -s rail show`),
# the oversized datagrams each cost one QP error and one recovery, the
# transfer delivers every message intact and in order, the reassembly
# memory returns to 0, slab usage stays bounded, and dmesg has no WARN/BUG.
source "$(dirname "$0")/lib.sh"
NODES=2
TIMEOUT=${MRC_ROGUE_TIMEOUT:-600}
COUNT=${MRC_ROGUE_COUNT:-60}
MAXLEN=${MRC_ROGUE_MAXLEN:-2097152}
FLOOD=${MRC_ROGUE_FLOOD:-500}

source "$MRC_LIB_DIR/echo_lib.sh"

ROGUE=$MRC_LIB_DIR/rogue
if [ -z "${MRC_IN_VM:-}" ] &&
   ! make -s -C "$MRC_LIB_DIR" rogue > /dev/null 2>&1; then
	echo "not ok 1 build selftests/mrc/rogue (needs libibverbs-dev)"
	exit 1
fi

RAIL=rxe0:1
R=/sys/kernel/mrc/rails/$RAIL
REASONS="truncated bad_version bad_type bad_length bad_offset msg_too_big
bad_seg bad_sack not_for_us unknown_peer no_memory duplicate bad_field
wrong_path unexpected unresolved"

active_paths() {
	python3 "$MRC_LIB_DIR/nlpeer.py" show "$1" | while read -r k v; do
		[ "$k" = active ] && echo "$v"
	done
}

slab_kb() { stat_of /proc/meminfo Slab: | sed 's/ kB//'; }

# snapshot FILE: every drop reason and QP counter of the rail.
snapshot() {
	local r
	{
		for r in $REASONS; do echo "$r $(cat $R/drops/$r)"; done
		echo "qp_errors $(cat $R/stats/qp_errors)"
		echo "qp_recoveries $(cat $R/stats/qp_recoveries)"
	} > "$1"
}

sender_done() {
	[ "$(echo_stat busy)" = 0 ] &&
	[ $(($(echo_stat done_ok) + $(echo_stat done_err))) -ge "$COUNT" ]
}
receiver_done() { [ "$(echo_stat rx)" -ge "$COUNT" ]; }

# The mrc drop counters of our rail as mrcctl reports them, "reason value".
mrcctl_drops() {
	mrcctl -j -s rail show | jq -r --arg n "$RAIL" \
		'.[] | select(.name == $n) | .drops | to_entries[] |
		 "\(.key) \(.value)"'
}

check_node1() {
	local out=$MRC_SHARED/rogue.out b=/tmp/rogue.before a=/tmp/rogue.after
	local k v r want got extra=0 seen=""

	snapshot $a
	ok "rogue tool ran on node 2" test -s "$out"
	grep '^#\|^kind' "$out" | sed 's/^/# /'
	while read -r k r want; do
		[ "$k" = expect ] || continue
		case $r in
		invisible)
			# rxe drops a wrong qkey before mrc sees it: these
			# would count as wrong_path, which must match the
			# other kinds exactly (checked below).
			diag "wrong qkey: $want PROBEs, to be dropped by rxe"
			continue ;;
		qp_error)
			got=$(($(stat_of $a qp_errors) - $(stat_of $b qp_errors)))
			ok_eq "oversized datagrams: $want QP errors" "$want" "$got"
			got=$(($(stat_of $a qp_recoveries) - \
			       $(stat_of $b qp_recoveries)))
			ok_eq "oversized datagrams: $want QP recoveries" \
				"$want" "$got"
			continue ;;
		esac
		seen="$seen $r"
		got=$(($(stat_of $a "$r") - $(stat_of $b "$r")))
		if [ "$r" = duplicate ]; then
			# The transfer's own retransmissions count here too.
			ok "drops/$r: $got >= $want forged" test "$got" -ge "$want"
		else
			ok_eq "drops/$r: every one of $want counted" "$want" "$got"
		fi
	done < "$out"
	for r in $REASONS; do
		case " $seen " in *" $r "*) continue ;; esac
		got=$(($(stat_of $a "$r") - $(stat_of $b "$r")))
		[ "$got" = 0 ] || diag "drops/$r moved by $got (not forged)"
		[ "$r" = no_memory ] || [ "$r" = duplicate ] ||
			extra=$((extra + got))
	done
	ok_eq "no other reason moved" 0 "$extra"

	# mrcctl reads the same counters over netlink.
	mrcctl_drops > /tmp/rogue.nl
	snapshot $a
	for r in bad_version bad_type wrong_path; do
		ok_eq "mrcctl -j -s rail show: drops.$r = sysfs" \
			"$(stat_of $a $r)" "$(stat_of /tmp/rogue.nl $r)"
	done
}

run_guest() {
	local n=$MRC_NODE o=$((3 - MRC_NODE)) slab0 slab1 qpns

	ok 'modprobe mrc node_id' modprobe mrc node_id="$n"
	mount -t debugfs none $D 2>/dev/null
	ok "add peer node$o on both planes" peer_add "$o"
	ok 'insmod mrc_echo' insmod "$ECHO_KO"
	wait_for "16 paths to node$o active" 60 all_active "$o" 16
	put "qpns$n" "$(tr ' ' , < $R/qpns)"
	echo reset > $D/mrc_echo/ctl
	barrier paths-up

	if is_node 1; then
		slab0=$(slab_kb)
		snapshot /tmp/rogue.before
		barrier start
		wait_for "$COUNT messages received" 600 receiver_done
		barrier rogue-done 600
		ok_eq "transfer: $COUNT messages received" "$COUNT" \
			"$(echo_stat rx)"
		ok_eq 'transfer: every message intact' 0 "$(echo_stat rx_bad)"
		ok_eq 'transfer: in order' 0 "$(echo_stat rx_order)"
		check_node1
		wait_for 'receive buffers back to 0' 30 rx_buffers_free
		slab1=$(slab_kb)
		diag "slab ${slab0} kB before, ${slab1} kB after"
		ok "slab grew less than 4 MiB ($slab0 -> $slab1 kB)" \
			test $((slab1 - slab0)) -lt 4096
		diag "mrc: $(tr '\n' ' ' < $D/mrc/msg)"
	else
		qpns=$(get qpns1)
		rm -f "$MRC_SHARED/rogue.out"
		barrier start
		ok "send $COUNT messages of 1..$MAXLEN B to node1" \
			sh -c "echo send 1 7 $COUNT $MAXLEN 4711 > $D/mrc_echo/ctl"
		# Forged path frames first, while DATA flows to copy from.
		ok 'rogue: forged frames on a real path' \
			sh -c "$ROGUE -d rxe0 -t $(node_ip 1 0) -q $qpns -s 2 \
			-D 1 -u 99 -i eth0 -Q $(tr ' ' , < $R/qpns) spoof \
			> /tmp/rogue.spoof 2>&1"
		ok 'rogue: crafted datagrams from its own UD QP' \
			sh -c "$ROGUE -d rxe0 -t $(node_ip 1 0) -q $qpns -s 2 \
			-D 1 -u 99 -n $FLOOD wrong_qkey truncated bad_version \
			bad_type bad_length bad_offset msg_too_big bad_seg \
			bad_sack not_for_us unknown_peer wrong_path \
			hello_flood probe_flood > /tmp/rogue.verbs 2>&1"
		# One report, expectations summed over both runs.
		{
			grep -h '^#\|^kind' /tmp/rogue.spoof /tmp/rogue.verbs
			grep -h '^expect' /tmp/rogue.spoof /tmp/rogue.verbs |
				awk '{ s[$2] += $3 } END { for (r in s)
					print "expect", r, s[r] }'
		} > /tmp/rogue.out
		grep -v '^kind\|^expect\|^#' /tmp/rogue.spoof /tmp/rogue.verbs |
			sed 's/^/# /'
		cp /tmp/rogue.out "$MRC_SHARED/rogue.out.tmp" &&
			mv "$MRC_SHARED/rogue.out.tmp" "$MRC_SHARED/rogue.out"
		wait_for "$COUNT sends completed" 600 sender_done
		ok_eq "transfer: every send completed with status 0" "$COUNT" \
			"$(echo_stat done_ok)"
		barrier rogue-done 600
	fi

	barrier checked 300
	ok 'rmmod mrc_echo' rmmod mrc_echo
	wait_for 'receive buffers back to 0' 10 rx_buffers_free
	ok 'modprobe -r mrc' modprobe -r mrc
}

mrc_test_main "$@"
