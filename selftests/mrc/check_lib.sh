#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check_lib.sh - the TAP helper of the host-side scripts that run no
# guest (lib_test.sh, fabric_stall.sh); sourced.
#	check DESC CMD...	run CMD: "ok N - DESC" or "not ok N - DESC"
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
