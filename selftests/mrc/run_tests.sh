#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run_tests.sh - the whole mrc test suite, as one TAP stream.
#
#   selftests/mrc/run_tests.sh            fast tier + VM tier
#   selftests/mrc/run_tests.sh --fast     fast tier only (build, style,
#                                         user-space unit tests: seconds)
#   selftests/mrc/run_tests.sh rails.sh   fast tier + the named VM tests
#   selftests/mrc/run_tests.sh --vm-only [TESTS]   VM tier only (the caller
#                                         built everything, e.g.
#                                         scripts/debug-kernel test)
#   selftests/mrc/run_tests.sh --mpi      MPI tier only (the Makefile's
#                                         TEST_PROGS_MPI: Open MPI over mrc
#                                         across VMs, about 10-15 minutes;
#                                         builds nothing: run `make` first)
#
# Fast tier: mrc.ko builds with W=1 and no warning, sparse is clean,
# checkpatch is clean, the kernel's coccinelle scripts report nothing,
# kernel-doc is complete, the uapi netlink header is the one generated
# from the spec, the tools build without warnings, lib.sh's barrier
# behaves (lib_test.sh), the user-space unit
# tests pass, the fuzzers run bounded without a finding, mrcctl's
# self-test passes, mrc-sim's checks pass.  VM tier: every TEST_PROGS script of the Makefile,
# each booting its own QEMU fabric.  Ends with one line: "N passed, N failed".
# Set MRC_NO_DEPS=1 to skip scripts/install-deps.
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
LOGDIR=${MRC_LOGDIR:-$TOP/build/test-logs}
FAST_ONLY=0
VM_ONLY=0
MPI=0
ONLY=()

for a in "$@"; do
	case $a in
	--fast) FAST_ONLY=1 ;;
	--vm-only) VM_ONLY=1 ;;
	--mpi) VM_ONLY=1; MPI=1 ;;
	-h|--help) sed -n '4,24p' "$0"; exit 0 ;;
	*) ONLY+=("$a") ;;
	esac
done

N=0
PASS=0
FAIL=0
SKIP=0

result() {	# result ok|fail|skip DESC
	N=$((N + 1))
	case $1 in
	ok) PASS=$((PASS + 1)); echo "ok $N - $2" ;;
	skip) SKIP=$((SKIP + 1)); echo "ok $N - $2 # SKIP" ;;
	*) FAIL=$((FAIL + 1)); echo "not ok $N - $2" ;;
	esac
}

# Runs a command; the test passes if it exits 0 and its output has no line
# matching the warning pattern.  Output goes to a log; on failure the first
# lines are shown as diagnostics.
step() {	# step NAME LOG CMD...
	local name=$1 log=$LOGDIR/$2
	shift 2
	if "$@" > "$log" 2>&1 && ! grep -qiE 'warning:|error:' "$log"; then
		result ok "$name"
	else
		result fail "$name"
		grep -iE 'warning:|error:' "$log" | head -20 | sed 's/^/# /'
		tail -5 "$log" | sed 's/^/# /'
	fi
}

# Re-emits the result lines of a TAP producer under our numbering.
relay() {	# relay PREFIX LOG
	local prefix=$1 log=$2 line desc
	while IFS= read -r line; do
		case $line in
		"ok "*"# SKIP"*|"ok "*"# skip"*)
			desc=${line#ok }; desc=${desc#* }; desc=${desc#- }
			result skip "$prefix$desc" ;;
		"ok "*)
			desc=${line#ok }; desc=${desc#* }; desc=${desc#- }
			result ok "$prefix$desc" ;;
		"not ok "*)
			desc=${line#not ok }; desc=${desc#* }; desc=${desc#- }
			result fail "$prefix$desc" ;;
		"Bail out!"*)
			result fail "$prefix$line" ;;
		"#"*) echo "$line" ;;
		esac
	done < "$log"
}

mkdir -p "$LOGDIR"
echo "TAP version 13"
T0=$(date +%s)

if [ "${MRC_NO_DEPS:-0}" != 1 ] && [ $VM_ONLY = 0 ]; then
	if ! "$TOP/scripts/install-deps" > "$LOGDIR/install-deps.log" 2>&1; then
		result fail "install dependencies (see $LOGDIR/install-deps.log)"
		tail -20 "$LOGDIR/install-deps.log" | sed 's/^/# /'
	fi
fi

# ---- fast tier ----
cd "$TOP" || exit 1
if [ $VM_ONLY = 0 ]; then
make -s clean > /dev/null 2>&1
step 'build: mrc.ko, make W=1, no warnings' build-modules.log \
	make -s W=1 modules
step 'build: sparse (C=2) clean' build-sparse.log \
	sh -c 'touch mrc/*.c mrc/core/*.c && make -s sparse'
step 'build: test modules (mrc_echo, mrc_udfloor), W=1, no warnings' \
	build-testmods.log make -s W=1 testmods
step 'build: mrcctl, mrc-perf, mrc-sim, no warnings' build-tools.log \
	make -s tools
step 'build: selftests, no warnings' build-selftests.log make -s selftests

# Bounded libFuzzer runs (wire parser, reassembly, scoreboard, engine,
# credits): each fuzzer runs FUZZ_SECONDS, one at a time, on the core
# that checkpatch and coccicheck (one job each) leave free; the results
# are read after the unit tests.
make -s -C "$HERE/fuzz" run FUZZ_SECONDS="${FUZZ_SECONDS:-15}" \
	> "$LOGDIR/fuzz.log" 2>&1 &
FUZZ_PID=$!

if "$TOP/scripts/get-checkpatch" > "$LOGDIR/checkpatch-get.log" 2>&1; then
	if make -s checkpatch > "$LOGDIR/checkpatch.log" 2>&1; then
		result ok 'checkpatch --strict clean'
	else
		result fail 'checkpatch --strict clean'
		head -20 "$LOGDIR/checkpatch.log" | sed 's/^/# /'
	fi
else
	result skip 'checkpatch (linux-source not available)'
fi

# The kernel's semantic and documentation checks, with the scripts of
# Debian's linux-source (extracted once into build/linux-source/).
if "$TOP/scripts/get-kernel-scripts" > "$LOGDIR/kernel-scripts-get.log" 2>&1; then
	step 'coccicheck: no report from the kernel semantic patches' \
		coccicheck.log make -s coccicheck
	step 'kernel-doc clean, every non-static function documented' \
		kernel-doc.log make -s kernel-doc
else
	result skip 'coccicheck, kernel-doc (linux-source not available)'
fi

# uapi/linux/mrc_netlink.h is generated from the spec (make ynl-gen):
# generated again, with the kernel's ynl-gen-c.py, it must be the same.
if [ -r "${YNL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}" ]; then
	step 'uapi netlink header matches the spec' ynl-gen.log \
		"$TOP/scripts/ynl-gen" --check
else
	result skip 'uapi netlink header matches the spec (linux-source-6.12 not available)'
fi

if python3 "$HERE/check_spec.py" > "$LOGDIR/spec.log" 2>&1; then
	result ok 'netlink YAML spec matches mrc/core/config_knobs.h'
else
	result fail 'netlink YAML spec matches mrc/core/config_knobs.h'
	head -20 "$LOGDIR/spec.log" | sed 's/^/# /'
fi

# lib.sh's barrier (host side, two fake guests): fails without
# participants, waits with them.
"$HERE/lib_test.sh" > "$LOGDIR/lib_test.log" 2>&1
rc=$?
relay "lib_test.sh: " "$LOGDIR/lib_test.log"
[ $rc = 0 ] || result fail "lib_test.sh exit status $rc"

# nlfuzz's request builder, without a kernel: nlfuzz.sh relies on it
# never deleting the real peer, adding other peers or changing the node id.
"$HERE/nlfuzz" --selftest 2000 --peer 2 > "$LOGDIR/nlfuzz-selftest.log" 2>&1
rc=$?
relay "nlfuzz: " "$LOGDIR/nlfuzz-selftest.log"
[ $rc = 0 ] || result fail "nlfuzz --selftest exit status $rc"

for t in "$HERE"/unit/*_test; do
	[ -x "$t" ] || continue
	"$t" > "$LOGDIR/unit-${t##*/}.log" 2>&1
	rc=$?
	relay "unit/${t##*/}: " "$LOGDIR/unit-${t##*/}.log"
	[ $rc = 0 ] || result fail "unit/${t##*/} exit status $rc"
done
wait "$FUZZ_PID"
rc=$?
relay "fuzz: " "$LOGDIR/fuzz.log"
[ $rc = 0 ] || result fail "fuzz run exit status $rc"

# mrcctl's self-test (selftests/mrc/mrcctl/, TAP): its printers on canned
# kernel messages and the binary on the command lines that need no kernel.
make -s -C "$HERE/mrcctl" run > "$LOGDIR/mrcctl-check.log" 2>&1
rc=$?
relay "mrcctl: " "$LOGDIR/mrcctl-check.log"
[ $rc = 0 ] || result fail "mrcctl self-test exit status $rc"

# mrc-sim's small checks (tools/mrc-sim/check.sh, TAP): the engine in a
# simulated 64-host Clos, a second or so; built by `make tools` above.
"$TOP/tools/mrc-sim/check.sh" > "$LOGDIR/mrc-sim.log" 2>&1
rc=$?
relay "mrc-sim: " "$LOGDIR/mrc-sim.log"
[ $rc = 0 ] || result fail "mrc-sim check exit status $rc"
echo "# fast tier done in $(($(date +%s) - T0)) s"
fi	# VM_ONLY

# ---- VM tier ----
if [ $FAST_ONLY = 0 ]; then
	if [ ${#ONLY[@]} -gt 0 ]; then
		progs=("${ONLY[@]}")
	else
		tier=TEST_PROGS
		[ $MPI = 1 ] && tier=TEST_PROGS_MPI
		read -r -a progs <<< "$(make -s -C "$HERE" -f - print-progs <<EOF
include Makefile
print-progs:
	@echo \$($tier)
EOF
)"
	fi
	for p in "${progs[@]}"; do
		t1=$(date +%s)
		echo "# $p: starting (boots its own VMs)"
		"$HERE/$p" > "$LOGDIR/$p.log" 2>"$LOGDIR/$p.err"
		rc=$?
		relay "$p: " "$LOGDIR/$p.log"
		case $rc in
		0) ;;
		4) result skip "$p (prerequisites missing)" ;;
		*) grep -q '^not ok' "$LOGDIR/$p.log" ||
			result fail "$p exited $rc without a failed test"
		   tail -5 "$LOGDIR/$p.err" | sed 's/^/# /' ;;
		esac
		echo "# $p: done in $(($(date +%s) - t1)) s (log: $LOGDIR/$p.log)"
	done
fi

echo "1..$N"
echo "# total time $(($(date +%s) - T0)) s"
if [ $SKIP -gt 0 ]; then
	echo "$PASS passed, $FAIL failed, $SKIP skipped"
else
	echo "$PASS passed, $FAIL failed"
fi
[ $FAIL = 0 ]
