#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The spec and the family agree, as seen by a client nobody here wrote:
# the kernel's own YNL cli (tools/net/ynl/cli.py of Debian's
# linux-source-6.12, put under build/ynl/ by ynl/get-ynl on the host),
# driven only by Documentation/netlink/specs/mrc.yaml, against the loaded
# module.  cli.py decodes every reply strictly by the spec (an attribute
# the spec does not know is an error), so each check below also checks
# that the kernel sends nothing the spec does not describe.
#
# Node 1 runs the checks; node 2 is the peer (it adds node 1 with mrcctl,
# so that node 1's peer has real, active paths to decode).
#   - the spec validates against the genetlink-legacy schema
#   - rail-get dump: the rails mrcctl shows; every drop reason sysfs has
#   - config-get: every knob, equal to sysfs, the same knobs mrcctl has
#   - config-set: a knob changes (sysfs, mrcctl) and is set back; an
#     out-of-range value is refused, the extack names the attribute
#   - rail-set (weight), class-get (dump, do), class-set (rails, all)
#   - peer-add / peer-set / peer-get (do and dump) / peer-del, checked
#     with mrcctl
#   - events: --subscribe events --sleep while mrcctl changes a knob,
#     adds and removes a peer and a plane goes down and up; the events'
#     contents
source "$(dirname "$0")/lib.sh"
NODES=2
TIMEOUT=900

SPEC=Documentation/netlink/specs/mrc.yaml

# ---- host side: the ynl tools must be there before the guests boot ----
if [ "${MRC_IN_VM:-}" != 1 ]; then
	_ynl_err=$("$MRC_LIB_DIR/ynl/get-ynl" 2>&1 >/dev/null) ||
		{ echo "TAP version 13"; echo "1..0 # SKIP ynl: ${_ynl_err//$'\n'/ }"; exit "$KSFT_SKIP"; }
	python3 -c 'import yaml, jsonschema' 2>/dev/null ||
		{ echo "TAP version 13"; echo "1..0 # SKIP ynl needs python3-yaml and python3-jsonschema (scripts/install-deps)"; exit "$KSFT_SKIP"; }
fi

YNL_TOP=${MRC_REPO:-}/build/ynl
CLI=$YNL_TOP/tools/net/ynl/cli.py
SCHEMA=$YNL_TOP/Documentation/netlink/genetlink-legacy.yaml

# ynl ARGS...: the kernel's cli.py on mrc's spec, JSON output.
ynl() {
	python3 "$CLI" --spec "$SPEC" --schema "$SCHEMA" --output-json "$@"
}

# hexaddr A.B.C.D: the address as cli.py writes a binary attribute.
hexaddr() {
	local IFS=.
	# shellcheck disable=SC2086
	printf '%02x%02x%02x%02x' $1
}

# subscribed PID: PID holds a generic netlink socket (protocol 16) that
# joined a multicast group (/proc/net/netlink's Groups: the first 32
# group ids; mrc's "events" is one of them on these guests).
subscribed() {
	local f l ino eth groups rest
	local -A mine=()
	for f in /proc/"$1"/fd/*; do
		l=$(readlink "$f" 2>/dev/null) || continue
		[[ $l == socket:\[*\] ]] || continue
		ino=${l#socket:[}
		mine[${ino%]}]=1
	done
	snap /proc/net/netlink	# one read: lib.sh's snap says why
	for l in "${SNAP[@]}"; do
		read -r _ eth _ groups rest <<<"$l"
		ino=${rest##* }
		[ "$eth" = 16 ] && [ "$groups" != 00000000 ] &&
			[ -n "${mine[$ino]:-}" ] && return 0
	done
	echo "pid $1: no generic netlink socket in a multicast group"
	cat /proc/net/netlink
	return 1
}

# jq_ok DESC FILTER FILE: jq -e FILTER on FILE is true (shows FILE if not).
jq_ok() {
	local desc=$1 filter=$2 file=$3
	if jq -e "$filter" "$file" >/dev/null 2>&1; then
		_result ok "$desc"
		return 0
	fi
	_result "not ok" "$desc"
	diag "jq -e '$filter' is not true on:"
	head -c 4000 "$file" | _diag_stream
	return 1
}

guest_node2() {
	ok 'modprobe mrc' modprobe mrc
	ok 'mrcctl config set node_id 2' mrcctl config set node_id 2
	ok 'mrcctl peer add 1' mrcctl peer add 1 \
		addr "$(node_ip 1 0),$(node_ip 1 1)"
	barrier ynl-done 600
	ok 'mrcctl peer del 1' mrcctl peer del 1
	ok 'modprobe -r mrc' modprobe -r mrc
}

guest_node1() {
	local t=/tmp/ynl out k v n orig pid rc sleep_s t0
	local ntf=$t/ntf.json
	local a0 a1
	a0=$(hexaddr "$(node_ip 2 0)")
	a1=$(hexaddr "$(node_ip 2 1)")
	mkdir -p "$t"
	ok 'modprobe mrc' modprobe mrc
	ok 'mrcctl config set node_id 1' mrcctl config set node_id 1

	# ---- the spec, as ynl reads it ----
	ok 'ynl: the spec validates against genetlink-legacy.yaml (--list-ops)' \
		sh -c 'python3 "$1" --spec "$2" --schema "$3" --list-ops > "$4"' \
		_ "$CLI" "$SPEC" "$SCHEMA" "$t/ops"
	ok 'ynl: the family has rail-get [do, dump] and peer-add [do]' \
		sh -c 'grep -Eq "^rail-get  \[ (do, dump|dump, do) \]" "$1" &&
			grep -q "^peer-add  \[ do \]" "$1" || { cat "$1"; exit 1; }' _ "$t/ops"

	# ---- rails ----
	ok 'ynl --dump rail-get' sh -c 'python3 "$1" --spec "$2" --schema "$3" \
		--output-json --dump rail-get > "$4"' _ "$CLI" "$SPEC" "$SCHEMA" "$t/rails.json"
	ok_eq 'ynl rail dump: the rails mrcctl shows (id, name, ibdev, port, netdev, mtu, state, gid-index, qps, weight)' \
		"$(mrcctl -j rail show | jq -c '[.[] | {id, name, ibdev, port,
			netdev, mtu, state, gid_index, qps, weight}] | sort_by(.id)')" \
		"$(jq -c '[.[].rail | {id, name, ibdev, port, netdev, mtu, state,
			gid_index: .["gid-index"], qps, weight}] | sort_by(.id)' "$t/rails.json" 2>&1)"
	jq_ok 'ynl rail dump: 2 rails, both active, RoCE, with an IPv4-mapped GID (display-hint ipv6)' \
		'length == 2 and all(.[].rail; .state == "active" and
		 .["link-layer"] == "ethernet" and (.gid | startswith("::ffff:")))' \
		"$t/rails.json"
	ok_eq 'ynl rail dump: rxe0:1 drop reasons are the sysfs ones' \
		"$(ls /sys/kernel/mrc/rails/rxe0:1/drops | sort | tr '\n' ' ')" \
		"$(jq -r '.[].rail | select(.name == "rxe0:1") | .drops | keys[] |
			gsub("-"; "_")' "$t/rails.json" 2>&1 | sort | tr '\n' ' ')"
	jq_ok 'ynl rail dump: stats nest decoded (rx-packets, qp-errors, down-notices-rx)' \
		'all(.[].rail.stats; has("rx-packets") and has("qp-errors") and has("down-notices-rx"))' \
		"$t/rails.json"
	out=$(ynl --do rail-get --json '{"rail": {"name": "rxe1:1"}}' 2>&1)
	ok_eq 'ynl --do rail-get {"name": "rxe1:1"}: that rail' 'rxe1:1 eth1' \
		"$(jq -r '.rail | "\(.name) \(.netdev)"' <<<"$out" 2>&1 || echo "$out")"
	ok 'ynl --do rail-get of a rail that does not exist: ENODEV' \
		fails_with 'No such device' ynl --do rail-get --json '{"rail": {"name": "rxe9:1"}}'
	# The spec lets only id and name (and weight, rail-set) into requests:
	# a reply attribute is refused by the policy, and the extack offset
	# ynl maps back through the spec lands on it.
	ok 'ynl --do rail-get with mtu in the request: refused (EINVAL), the extack points at .rail.mtu' \
		sh -c 'out=$("$@" 2>&1) && { echo "succeeded: $out"; exit 1; }
		       echo "$out" | grep -q "Invalid argument" &&
		       echo "$out" | grep -q "bad-attr.: .\.rail\.mtu" || { echo "$out"; exit 1; }' \
		_ python3 "$CLI" --spec "$SPEC" --schema "$SCHEMA" --do rail-get \
		--json '{"rail": {"name": "rxe0:1", "mtu": 1024}}'

	# ---- config ----
	ok 'ynl --do config-get' sh -c 'python3 "$1" --spec "$2" --schema "$3" \
		--output-json --do config-get > "$4"' _ "$CLI" "$SPEC" "$SCHEMA" "$t/config.json"
	ok_eq 'ynl config-get: the knobs mrcctl config show has' \
		"$(mrcctl -j config show | jq -r '.[].name' | sort | tr '\n' ' ')" \
		"$(jq -r '.config | keys[] | gsub("-"; "_")' "$t/config.json" 2>&1 | sort | tr '\n' ' ')"
	# (a here-string: the guests have no /dev/fd for <(...))
	out='' n=0
	while read -r k v; do
		[ -n "$k" ] || continue
		n=$((n + 1))
		[ "$(cat "/sys/kernel/mrc/$k" 2>&1)" = "$v" ] ||
			out+=" $k=$v(sysfs $(cat "/sys/kernel/mrc/$k" 2>&1))"
	done <<<"$(jq -r '.config | to_entries[] | "\(.key | gsub("-"; "_")) \(.value)"' "$t/config.json")"
	ok_eq "ynl config-get: every value ($n knobs) equals /sys/kernel/mrc/<knob>" \
		"$(mrcctl -j config show | jq length)" "$n$out"

	orig=$(jq -r '.config["probe-ms"]' "$t/config.json")
	ok 'ynl --do config-set {"probe-ms": 500}' \
		ynl --do config-set --json '{"config": {"probe-ms": 500}}'
	ok_eq 'sysfs probe_ms is 500' 500 "$(cat /sys/kernel/mrc/probe_ms)"
	ok_eq 'mrcctl shows probe_ms 500' 500 \
		"$(mrcctl -j config show | jq '.[] | select(.name == "probe_ms") | .value')"
	ok 'ynl --do config-set {"probe-ms": 5} refused (ERANGE), the extack points at .config.probe-ms' \
		sh -c 'out=$("$@" 2>&1) && { echo "succeeded: $out"; exit 1; }
		       echo "$out" | grep -q "Numerical result out of range" &&
		       echo "$out" | grep -q "bad-attr.: .\.config\.probe-ms" || { echo "$out"; exit 1; }' \
		_ python3 "$CLI" --spec "$SPEC" --schema "$SCHEMA" --do config-set \
		--json '{"config": {"probe-ms": 5}}'
	ok_eq 'probe_ms still 500 after the refusal' 500 "$(cat /sys/kernel/mrc/probe_ms)"
	ok "ynl --do config-set {\"probe-ms\": $orig} (back)" \
		ynl --do config-set --json "{\"config\": {\"probe-ms\": $orig}}"
	ok_eq "sysfs probe_ms back at $orig" "$orig" "$(cat /sys/kernel/mrc/probe_ms)"

	# ---- scheduling: rail weights, traffic classes ----
	ok 'ynl --do rail-set {"name": "rxe1:1", "weight": 50}' \
		ynl --do rail-set --json '{"rail": {"name": "rxe1:1", "weight": 50}}'
	ok_eq 'sysfs rails/rxe1:1/weight is 50' 50 "$(cat /sys/kernel/mrc/rails/rxe1:1/weight)"
	ok 'ynl --do rail-set weight 101 refused (ERANGE)' \
		fails_with 'Numerical result out of range' \
		ynl --do rail-set --json '{"rail": {"name": "rxe1:1", "weight": 101}}'
	ok 'ynl --do rail-set weight 100 (back)' \
		ynl --do rail-set --json '{"rail": {"name": "rxe1:1", "weight": 100}}'
	ok_eq 'sysfs rails/rxe1:1/weight back at 100' 100 "$(cat /sys/kernel/mrc/rails/rxe1:1/weight)"
	out=$(ynl --dump class-get 2>&1)
	ok_eq 'ynl --dump class-get: the four classes (id decoded by enum class = name), all on every rail' \
		'default/default/all latency/latency/all bulk/bulk/all background/background/all' \
		"$(jq -r '[.[].class | "\(.id)/\(.name)/\(if has("rails") then .rails else "all" end)"] |
			join(" ")' <<<"$out" 2>&1 || echo "$out")"
	ok 'ynl --do class-get of class 7 (not in enum class): EINVAL' \
		fails_with 'Invalid argument' ynl --do class-get --json '{"class": {"id": 7}}'
	ok 'ynl --do class-set bulk, rails {rail: [rxe1:1]}' \
		ynl --do class-set --json '{"class": {"id": "bulk", "rails": {"rail": ["rxe1:1"]}}}'
	ok_eq 'mrcctl class show: bulk on rxe1:1' rxe1:1 \
		"$(mrcctl -j class show | jq -r '.[] | select(.class == "bulk") | .rails')"
	out=$(ynl --do class-get --json '{"class": {"id": "bulk"}}' 2>&1)
	ok_eq 'ynl --do class-get bulk: rails {rail: [rxe1:1]}' '["rxe1:1"]' \
		"$(jq -c '.class.rails.rail' <<<"$out" 2>&1 || echo "$out")"
	ok 'ynl --do class-set bulk, all' \
		ynl --do class-set --json '{"class": {"id": "bulk", "all": true}}'
	ok_eq 'mrcctl class show: bulk on all rails again' all \
		"$(mrcctl -j class show | jq -r '.[] | select(.class == "bulk") | .rails')"

	# ---- peers ----
	ok 'ynl --do peer-add node 2, two addresses' \
		ynl --do peer-add --json "{\"peer\": {\"node\": 2, \"addrs\": {\"addr\": [\"$a0\", \"$a1\"]}}}"
	ok 'mrcctl peer show 2: the peer with both addresses' \
		sh -c 'out=$(mrcctl -j peer show 2) &&
			echo "$out" | jq -e ".[0].node == 2 and (.[0].addrs | tostring | test(\"10.200.0.2\") and test(\"10.200.1.2\"))" >/dev/null ||
			{ echo "$out"; exit 1; }'
	ok 'ynl --do peer-add of the same peer again: EEXIST' \
		fails_with 'File exists' ynl --do peer-add \
		--json "{\"peer\": {\"node\": 2, \"addrs\": {\"addr\": [\"$a0\"]}}}"
	wait_for 'all 16 paths to node 2 active' 60 \
		sh -c '[ "$(mrcctl -j peer show 2 | jq ".[0].paths_active")" = 16 ]'
	ok 'ynl --do peer-set node 2, policy 0 (round-robin)' \
		ynl --do peer-set --json '{"peer": {"node": 2, "policy": 0}}'
	ok_eq 'mrcctl peer show 2: policy round-robin, the peer'"'"'s own' 'round-robin peer' \
		"$(mrcctl -j peer show 2 | jq -r '.[0] | "\(.policy) \(.policy_from)"')"
	out=$(ynl --do peer-get --json '{"peer": {"node": 2}}' 2>&1)
	echo "$out" >"$t/peer.json"
	jq_ok 'ynl --do peer-get node 2: policy, 16 active paths, each with rail, QPNs, srtt, counters' \
		'.peer.node == 2 and .peer["paths-active"] == 16 and
		 .peer.policy == 0 and .peer["policy-now"] == "round-robin" and
		 (.peer.path | length) == 16 and
		 all(.peer.path[]; .state == "active" and (.rail | test("^rxe[01]:1$")) and
		     has("local-qpn") and has("remote-qpn") and has("srtt-us") and
		     has("tx-pkts") and has("tx-bytes") and has("weight")) and
		 .peer.addrs.addr == ["'"$a0"'", "'"$a1"'"] and
		 (.peer.credit | has("grants-rx") and has("requests-stale"))' \
		"$t/peer.json"
	ok_eq 'ynl peer-get: the paths mrcctl shows (plane, entropy, rail, local and remote QPN)' \
		"$(mrcctl -j peer show 2 | jq -c '[.[0].paths[] | [.plane, .entropy, .rail, .local_qpn, .remote_qpn]] | sort')" \
		"$(jq -c '[.peer.path[] | [.plane, .entropy, .rail, .["local-qpn"], .["remote-qpn"]]] | sort' "$t/peer.json" 2>&1)"
	out=$(ynl --dump peer-get 2>&1)
	ok_eq 'ynl --dump peer-get: one peer, node 2' 2 \
		"$(jq -c '[.[].peer.node] | .[]' <<<"$out" 2>&1 || echo "$out")"
	ok 'ynl --do peer-del node 2' ynl --do peer-del --json '{"peer": {"node": 2}}'
	ok 'mrcctl peer show 2: no such peer' fails_with 'no such peer' mrcctl peer show 2
	ok_eq 'mrcctl peer show: no peer left' 0 "$(mrcctl -j peer show | jq length)"
	ok 'ynl --do peer-del node 2 again: ENOENT' \
		fails_with 'No such file or directory' ynl --do peer-del --json '{"peer": {"node": 2}}'

	# ---- events ----
	# cli.py subscribes, sleeps, then prints what arrived meanwhile.  The
	# triggers start once its socket is in the group (not on a guess).
	sleep_s=$((40 * _MRC_TSCALE))
	python3 "$CLI" --spec "$SPEC" --schema "$SCHEMA" --output-json \
		--subscribe events --sleep "$sleep_s" >"$ntf" 2>&1 &
	pid=$!
	if wait_for 'ynl --subscribe events: its socket joined the group' 60 subscribed "$pid"; then
		t0=$SECONDS
		ok 'mrcctl config set probe_ms 400 (while ynl listens)' mrcctl config set probe_ms 400
		ok 'mrcctl peer add 2 (while ynl listens)' \
			mrcctl peer add 2 addr "$(node_ip 2 0),$(node_ip 2 1)"
		ok 'mrcctl peer del 2 (while ynl listens)' mrcctl peer del 2
		ip link set eth1 down
		wait_for 'rxe1:1 down after ip link set eth1 down (while ynl listens)' 10 \
			sh -c '[ "$(cat /sys/kernel/mrc/rails/rxe1:1/state)" = down ]'
		ip link set eth1 up
		wait_for 'rxe1:1 active again after ip link set eth1 up (while ynl listens)' 10 \
			sh -c '[ "$(cat /sys/kernel/mrc/rails/rxe1:1/state)" = active ]'
		# Otherwise the events below were sent after ynl stopped listening.
		diag "the triggers took $((SECONDS - t0)) s"
		ok "the triggers finished within ynl's listening window (${sleep_s} s)" \
			test $((SECONDS - t0)) -lt "$sleep_s"
	fi
	wait "$pid"
	rc=$?
	ok_eq "ynl --subscribe events --sleep $sleep_s exits 0" 0 "$rc"
	[ "${V:-0}" = 1 ] && head -c 4000 "$ntf" | _diag_stream
	jq_ok 'event config-changed carries only the changed knob: {"probe-ms": 400}' \
		'[.[] | select(.name == "config-changed") | .msg] == [{"config": {"probe-ms": 400}}]' "$ntf"
	jq_ok 'event peer-added: node 2, both addresses, its paths' \
		'[.[] | select(.name == "peer-added") | .msg.peer] as $p | ($p | length) == 1 and
		 $p[0].node == 2 and $p[0].addrs.addr == ["'"$a0"'", "'"$a1"'"] and
		 ($p[0].path | length) >= 1' "$ntf"
	jq_ok 'event peer-removed: node 2, after peer-added' \
		'([.[].name] | index("peer-added")) as $a | ([.[].name] | index("peer-removed")) as $r |
		 $a != null and $r != null and $r > $a and
		 ([.[] | select(.name == "peer-removed") | .msg.peer.node] == [2])' "$ntf"
	jq_ok 'events rail-state of rxe1:1: active to down first, back to active last, no stats' \
		'[.[] | select(.name == "rail-state") | .msg.rail | select(.name == "rxe1:1")] as $r |
		 ($r | length) >= 2 and [$r[0]["prev-state"], $r[0].state] == ["active", "down"] and
		 $r[-1].state == "active" and all($r[]; has("stats") | not) and
		 all($r[]; .netdev == "eth1")' "$ntf"
	jq_ok 'events: nothing but config-changed, peer-added, peer-removed, path-state, rail-state' \
		'all(.[].name; IN("config-changed", "peer-added", "peer-removed", "path-state", "rail-state"))' "$ntf"
	mrcctl config set probe_ms "$orig"
	ok_eq "probe_ms back at $orig" "$orig" "$(cat /sys/kernel/mrc/probe_ms)"

	barrier ynl-done 600
	ok 'modprobe -r mrc' modprobe -r mrc
}

run_guest() {
	if [ ! -f "$CLI" ] || [ ! -f "$SCHEMA" ]; then
		skip_all "no $CLI (selftests/mrc/ynl/get-ynl on the host)"
	fi
	require_mrc
	if is_node 1; then guest_node1; else guest_node2; fi
}

mrc_test_main "$@"
