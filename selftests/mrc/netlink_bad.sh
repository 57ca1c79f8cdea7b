#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Bad netlink input and privilege: nl_bad sends unknown, missing,
# wrong-typed and out-of-range attributes (each must be refused with the
# right errno and an extack message, config unchanged; the node id can
# never become a configured peer's), then the same
# state-changing operations from a user without CAP_NET_ADMIN (EPERM), and
# mrcctl and sysfs as that user.  Written as titled cases (lib.sh's
# case_title and chk_* helpers).
source "$(dirname "$0")/lib.sh"
NODES=1
TIMEOUT=600

NL_BAD=$(dirname "$0")/nl_bad

run_guest() {
	local out rc

	case_title 'bad attributes refused with errno and extack, config unchanged'
	ok 'modprobe mrc' modprobe mrc
	relay_tap nl_bad "$NL_BAD"

	case_title 'state-changing operations without CAP_NET_ADMIN: EPERM'
	relay_tap "nl_bad --unpriv" "${UNPRIV[@]}" "$NL_BAD" --unpriv

	case_title 'mrcctl and sysfs as user nobody: reads work, writes refused'
	out=$("${UNPRIV[@]}" "$(command -v mrcctl)" config set min_mtu 4096 2>&1)
	rc=$?
	ok_eq 'unprivileged mrcctl config set exits 1' 1 "$rc"
	ok 'and tells what is missing' grep -q 'CAP_NET_ADMIN' <<< "$out"
	diag "mrcctl said: $out"
	ok 'unprivileged mrcctl rail show works' \
		"${UNPRIV[@]}" "$(command -v mrcctl)" rail show
	chk_refused 'unprivileged sysfs knob write refused' 'Permission denied' \
		"${UNPRIV[@]}" sh -c 'echo 4096 > /sys/kernel/mrc/min_mtu'
	ok_eq 'min_mtu unchanged' 1024 "$(cat /sys/kernel/mrc/min_mtu)"
	ok 'modprobe -r mrc' modprobe -r mrc
}

mrc_test_main "$@"
