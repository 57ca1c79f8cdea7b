#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Hostile wire input.  Node 2's mrc sends a legitimate transfer to node 1
# (modules/mrc_echo, as in transfer.sh) and node 1 one to node 2 (messages
# above credit_unsched_bytes: scheduled, paced by node 2's grants) while,
# on node 2, the rogue tool (selftests/mrc/rogue.c) opens its own UD QP on
# rxe0 and sends node 1's mrc QPs every kind of bad packet: wrong qkey,
# truncated headers, every unknown version and type, bad lengths/offsets/
# segments, huge message lengths, bad SACK/NACK bodies, packets for another
# node, from a node that is not a peer, from a QP that is not one of the
# peer's paths, HELLO and PROBE floods, and credit packets (malformed,
# oversized and well-formed GRANTs and CREDIT_REQs, floods of requests for
# many message ids, from the peer's node id and from strangers).  It also
# forges frames on the wire (packet socket, ICRC recomputed) that come from
# a real path of the peer: DATA of a given-up epoch, SACK/NACK for messages
# node 1 never sent, datagrams larger than any receive buffer (rxe puts the
# QP into ERROR; mrc recovers it), and GRANTs and CREDIT_REQs built from
# the real ones node 2 sends node 1 (rogue.c k_spoof_credit: grants with
# a stale, equal-but-different or far newer sequence, another length,
# beyond the message, for message ids never requested, junk in reserved
# fields, real grants replayed once node 1 moved on; requests with another
# length, within the unscheduled window, above the cap, replays of an
# earlier message, a flood for earlier message ids).
#
# Node 1 asserts: every kind is counted under the reason the tool expected
# (rails/rxe0:1/drops/<reason>, same figures in `mrcctl -j -s rail show`),
# the forged credit packets the credit state refused moved node 1's
# per-peer grants_bad (as a sender) and requests_bad (as a receiver) by
# exactly their number (the grant replays, which look like late real
# grants, moved grants_stale and drops/duplicate instead, and the request
# replays and floods of earlier ids requests_stale and drops/duplicate),
# no sender
# exceeded its credit (node 1 sent no more scheduled bytes to node 2 than
# node 2 granted it; neither receiver saw DATA beyond its grants), the
# oversized datagrams each cost one QP error and one recovery, both
# transfers deliver every message intact and in order, the reassembly
# memory returns to 0, slab usage stays bounded, and dmesg has no
# WARN/BUG.
#
# Every count is of what reached mrc.  On a loaded host frames of the
# rogue go missing before mrc can see them: the fabric drops some before
# node 1's NIC (its QEMU does not drain its tap in time), and node 1's
# rxe drops datagrams, without a trace, for a QP with no receive posted
# or not ready.  Node 1 counts the rogue's frames at its NIC (they carry
# their own IPv4 TOS), all RoCE frames there, and rxe's completed
# receives (hw_counters rdma_recvs); what went unseen is the rogue's
# frames lost before the NIC plus the RoCE frames rxe completed into no
# receive (less the wrong-qkey ones and the oversized datagrams).  No
# count may exceed what was forged, and together they may fall short of
# it by no more than went unseen: with nothing unseen, every count is
# exact.
#
# Tokens (wire version 3): node 1 drops every packet from node 2 that
# does not carry the token it gave node 2 (bad_token), before any other
# check but the peer lookup.  The rogue sits on node 2, as good as
# on-path: its verbs kinds that must reach the later checks (wrong_path,
# probe_flood, credit) use the real token, read from node 2's debugfs
# mrc/tokens (a root-only test hook), and its forged frames copy it from
# the captured ones.  What an off-path node would send - everything right
# but the token - must be bad_token: "wrong_token" (every type from the
# rogue's QP to every QP, with tokens near the real one, 0 and others),
# "spoof_wrong_token" (the same forged on a real path), and the two
# forgeries that version 2 took (measured: node 2 saw 106
# DATA packets beyond its grants): a GRANT of the message being sent
# with a far newer seq (spoof_grant_next) and a CREDIT_REQ for a far
# later message id (spoof_req_next).  Node 2 grants at 80 Mbit/s so
# that grants, not the fabric, pace node 1.  rogue_epoch.sh covers the
# forged newer epoch.  Written as titled cases (lib.sh's case_title and
# chk_* helpers).
source "$(dirname "$0")/lib.sh"
NODES=2
TIMEOUT=${MRC_ROGUE_TIMEOUT:-600}
COUNT=${MRC_ROGUE_COUNT:-60}
MAXLEN=${MRC_ROGUE_MAXLEN:-2097152}
FLOOD=${MRC_ROGUE_FLOOD:-500}
REVCOUNT=${MRC_ROGUE_REVCOUNT:-24}	# node 1 -> node 2, scheduled
REVLEN=${MRC_ROGUE_REVLEN:-1048576}

source "$MRC_LIB_DIR/echo_lib.sh"
source "$MRC_LIB_DIR/rogue_lib.sh"

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
wrong_path unexpected unresolved bad_credit bad_token"

# snapshot FILE: every drop reason and QP counter of the rail.
snapshot() {
	local r
	{
		for r in $REASONS; do echo "$r $(cat $R/drops/$r)"; done
		echo "qp_errors $(cat $R/stats/qp_errors)"
		echo "qp_recoveries $(cat $R/stats/qp_recoveries)"
		echo "grants_bad $(credit_stat 2 grants_bad)"
		echo "grants_stale $(credit_stat 2 grants_stale)"
		echo "requests_bad $(credit_stat 2 requests_bad)"
		echo "requests_stale $(credit_stat 2 requests_stale)"
		echo "requests_rx $(credit_stat 2 requests_rx)"
		fabric_counters
	} > "$1"
}

# echo_idle: mrc_echo has handed every message of its job to mrc.
echo_idle() { [ "$(echo_stat busy)" = 0 ]; }

# The mrc drop counters of our rail as mrcctl reports them, "reason value".
mrcctl_drops() {
	mrcctl -j -s rail show | jq -r --arg n "$RAIL" \
		'.[] | select(.name == $n) | .drops | to_entries[] |
		 "\(.key) \(.value)"'
}

check_node1() {
	local out=$MRC_SHARED/rogue.out b=/tmp/rogue.before a=/tmp/rogue.after
	local k v r x want got extra=0 seen="" sent nic unseen short=0
	local invisible qperr

	snapshot $a
	ok "rogue tool ran on node 2" test -s "$out"
	grep '^#\|^kind\|^credit\|^sent' "$out" | sed 's/^/# /'
	diag "node1 plane 0:$(fabric_diag $b $a)"
	diag "node2 plane 0:$(get fabric2 60)"

	# What reached mrc.  Every frame of the rogue reached node 1's NIC
	# unless the fabric lost it (counted by the rogue's TOS); past the
	# NIC, rxe drops without a trace a datagram for a QP that has no
	# receive posted (mrc reposts from its CQ's workqueue, which a
	# loaded TCG guest runs late) or is not ready (in ERROR, until mrc
	# recovers it).  Neither is mrc's doing, and neither can be told
	# apart per frame: the frames of the transfers are lost the same
	# way.  So: "unseen" = the rogue's frames the fabric lost + the RoCE
	# frames at the NIC that rxe completed into no receive (less the
	# wrong-qkey ones, which rxe refuses by design, and the oversized
	# datagrams, which complete in error).  With nothing unseen, every
	# count below must be exact; otherwise a count may fall short of
	# what was forged, by at most what went unseen in all.
	sent=$(awk '$1 == "sent" { n += $3 } END { print n + 0 }' "$out")
	nic=$(($(stat_of $a rogue_at_nic) - $(stat_of $b rogue_at_nic)))
	invisible=$(awk '$1 == "expect" && $2 == "invisible" { print $3 }' "$out")
	qperr=$(($(stat_of $a qp_errors) - $(stat_of $b qp_errors)))
	ok "the rogue's frames at node1's NIC: $nic of $sent sent" \
		test "$sent" -gt 0 -a "$nic" -le "$sent"
	unseen=$((sent - nic + \
		$(stat_of $a roce_at_nic) - $(stat_of $b roce_at_nic) - \
		${invisible:-0} - qperr - \
		($(stat_of $a rxe_rdma_recvs) - $(stat_of $b rxe_rdma_recvs))))
	[ "$unseen" -ge 0 ] || unseen=0
	diag "unseen by mrc: $((sent - nic)) lost by the fabric before node1's NIC," \
	     "$unseen in all with rxe's (no receive posted, QP not ready)"
	# counted DESC WANT GOT: GOT of WANT forged frames counted: exact
	# if nothing went unseen, else short by at most that; the shortfall
	# goes to the total checked at the end.
	counted() {
		local d=$(($2 - $3))
		[ "$d" -gt 0 ] && short=$((short + d))
		ok "$1: $3 of $2 forged counted (unseen: $unseen)" \
			test "$3" -le "$2" -a "$d" -le "$unseen"
	}

	# Every forged credit kind went out (they need captured frames).
	while read -r k r x v x; do
		case $k:$r in kind:spoof_grant_*|kind:spoof_req_*) ;;
		*) continue ;; esac
		ok "$r: forged and sent ($v)" test "$v" -gt 0
	done < "$out"
	# Refused by the credit state, not just the parser: node 1's
	# per-peer counters, as a sender (grants) and a receiver (requests).
	# These frames are counted under drops/bad_credit too, so their
	# shortfall is not added again.
	local gbad=0 gstale=0 geither=0 either_bad rstale=0 s0
	local rbad=0 reither=0 either_rbad
	while read -r k r want; do
		[ "$k" = credit ] || continue
		case $r in
		grants_bad) gbad=$want; continue ;;
		grants_stale) gstale=$want; continue ;;
		grants_either) geither=$want; continue ;;
		requests_stale) rstale=$want; continue ;;
		requests_bad) rbad=$want; continue ;;
		requests_either) reither=$want; continue ;;
		esac
		# Any other: refused frames also counted as drops/bad_credit
		# (their shortfall is added there, not twice).
		got=$(($(stat_of $a "$r") - $(stat_of $b "$r")))
		s0=$short
		counted "credit/peer 2 $r" "$want" "$got"
		short=$s0
	done < "$out"
	# A forged grant with a real one's seq and another offset
	# (spoof_grant_same_seq) contradicts that grant while it is the
	# last one taken (grants_bad), and looks like an older real grant
	# once a newer one is taken (grants_stale): the sender keeps no
	# history.  Real grants are never bad; late ones are stale too.
	got=$(($(stat_of $a grants_bad) - $(stat_of $b grants_bad)))
	ok "credit/peer 2 grants_bad: $got, the $gbad forged + up to $geither same-seq (less what went unseen: $unseen)" \
		test "$got" -ge $((gbad - unseen)) -a "$got" -le $((gbad + geither))
	either_bad=$((got < gbad ? 0 : got - gbad))
	got=$(($(stat_of $a grants_stale) - $(stat_of $b grants_stale)))
	ok "credit/peer 2 grants_stale: $got >= $gstale replayed + $((geither - either_bad)) same-seq (less what went unseen: $unseen)" \
		test "$got" -ge $((gstale + geither - either_bad - unseen))
	# The same for requests: one with the captured message's id and
	# another length (spoof_req_len) contradicts it while the
	# receiver's entry holds that message (requests_bad), and looks like
	# a replayed earlier request once the sender's next request took the
	# entry over (requests_stale).
	got=$(($(stat_of $a requests_bad) - $(stat_of $b requests_bad)))
	ok "credit/peer 2 requests_bad: $got, the $rbad forged + up to $reither of another length (less what went unseen: $unseen)" \
		test "$got" -ge $((rbad - unseen)) -a "$got" -le $((rbad + reither))
	either_rbad=$((got < rbad ? 0 : got - rbad))
	# Requests for an earlier message (replayed, a flood) are stale,
	# not bad: a reordered real one looks the same, and counts too.
	got=$(($(stat_of $a requests_stale) - $(stat_of $b requests_stale)))
	ok "credit/peer 2 requests_stale: $got >= $rstale replayed or earlier + $((reither - either_rbad)) of another length (less what went unseen: $unseen)" \
		test "$rstale" -gt 0 -a "$got" -ge $((rstale + reither - either_rbad - unseen))
	# Every request node 1 took (a new message, or a repeat for a lost
	# GRANT) is one node 2's mrc sent: none of the forged ones.
	got=$(($(stat_of $a requests_rx) - $(stat_of $b requests_rx)))
	x=$(get requests-to-1)
	ok "credit/peer 2 requests_rx: $got taken, no more than node 2 sent ($x)" \
		test "$got" -le "$x"
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
			# An oversized datagram rxe dropped unseen (no
			# receive posted, or the QP still in ERROR from the
			# one before) upsets no QP.
			counted "oversized datagrams: QP errors" "$want" "$qperr"
			got=$(($(stat_of $a qp_recoveries) - \
			       $(stat_of $b qp_recoveries)))
			ok_eq "oversized datagrams: a recovery per QP error" \
				"$qperr" "$got"
			continue ;;
		bad_credit_or_duplicate)
			continue ;;	# the same-seq grants (above)
		bad_credit)
			want=$((want + either_bad + either_rbad)) ;;
		esac
		seen="$seen $r"
		got=$(($(stat_of $a "$r") - $(stat_of $b "$r")))
		if [ "$r" = duplicate ]; then
			# The transfer's own retransmissions count here too.
			ok "drops/$r: $got >= $want forged (less what went unseen: $unseen)" \
				test "$got" -ge $((want - unseen))
		else
			counted "drops/$r" "$want" "$got"
		fi
	done < "$out"
	ok "forged frames not counted: $short in all, no more than went unseen ($unseen)" \
		test "$short" -le "$unseen"
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
	local n=$MRC_NODE o=$((3 - MRC_NODE)) slab0 qpns v g pid tok

	# A long grant timeout: under TCG a 10 ms one makes node 1 repeat
	# requests whose grants are only late, and the odd repeat arrives
	# after its message was done.  Late GRANTs count as grants_stale
	# (not bad_credit); the requests_bad count must be forged only.
	case_title 'both nodes up with credits on and mrc_echo, every path active'
	ok 'modprobe mrc node_id (credits on)' modprobe mrc node_id="$n" \
		credit=1 credit_grant_timeout_ms=200
	mount -t debugfs none $D 2>/dev/null
	ok "add peer node$o on both planes" peer_add "$o"
	ok 'insmod mrc_echo' insmod "$ECHO_KO"
	chk_paths_active "$o" 16 60
	put "qpns$n" "$(tr ' ' , < $R/qpns)"
	echo reset > $D/mrc_echo/ctl
	# Node 2 grants node 1 at 80 Mbit/s: the grants, not the fabric,
	# pace node 1's scheduled messages, so a forged grant it took
	# would show as DATA beyond node 2's grants (over_credit).
	is_node 2 && ok 'node2: credit_rate_kbps 80000' \
		mrcctl config set credit_rate_kbps 80000
	barrier paths-up

	if is_node 1; then
		slab0=$(meminfo_kb Slab)
		ok "count the rogue's frames and all RoCE frames at eth0 (tc ingress)" \
			count_at_nic
		snapshot /tmp/rogue.before
	else
		qpns=$(get qpns1)
		# The token node 1 expects from us (test hook, root only).
		tok=$(peer_token 1)
		chk_token_known 1
		rm -f "$MRC_SHARED/rogue.out"
		fabric_counters > /tmp/fabric.before
	fi
	barrier start

	case_title "transfers both ways while node 2's rogue sends every kind of bad packet"
	if is_node 1; then
		# Once node 2's rogue listens for our GRANTs to copy.
		get capturing 300 > /dev/null
		ok "send $REVCOUNT messages of $REVLEN B to node2 (scheduled)" \
			sh -c "echo send 2 7 $REVCOUNT $REVLEN 4713 1 > $D/mrc_echo/ctl"
		wait_for "$COUNT messages received" 600 received_at_least "$COUNT"
		wait_for "$REVCOUNT sends completed" 600 sends_done "$REVCOUNT"
		ok_eq "transfer to node2: every send completed with status 0" \
			"$REVCOUNT" "$(echo_stat done_ok)"
	else
		# A few messages first: DATA for the rogue's template.
		ok "send 4 messages of 1..$MAXLEN B to node1" \
			sh -c "echo send 1 7 4 $MAXLEN 4711 > $D/mrc_echo/ctl"
		# Forged path frames first, while DATA and credit packets
		# flow to copy from (credit ones before the oversized
		# datagrams upset a QP).
		$ROGUE -d rxe0 -t "$(node_ip 1 0)" -q "$qpns" -s 2 -D 1 -u 99 \
			-P "$_MRC_TSCALE" \
			-i eth0 -Q "$(tr ' ' , < $R/qpns)" -T 120 \
			spoof_credit spoof > /tmp/rogue.spoof 2>&1 &
		pid=$!
		wait_for 'rogue: template captured' 60 \
			grep -q '^# captured' /tmp/rogue.spoof
		# The rest of our messages, and node 1's scheduled ones,
		# start once the rogue listens for the CREDIT_REQs and GRANTs
		# they bring (all started before it, on a loaded host the
		# rogue once took 1 CREDIT_REQ in its 120 s).
		wait_for 'the first 4 handed to mrc' 60 echo_idle
		ok "send the other $((COUNT - 4)) messages of 1..$MAXLEN B to node1" \
			sh -c "echo send 1 7 $((COUNT - 4)) $MAXLEN 4712 > $D/mrc_echo/ctl"
		put capturing 1
		wait $pid
		ok_eq 'rogue: forged frames on a real path' 0 "$?"
		# The datagrams from the rogue's QP come in paced bursts
		# (pauses x MRC_TIMEOUT_SCALE: on the debug-kernel lane on a
		# loaded host, some wrong-token packets and an oversized
		# datagram went unseen);
		# with node 1 also sending, TCG guests fell behind reposting
		# receives and rxe dropped up to 70% of the floods unseen
		# (no receive posted).  They go once node 1's scheduled
		# messages are in, while node 2's transfer still runs.
		wait_for "$REVCOUNT messages from node1 received" 600 \
			received_at_least "$REVCOUNT"
		ok 'rogue: crafted datagrams from its own UD QP' \
			sh -c "$ROGUE -d rxe0 -t $(node_ip 1 0) -q $qpns -s 2 \
			-P $_MRC_TSCALE -D 1 -u 99 -n $FLOOD -K $tok \
			wrong_qkey truncated bad_version bad_type bad_length \
			bad_offset msg_too_big \
			bad_seg bad_sack not_for_us unknown_peer wrong_path \
			hello_flood probe_flood credit wrong_token \
			> /tmp/rogue.verbs 2>&1"
		# One report, expectations summed over both runs.
		{
			grep -h '^#\|^kind\|^credit' /tmp/rogue.spoof \
				/tmp/rogue.verbs
			grep -h '^expect\|^sent' /tmp/rogue.spoof /tmp/rogue.verbs |
				awk '{ s[$1 " " $2] += $3 } END { for (r in s)
					print r, s[r] }'
		} > /tmp/rogue.out
		grep -v '^kind\|^expect\|^sent\|^#' /tmp/rogue.spoof /tmp/rogue.verbs |
			sed 's/^/# /'
		cp /tmp/rogue.out "$MRC_SHARED/rogue.out.tmp" &&
			mv "$MRC_SHARED/rogue.out.tmp" "$MRC_SHARED/rogue.out"
		wait_for "$COUNT sends completed" 600 sends_done "$COUNT"
		ok_eq "transfer: every send completed with status 0" "$COUNT" \
			"$(echo_stat done_ok)"
		wait_for "$REVCOUNT messages from node1 received" 600 \
			received_at_least "$REVCOUNT"
		ok_eq "transfer from node1: $REVCOUNT messages received" \
			"$REVCOUNT" "$(echo_stat rx)"
		ok_eq 'transfer from node1: every message intact' 0 \
			"$(echo_stat rx_bad)"
		ok_eq 'transfer from node1: in order' 0 "$(echo_stat rx_order)"
		ok_eq 'node2 saw no DATA beyond its grants from node1' 0 \
			"$(credit_stat 1 over_credit)"
		put granted-to-1 "$(credit_stat 1 granted_bytes)"
		put requests-to-1 "$(credit_stat 1 requests_tx)"
		fabric_counters > /tmp/fabric.after
		put fabric2 "$(fabric_diag /tmp/fabric.before /tmp/fabric.after)"
		diag "credit: $(grep -v '^peer' $D/mrc/credit | tr '\n' ' ')"
	fi
	barrier rogue-done 600

	case_title "node 1 got node 2's transfer intact, counted every bad packet"
	if is_node 1; then
		ok_eq "transfer: $COUNT messages received" "$COUNT" \
			"$(echo_stat rx)"
		ok_eq 'transfer: every message intact' 0 "$(echo_stat rx_bad)"
		ok_eq 'transfer: in order' 0 "$(echo_stat rx_order)"
		check_node1
	fi

	# No sender exceeds its credit: node 1 took forged grants for its
	# scheduled messages to node 2 all along.
	case_title 'no sender exceeded its credit'
	if is_node 1; then
		v=$(credit_stat 2 tx_sched_bytes)
		g=$(get granted-to-1)
		diag "node1 -> node2: $v scheduled bytes sent," \
		     "$g granted by node2, $(credit_stat 2 grants_rx) grants" \
		     "taken, $(credit_stat 2 grants_bad) refused"
		ok "node1 sent scheduled bytes to node2 ($v)" test "$v" -gt 0
		ok "node1 sent no more scheduled bytes than node2 granted ($v <= $g)" \
			test "$v" -le "$g"
		ok_eq 'node1 saw no DATA beyond its grants from node2' 0 \
			"$(credit_stat 2 over_credit)"
		diag "credit: $(grep -v '^peer' $D/mrc/credit | tr '\n' ' ')"
	fi

	case_title "node 1's memory after the attack: no receive buffer, slab bounded"
	if is_node 1; then
		chk_rx_buffers_free 30
		chk_meminfo_grew_less Slab "$slab0" 4096
		diag "mrc: $(tr '\n' ' ' < $D/mrc/msg)"
	fi
	barrier checked 300

	case_title 'mrc_echo and mrc unload'
	ok 'rmmod mrc_echo' rmmod mrc_echo
	chk_rx_buffers_free 10
	ok 'modprobe -r mrc' modprobe -r mrc
}

mrc_test_main "$@"
