#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every knob does something, through each of its three faces: module
# parameter (command line and /etc/modprobe.d), sysfs and netlink (mrcctl).
#   min_mtu:   rails whose active MTU is below it are mtu-low, not active
#   max_rails: ports beyond it are not taken as rails and are counted
#   entropy:   UD QPs per rail (rails created afterwards)
source "$(dirname "$0")/lib.sh"
NODES=1
TIMEOUT=600

state() { cat "/sys/kernel/mrc/rails/$1/state"; }

run_guest() {
	local out

	# ---- min_mtu ----
	ok 'modprobe mrc min_mtu=2048 (module parameter)' modprobe mrc min_mtu=2048
	ok_eq 'sysfs shows the parameter' 2048 "$(cat /sys/kernel/mrc/min_mtu)"
	ok_eq 'mrcctl shows the parameter' 2048 \
		"$(mrcctl -j config show | jq '.[] | select(.name == "min_mtu") | .value')"
	ok_eq 'rxe1:1 active at mtu 4096' active "$(state rxe1:1)"

	ip link set eth1 mtu 1500	# rxe's active_mtu becomes 1024
	wait_for 'rxe1:1 mtu-low after netdev mtu 1500' 10 \
		sh -c '[ "$(cat /sys/kernel/mrc/rails/rxe1:1/state)" = mtu-low ]'
	ok_eq 'rxe1:1 reports mtu 1024' 1024 \
		"$(cat /sys/kernel/mrc/rails/rxe1:1/mtu)"
	ok_eq 'rxe0:1 still active' active "$(state rxe0:1)"
	ok 'mrcctl config set min_mtu 1024' mrcctl config set min_mtu 1024
	wait_for 'rxe1:1 active once min_mtu is 1024' 10 \
		sh -c '[ "$(cat /sys/kernel/mrc/rails/rxe1:1/state)" = active ]'
	echo 4096 > /sys/kernel/mrc/min_mtu
	wait_for 'rxe1:1 mtu-low again after sysfs min_mtu 4096' 10 \
		sh -c '[ "$(cat /sys/kernel/mrc/rails/rxe1:1/state)" = mtu-low ]'
	ip link set eth1 mtu 9000
	wait_for 'rxe1:1 active again at netdev mtu 9000' 10 \
		sh -c '[ "$(cat /sys/kernel/mrc/rails/rxe1:1/state)" = active ]'

	# Refusals leave the value alone and say why.
	out=$(mrcctl config set min_mtu 3000 2>&1)
	ok_eq 'mrcctl config set min_mtu 3000 fails' 1 $?
	ok 'the error says why' grep -q 'power of two' <<< "$out"
	diag "mrcctl said: $out"
	ok 'sysfs write 8192 refused' sh -c '! echo 8192 > /sys/kernel/mrc/min_mtu'
	ok 'sysfs write junk refused' sh -c '! echo 12abc > /sys/kernel/mrc/min_mtu'
	ok_eq 'min_mtu unchanged by refusals' 4096 "$(cat /sys/kernel/mrc/min_mtu)"
	ok 'modprobe -r mrc' modprobe -r mrc

	ok 'bad module parameter refused' sh -c '! modprobe mrc min_mtu=3000'
	ok 'dmesg tells the operator why' \
		sh -c 'dmesg | grep -q "min_mtu=3000: value must be a power of two"'
	ok 'module not loaded after refused parameter' test ! -e /sys/module/mrc

	# ---- max_rails, set from /etc/modprobe.d ----
	mkdir -p /etc/modprobe.d
	echo 'options mrc max_rails=2' > /etc/modprobe.d/mrc-test.conf
	ok 'modprobe mrc (options from /etc/modprobe.d)' modprobe mrc
	rm -f /etc/modprobe.d/mrc-test.conf
	ok_eq 'max_rails 2 from modprobe.d' 2 "$(cat /sys/kernel/mrc/max_rails)"
	ok_eq 'rails_refused starts at 0' 0 \
		"$(cat /sys/kernel/mrc/stats/rails_refused)"
	ip link add vethA type veth peer name vethB
	ip link set vethA up; ip link set vethB up
	ok 'rdma link add rxe9 beyond max_rails' \
		rdma link add rxe9 type rxe netdev vethA
	ok 'rxe9:1 not taken as a rail' test ! -e /sys/kernel/mrc/rails/rxe9:1
	ok_eq 'rails_refused counted' 1 \
		"$(cat /sys/kernel/mrc/stats/rails_refused)"
	ok_eq 'still 2 rails' 2 "$(mrcctl -j rail show | jq length)"
	rdma link delete rxe9
	ok 'mrcctl config set max_rails 3' mrcctl config set max_rails 3
	ok 'rdma link add rxe9 within max_rails' \
		rdma link add rxe9 type rxe netdev vethA
	wait_for 'rxe9:1 is a rail now' 10 test -e /sys/kernel/mrc/rails/rxe9:1
	rdma link delete rxe9
	ip link del vethA
	ok 'modprobe -r mrc' modprobe -r mrc

	# ---- entropy ----
	ok 'modprobe mrc entropy=3' modprobe mrc entropy=3
	ok_eq 'rxe0:1 has 3 QPs' 3 "$(cat /sys/kernel/mrc/rails/rxe0:1/qps)"
	ok_eq '3 QP numbers listed' 3 \
		"$(wc -w < /sys/kernel/mrc/rails/rxe0:1/qpns)"
	ok_eq 'rdma res: 3 + 1 QPs on rxe0' 4 \
		"$(rdma res show qp link rxe0/1 2>/dev/null | grep -c 'lqpn')"
	ok 'mrcctl config set entropy 5' mrcctl config set entropy 5
	ok_eq 'existing rails keep 3 QPs' 3 \
		"$(cat /sys/kernel/mrc/rails/rxe0:1/qps)"
	rdma link delete rxe1
	rdma link add rxe1 type rxe netdev eth1
	wait_for 'a rail created afterwards has 5 QPs' 10 \
		sh -c '[ "$(cat /sys/kernel/mrc/rails/rxe1:1/qps 2>/dev/null)" = 5 ]'
	ok 'modprobe -r mrc' modprobe -r mrc
}

mrc_test_main "$@"
