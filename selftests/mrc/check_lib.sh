#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check_lib.sh - the TAP helpers of the host-side scripts that run no
# test inside a guest (lib_test.sh, fabric_stall.sh, fabric_timeout.sh);
# sourced.
#	check DESC CMD...	run CMD: "ok N - DESC" or "not ok N - DESC"
#	fabric_begin NAME N	TAP plan of N for a script that boots its
#				own fabric: skips unless root, makes $out
#	fabric_end		removes $out if all passed (unless
#				MRC_KEEP=1), summary; its status is the result
# $n counts the results, $failed the failures.
n=0 failed=0

check() {
	local desc=$1

	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n - $desc"
	else
		echo "not ok $n - $desc"
		failed=$((failed + 1))
	fi
}

fabric_begin() {
	echo "TAP version 13"
	if [ "$(id -u)" -ne 0 ]; then
		echo "1..0 # SKIP must be run as root (VM fabric)"
		exit 4
	fi
	out=$(mktemp -d "${MRC_TMPDIR:-${TMPDIR:-/tmp}}/mrc-test.$1.XXXXXX") ||
		exit 1
	echo "1..$2"
}

fabric_end() {
	if [ $failed = 0 ] && [ "${MRC_KEEP:-0}" != 1 ]; then
		rm -rf "$out"
	else
		echo "# outputs kept in $out"
	fi
	echo "# $((n - failed)) ok, $failed not ok"
	[ $failed = 0 ]
}
