#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every knob does something, through each of its three faces: module
# parameter (command line and /etc/modprobe.d), sysfs and netlink (mrcctl).
#   min_mtu:   rails whose active MTU is below it are mtu-low, not active
#   max_rails: ports beyond it are not taken as rails and are counted
#   entropy:   UD QPs per rail (rails created afterwards)
# Written as titled cases (lib.sh's case_title and chk_* helpers).
source "$(dirname "$0")/lib.sh"
NODES=1
TIMEOUT=600

run_guest() {
	local out

	case_title 'min_mtu from the command line'
	ok 'modprobe mrc min_mtu=2048' modprobe mrc min_mtu=2048
	chk_knob min_mtu 2048
	chk_rail rxe1:1 state active

	case_title 'min_mtu against a rail whose MTU drops'
	ip link set eth1 mtu 1500	# rxe's active_mtu becomes 1024
	chk_rail_soon rxe1:1 state mtu-low
	chk_rail rxe1:1 mtu 1024
	chk_rail rxe0:1 state active
	ok 'mrcctl config set min_mtu 1024' mrcctl config set min_mtu 1024
	chk_rail_soon rxe1:1 state active
	echo 4096 > /sys/kernel/mrc/min_mtu
	chk_rail_soon rxe1:1 state mtu-low
	ip link set eth1 mtu 9000
	chk_rail_soon rxe1:1 state active

	case_title 'min_mtu refusals leave the value alone and say why'
	out=$(mrcctl config set min_mtu 3000 2>&1)
	ok_eq 'mrcctl config set min_mtu 3000 exits 1' 1 $?
	ok 'and says why' grep -q 'power of two' <<< "$out"
	diag "mrcctl said: $out"
	chk_refused 'sysfs write 8192' '' sh -c 'echo 8192 > /sys/kernel/mrc/min_mtu'
	chk_refused 'sysfs write junk' '' sh -c 'echo 12abc > /sys/kernel/mrc/min_mtu'
	chk_knob min_mtu 4096
	ok 'modprobe -r mrc' modprobe -r mrc
	chk_refused 'modprobe mrc min_mtu=3000' '' modprobe mrc min_mtu=3000
	ok 'dmesg tells the operator why' \
		sh -c 'dmesg | grep -q "min_mtu=3000: value must be a power of two"'
	ok 'module not loaded after refused parameter' test ! -e /sys/module/mrc

	case_title 'max_rails from /etc/modprobe.d'
	mkdir -p /etc/modprobe.d
	echo 'options mrc max_rails=2' > /etc/modprobe.d/mrc-test.conf
	ok 'modprobe mrc' modprobe mrc
	rm -f /etc/modprobe.d/mrc-test.conf
	chk_knob max_rails 2
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

	case_title 'entropy: QPs per rail, for rails created afterwards'
	ok 'modprobe mrc entropy=3' modprobe mrc entropy=3
	chk_rail rxe0:1 qps 3
	ok_eq '3 QP numbers listed' 3 \
		"$(wc -w < /sys/kernel/mrc/rails/rxe0:1/qpns)"
	ok_eq 'rdma res: 3 + 1 QPs on rxe0' 4 \
		"$(rdma res show qp link rxe0/1 2>/dev/null | grep -c 'lqpn')"
	ok 'mrcctl config set entropy 5' mrcctl config set entropy 5
	chk_rail rxe0:1 qps 3
	rdma link delete rxe1
	rdma link add rxe1 type rxe netdev eth1
	chk_rail_soon rxe1:1 qps 5
	ok 'modprobe -r mrc' modprobe -r mrc
}

mrc_test_main "$@"
