#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Peer restart: two nodes with all 16 paths active; node 2's mrc restarts
# (modprobe -r mrc, modprobe mrc, peer 1 added again) while node 1's mrc
# keeps running and keeps its peer 2.  Both sides must find all 16 paths
# active again by themselves within RECOVER_S seconds.
#
# This failed until the restart handling (new incarnation in the SIDR
# exchange, links resolved again) and the per-peer tokens (a node that
# does not know the peer's token asks for it, MRC_CM_F_NEED_TOKEN, and
# the peer resolves its links to it again): node 1 kept probing node 2's
# old QPNs and dropped node 2's PROBEs as wrong_path.  Passing since
# (3 runs, 30 s each); in TEST_PROGS.  Written as titled cases
# (lib.sh's case_title and chk_* helpers).
source "$(dirname "$0")/lib.sh"
NODES=2
TIMEOUT=300
RECOVER_S=${MRC_PEER_RESTART_RECOVER_S:-30}


run_guest() {
	OTHER=$((3 - MRC_NODE))
	local a
	a="$(node_ip "$OTHER" 0),$(node_ip "$OTHER" 1)"

	case_title 'both nodes up, every path active'
	ok 'modprobe mrc node_id' modprobe mrc node_id="$MRC_NODE"
	ok "add peer node$OTHER" mrcctl peer add "$OTHER" addr "$a"
	chk_paths_active "$OTHER" 16 60
	barrier up

	case_title "node 2's mrc restarts; node 1's keeps running, with its peer"
	if is_node 2; then
		ok 'restart: modprobe -r mrc' modprobe -r mrc
		ok 'restart: modprobe mrc' modprobe mrc node_id="$MRC_NODE"
		ok "restart: add peer node$OTHER again" mrcctl peer add "$OTHER" addr "$a"
	fi
	barrier restarted

	case_title "both sides find every path again by themselves within ${RECOVER_S}s"
	if ! chk_paths_active "$OTHER" 16 "$RECOVER_S"; then
		mrcctl -s peer show "$OTHER" 2>&1 | _diag_stream
	fi
	barrier done
	ok 'modprobe -r mrc' modprobe -r mrc
}

mrc_test_main "$@"
