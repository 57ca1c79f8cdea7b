# SPDX-License-Identifier: GPL-2.0
#
# echo_lib.sh - shared by the message tests that drive the example consumer
# module mrc_echo (transfer.sh, failover.sh, unreachable.sh).  Source it
# after lib.sh.  On the host it builds the module against the same kernel
# as mrc.ko; in the guests it gives helpers that read debugfs counters.

ECHO_KO=$MRC_LIB_DIR/modules/mrc_echo/mrc_echo.ko

if [ -z "${MRC_IN_VM:-}" ]; then
	if ! make -s -C "$MRC_LIB_DIR/modules" > /dev/null 2>&1; then
		echo "not ok 1 build selftests/mrc/modules (mrc_echo.ko)"
		exit 1
	fi
fi

D=/sys/kernel/debug

stat_of() {	# stat_of FILE KEY: the value of KEY in a "key value" file
	local k v
	while read -r k v; do
		[ "$k" = "$2" ] && { echo "$v"; return 0; }
	done < "$1"
	echo 0
}

echo_stat() { stat_of $D/mrc_echo/stats "$1"; }
msg_stat() { stat_of $D/mrc/msg "$1"; }
rx_buffers_free() { [ "$(msg_stat rx_buffer_bytes)" = 0 ]; }

# credit_stat PEER KEY: a per-peer counter of debugfs mrc/credit.
# pacer_stat KEY: a "KEY value" line of debugfs mrc/credit (0 if none).
pacer_stat() {
	local k v
	while read -r k v; do
		[ "$k" = "$1" ] && { echo "$v"; return; }
	done < $D/mrc/credit
	echo 0
}

credit_stat() {
	local -a f
	local i
	while read -r -a f; do
		[ "${f[0]}" = peer ] && [ "${f[1]}" = "$1" ] || continue
		for ((i = 2; i + 1 < ${#f[@]}; i += 2)); do
			[ "${f[i]}" = "$2" ] && { echo "${f[i + 1]}"; return; }
		done
	done < $D/mrc/credit
	echo 0
}

meminfo_kb() {	# meminfo_kb FIELD
	local k v
	while read -r k v _; do
		[ "$k" = "$1:" ] && { echo "$v"; return 0; }
	done < /proc/meminfo
	echo 0
}
