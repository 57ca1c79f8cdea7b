# SPDX-License-Identifier: GPL-2.0
#
# echo_lib.sh - shared by the message tests that drive the example consumer
# module mrc_echo (transfer.sh, failover.sh, unreachable.sh, ...).  Source
# it after lib.sh (whose stat_of, msg_stat, ... it builds on).  On the host
# it builds the module against the same kernel as mrc.ko; in the guests it
# gives helpers that read mrc_echo's debugfs counters.

ECHO_KO=$MRC_LIB_DIR/modules/mrc_echo/mrc_echo.ko

if [ -z "${MRC_IN_VM:-}" ]; then
	if ! make -s -C "$MRC_LIB_DIR/modules" > /dev/null 2>&1; then
		echo "not ok 1 build selftests/mrc/modules (mrc_echo.ko)"
		exit 1
	fi
fi

D=/sys/kernel/debug

# echo_stat KEY: a counter of debugfs mrc_echo/stats (0 if none)
echo_stat() { stat_of $D/mrc_echo/stats "$1"; }

# sent_at_least N: at least N sends acked (done_ok)
sent_at_least() { [ "$(echo_stat done_ok)" -ge "$1" ]; }

# completed_at_least N: at least N sends completed, ok or failed
completed_at_least() {
	[ $(($(echo_stat done_ok) + $(echo_stat done_err))) -ge "$1" ]
}

# sends_done N: mrc_echo idle (nothing queued) and N sends completed
sends_done() { [ "$(echo_stat busy)" = 0 ] && completed_at_least "$1"; }

# received_at_least N: at least N messages received (rx)
received_at_least() { [ "$(echo_stat rx)" -ge "$1" ]; }

# Stress jobs and check transfers (teardown.sh, churn.sh).  The callers may
# set these before sourcing this file.
: "${MAXLEN:=65536}"		# stress traffic: many small messages
: "${STREAM:=1000000}"		# messages queued by a stress job (stopped, never all sent)
: "${CHECK_COUNT:=30}"		# messages each way in a check transfer
: "${CHECK_MAXLEN:=262144}"

# echo_idle: mrc_echo's send job has ended
echo_idle() { [ "$(echo_stat busy)" = 0 ]; }
# every accepted send of mrc_echo completed (ok or failed)
all_completed() {
	[ "$(echo_stat sent)" = $(($(echo_stat done_ok) + $(echo_stat done_err))) ]
}

# A stress job: STREAM messages of 1..MAXLEN B to node $1, port 7.
stress_start() {
	echo reset > $D/mrc_echo/ctl
	echo "send $1 7 $STREAM $MAXLEN $((MRC_NODE * 131 + $2))" > $D/mrc_echo/ctl
}

# Ends the stress job; every accepted send completes (ok or failed).
stress_stop() {
	echo stop > $D/mrc_echo/ctl
	wait_for 'stress job stopped' 60 echo_idle
	wait_for 'every accepted send completed' 120 all_completed
}

# check_done N: mrc_echo idle, N sends acknowledged, N messages received.
check_done() {
	[ "$(echo_stat busy)" = 0 ] && [ "$(echo_stat done_ok)" -ge "$1" ] &&
		[ "$(echo_stat rx)" -ge "$1" ]
}

# A check transfer: CHECK_COUNT messages each way, all whole.
check_transfer() {
	local o=$1 tag=$2
	mrc_sleep 1	# deliveries of earlier, acknowledged messages end
	echo reset > $D/mrc_echo/ctl
	barrier "check-$tag"
	ok "send $CHECK_COUNT messages of 1..$CHECK_MAXLEN B to node$o" \
		sh -c "echo send $o 7 $CHECK_COUNT $CHECK_MAXLEN $((MRC_NODE * 7 + ${#tag})) > $D/mrc_echo/ctl"
	if ! wait_for "$CHECK_COUNT sent and $CHECK_COUNT received" 120 \
		check_done "$CHECK_COUNT"; then
		diag "mrc_echo: $(tr '\n' ' ' < $D/mrc_echo/stats)"
		diag "mrc/msg: $(tr '\n' ' ' < $D/mrc/msg)"
		mrcctl -s peer show "$o" 2>&1 | _diag_stream
	fi
	chk_echo_stat 'every send completed with status 0' done_ok = "$CHECK_COUNT"
	chk_echo_stat 'no send failed' done_err = 0
	chk_echo_stat "$CHECK_COUNT messages received" rx = "$CHECK_COUNT"
	chk_echo_stat 'every message intact' rx_bad = 0
	chk_echo_stat 'in order' rx_order = 0
	barrier "check-$tag-done"
}
