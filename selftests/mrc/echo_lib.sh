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
