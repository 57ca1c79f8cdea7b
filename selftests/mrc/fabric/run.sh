#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mrc multi-VM RDMA test fabric.
#
# Boots NODES QEMU (TCG) guests running the installed Debian *-amd64 kernel,
# each with one virtio-net NIC per plane. Plane P of every node sits on Linux
# bridge brP inside a private network namespace, so all traffic stays in it.
# The guests run the host's own userspace (host root over read-only 9p with a
# tmpfs overlay), set up Soft-RoCE (rxeP on ethP, address 10.200.P.N/24) and
# then run COMMAND with cwd = the repository. See usage() and
# shared/fabric-notes.md for the recipe this follows.
#
# Output directory layout (OUTDIR, also shared writable with the guests at
# /mnt/mrc, 9p cache=none):
#   console.N.log   serial console of node N (kernel messages, panics)
#   node.N.out      stdout+stderr of COMMAND on node N
#   node.N.rc       exit status of COMMAND on node N (written atomically)
#   dmesg.N.log     full guest dmesg after COMMAND finished, or at the
#                   timeout (then with the sysrq-w list of blocked tasks)
#   boot.N.log      guest uptime at each setup stage
#   qemu.N.log      QEMU's own stdout/stderr
#   shared/         MRC_SHARED: scratch space for coordination between nodes
#   .fabric/        runner <-> guest control files (config, ready.N, go, stop,
#                   dead.N when node N's VM died, kill.N / killed.N below,
#                   dump / dumped.N at the timeout)
#
# At the timeout the runner writes .fabric/dump and gives the guests up to
# DUMP_WAIT seconds before it kills them: each guest that still responds
# writes the stacks of its blocked (D state) tasks to its kernel log
# (sysrq w), saves its dmesg as dmesg.N.log and writes .fabric/dumped.N. A
# test that hangs in the kernel thus leaves the stacks that explain it.
#
# Killing a node on purpose (lifecycle.sh: a peer that dies without a clean
# shutdown).  Once the tests run, a guest that writes .fabric/kill.N (any
# content; lib.sh's kill_node) asks for node N's death: within ~0.2 s the
# runner sends SIGKILL to that node's QEMU, by the PID it started it with,
# waits for it, and writes .fabric/killed.N.  A killed node leaves no
# node.N.rc and counts as finished, not failed: the nodes still running
# report their results as usual, and lib.sh reports the killed node's
# results up to its death plus one for the kill itself.  A VM that dies
# without such a request is still a failure (dead.N).

set -u

FABRIC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=${MRC_REPO:-$(cd "$FABRIC_DIR/../../.." && pwd)}
PROG=mrc-fabric

NODES=2
PLANES=2
TIMEOUT=300
BOOT_TIMEOUT=300
BOOT_RETRIES=1
OUTDIR=
ONLY=
MTU=9000
MEM=1024
VCPUS=${MRC_VCPUS:-1}

usage() {
	cat <<EOF
usage: ${0##*/} [options] -- COMMAND [ARGS...]

Boot a fabric of QEMU guests and run COMMAND (as root, cwd = repo) in each.

  -n NODES      number of VMs, 1..4 (default 2)
  -p PLANES     number of planes (NICs / rxe devices per VM), 1..8 (default 2)
  -t TIMEOUT_S  overall timeout including boot (default 300); exit 124 on expiry
  -b BOOT_S     a VM not ready BOOT_S seconds after it started is killed
                and booted again, up to -r times; then the run fails at
                once (exit 124; default 300, at most TIMEOUT_S): a guest
                that hangs while booting shows no console under "quiet"
  -r RETRIES    boots again of a VM whose boot hung (default 1, 0..3); the
                hung console is kept as console.N.hung.R.log
  -o OUTDIR     output directory (default: a new ${TMPDIR:-/tmp}/mrc-fabric.XXXXXX)
  --only NODE   boot all VMs but run COMMAND only on NODE; the others idle
  --mtu MTU     guest NIC MTU (default 9000, gives rxe active_mtu 4096)
  --mem MB      guest memory (default 1024)

Guest environment of COMMAND: MRC_IN_VM=1 MRC_NODE MRC_NODES MRC_PLANES
MRC_ONLY MRC_SHARED MRC_OUTDIR MRC_REPO MRC_KVER MRC_MTU, PATH with \$REPO/tools/mrcctl
and \$REPO/tools.
A relative COMMAND path that exists on the host is made absolute; otherwise it
is resolved in the guest with cwd = repo.

If \$REPO/mrc.ko exists it is installed as /lib/modules/\$KVER/updates/mrc.ko
in every guest (modprobe mrc works; it is not loaded). Guests have their own
tmpfs /tmp and /run: COMMAND must not live there on the host.
Outputs: OUTDIR/node.N.out, node.N.rc, console.N.log, dmesg.N.log, boot.N.log.

Environment: MRC_KVER overrides the guest kernel version (default: newest
/lib/modules/*-amd64 with /boot/vmlinuz-VER, preferring one with headers),
MRC_REPO the repo dir, MRC_APPEND extra guest kernel command line words
(after tsc_early_khz=<the host's TSC rate, measured by tsc_khz.c, built
with \${CC:-cc} into the cache>),
MRC_BZIMAGE=1 boots the compressed bzImage instead of the unpacked vmlinux,
MRC_VCPUS the vCPUs per VM (default 1; 1-4): the KCSAN lane uses 2, since a
data race needs two CPUs to be seen (TCG is slower with more, fabric-notes.md).
Another kernel (e.g. the debug lane's, scripts/debug-kernel): MRC_KERNEL=IMAGE
(bzImage or PVH vmlinux, booted as is) with MRC_KMODDIR=DIR, its modules tree
BASE/lib/modules/KVER (depmod'ed, not under /tmp or /run: the guests use it
over 9p); KVER is DIR's last component unless MRC_KVER says otherwise.

Exit: 0 all nodes that ran COMMAND exited 0, 1 otherwise (also: not root),
124 timeout, 4 prerequisites missing (kselftest SKIP), 2 usage error,
5 a guest's NIC stopped transmitting (NIC STALL below): the run says
nothing about COMMAND, the caller may run it again.

NIC stall.  Under TCG a guest's virtio-net transmit queue has been seen to
stop for good: the guest kernel's watchdog logs "NETDEV WATCHDOG ...
transmit queue 0 timed out" every 5 s, and every packet that guest sends on
that NIC is lost from then on.  That is a fault of the emulated NIC or its
driver, below rxe and mrc.  When a node's console shows the watchdog twice
(stalled 10 s or more), the runner prints the host side of that node's taps,
writes .fabric/nicstall.N, stops every VM and exits 5.  The watchdog speaks
only once the ring is full; a node of a lib.sh test whose result failed
probes its NICs (lib.sh _nic_probe) and logs "mrc-fabric: ethP: NIC STALL"
if one completes none of its packets: once is enough, also when the
command has ended.
EOF
}

msg() { echo "$PROG: $*" >&2; }
die() { msg "error: $1"; exit "${2:-1}"; }

# ---------------------------------------------------------------- options
while [ $# -gt 0 ]; do
	case $1 in
	-n) NODES=${2-}; shift 2 || die "-n needs a value" 2 ;;
	-p) PLANES=${2-}; shift 2 || die "-p needs a value" 2 ;;
	-t) TIMEOUT=${2-}; shift 2 || die "-t needs a value" 2 ;;
	-b) BOOT_TIMEOUT=${2-}; shift 2 || die "-b needs a value" 2 ;;
	-r) BOOT_RETRIES=${2-}; shift 2 || die "-r needs a value" 2 ;;
	-o) OUTDIR=${2-}; shift 2 || die "-o needs a value" 2 ;;
	--only) ONLY=${2-}; shift 2 || die "--only needs a value" 2 ;;
	--mtu) MTU=${2-}; shift 2 || die "--mtu needs a value" 2 ;;
	--mem) MEM=${2-}; shift 2 || die "--mem needs a value" 2 ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	*) usage >&2; die "unknown option '$1' (COMMAND must follow --)" 2 ;;
	esac
done
[ $# -gt 0 ] || { usage >&2; die "no COMMAND given" 2; }

isnum() { [[ $1 =~ ^[0-9]+$ ]]; }
inrange() { isnum "$1" && [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }	# V MIN MAX
inrange "$NODES" 1 4 || die "-n must be 1..4" 2
inrange "$PLANES" 1 8 || die "-p must be 1..8" 2
inrange "$TIMEOUT" 1 999999 || die "-t must be a positive number of seconds" 2
inrange "$BOOT_TIMEOUT" 1 999999 || die "-b must be a positive number of seconds" 2
[ "$BOOT_TIMEOUT" -le "$TIMEOUT" ] || BOOT_TIMEOUT=$TIMEOUT
inrange "$BOOT_RETRIES" 0 3 || die "-r must be 0..3" 2
inrange "$MTU" 576 65000 || die "--mtu must be 576..65000" 2
inrange "$MEM" 256 65536 || die "--mem must be 256..65536 (MB)" 2
inrange "$VCPUS" 1 4 || die "MRC_VCPUS must be 1..4" 2
if [ -n "$ONLY" ]; then
	inrange "$ONLY" 1 "$NODES" || die "--only must be a node number 1..$NODES" 2
fi

# A relative command path that exists here is made absolute so that it does
# not depend on the guest's cwd (the repo). Paths are identical in the guest.
CMD=("$@")
if [[ ${CMD[0]} == */* && ${CMD[0]} != /* && -e ${CMD[0]} ]]; then
	CMD[0]=$(realpath -- "${CMD[0]}")
fi

# Guests mount fresh tmpfs on /tmp and /run (and their own /dev, /proc, /sys):
# host files there are invisible in the VMs.
prog=
for w in "${CMD[@]}"; do	# the program word, after `env` and VAR=value
	case $w in env|*=*) continue ;; esac
	prog=$w
	break
done
case $prog in
/tmp/*|/run/*|/dev/*|/proc/*|/sys/*)
	die "$prog: guests cannot see host files under /tmp, /run, /dev, /proc or /sys; put it elsewhere (e.g. in the repo or /root)" 2 ;;
esac

# ---------------------------------------------------------------- prerequisites
[ "$(id -u)" -eq 0 ] || die "must be run as root (needs network namespaces and tap devices)" 1
QEMU=$(command -v qemu-system-x86_64)
{ [ -n "$QEMU" ] && [ -f "$QEMU" ] && [ -x "$QEMU" ]; } ||
	die "qemu-system-x86_64 not found (apt-get install qemu-system-x86, or scripts/install-deps); skipping" 4
# /dev/net/tun is char 10:200 (0xa:0xc8).
{ [ -c /dev/net/tun ] && [ "$(stat -c %t:%T /dev/net/tun)" = a:c8 ]; } ||
	die "/dev/net/tun missing (no tun/tap support on this host); skipping" 4
BUSYBOX=
for b in /bin/busybox /usr/bin/busybox; do
	# The initramfs has no libc: insist on a static busybox (busybox-static).
	if [ -x "$b" ] && ! ldd "$b" >/dev/null 2>&1; then BUSYBOX=$b; break; fi
done
[ -n "$BUSYBOX" ] || die "static busybox not found (apt-get install busybox-static); skipping" 4
command -v ip >/dev/null || die "ip (iproute2) not found; skipping" 4

# Guest kernel: the installed Debian *-amd64 kernel, never the host's uname -r,
# or MRC_KERNEL + MRC_KMODDIR (any kernel with its own modules tree).
KMODDIR=
if [ -n "${MRC_KERNEL:-}" ]; then
	[ -n "${MRC_KMODDIR:-}" ] || die "MRC_KERNEL needs MRC_KMODDIR (its BASE/lib/modules/KVER)" 2
	KMODDIR=$(realpath -- "$MRC_KMODDIR") || die "MRC_KMODDIR=$MRC_KMODDIR: no such directory" 2
	case $KMODDIR in
	/tmp/*|/run/*) die "MRC_KMODDIR=$KMODDIR: the guests cannot see /tmp or /run" 2 ;;
	esac
	KVER=${MRC_KVER:-${KMODDIR##*/}}
	[ "${KMODDIR%/lib/modules/"$KVER"}" != "$KMODDIR" ] ||
		die "MRC_KMODDIR=$KMODDIR must be BASE/lib/modules/KVER" 2
	[ -r "$KMODDIR/modules.dep" ] || die "$KMODDIR/modules.dep missing (run depmod -b BASE KVER)" 2
elif [ -n "${MRC_KVER:-}" ]; then
	KVER=$MRC_KVER
else
	# Prefer the newest one that also has headers (build/): that is the
	# one the Makefile builds mrc.ko against.
	KVER=
	for want in build any; do
		for d in $(find /lib/modules -mindepth 1 -maxdepth 1 -name '*-amd64' -printf '%f\n' 2>/dev/null | sort -rV); do
			[ -r "/boot/vmlinuz-$d" ] || continue
			[ $want = build ] && [ ! -d "/lib/modules/$d/build" ] && continue
			KVER=$d
			break 2
		done
	done
fi
[ -n "$KVER" ] || die "no installed *-amd64 guest kernel (apt-get install linux-image-amd64); skipping" 4
KERNEL=/boot/vmlinuz-$KVER
MODDIR=/lib/modules/$KVER
if [ -n "$KMODDIR" ]; then
	KERNEL=$MRC_KERNEL
	MODDIR=$KMODDIR
fi
{ [ -r "$KERNEL" ] && [ -d "$MODDIR" ]; } || die "kernel $KERNEL or $MODDIR missing; skipping" 4

# ---------------------------------------------------------------- initramfs
# Modules the initramfs needs before the 9p root is reachable, in insmod order.
INITRD_MODS="virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci netfs fscache 9pnet 9pnet_virtio 9p overlay"

# The initramfs /init: load virtio + 9p, mount the host root read-only with a
# tmpfs overlay on top, mount the writable output share, then hand over to
# guest-init.sh (copied into the share by the host, so editing it needs no
# initramfs rebuild). Runs under busybox sh.
initramfs_init() {
	cat <<'EOF'
#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# mrc fabric initramfs init (generated by selftests/mrc/fabric/run.sh)
/bin/busybox --install -s /bin
export PATH=/bin
mkdir -p /proc /sys /dev /lower /rw /newroot
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
fail() {
	echo "mrc-fabric initramfs: $*" >/dev/console
	sleep 1
	poweroff -f
}
while read -r m; do
	insmod "/lib/mrc-mods/$m.ko" || fail "insmod $m failed"
done </lib/mrc-mods/order
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000,cache=loose hostroot /lower ||
	fail "mounting host root over 9p failed"
mount -t tmpfs -o mode=0755 tmpfs /rw || fail "tmpfs"
mkdir -p /rw/upper /rw/work
mount -t overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work overlay /newroot ||
	fail "overlay mount failed"
mkdir -p /newroot/mnt/mrc
mount -t 9p -o trans=virtio,version=9p2000.L,cache=none,msize=512000 mrcout /newroot/mnt/mrc ||
	fail "mounting output share failed"
[ -r /newroot/mnt/mrc/.fabric/guest-init.sh ] || fail "guest-init.sh missing in share"
umount /proc /sys /dev
exec switch_root /newroot /bin/bash /mnt/mrc/.fabric/guest-init.sh
EOF
}

# PID 1 of each guest after switch_root (bash from the host root). Written to
# OUTDIR/.fabric/guest-init.sh at every run.
guest_init() {
	cat <<'GUEST_EOF'
#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Generated by selftests/mrc/fabric/run.sh (guest_init).
#
# PID 1 of an mrc fabric guest (started by the initramfs /init after
# switch_root; see run.sh). The root is the host's root read-only over 9p
# with a tmpfs overlay, so this is the host's bash and userspace.
#
# Sets up the node (mounts, hostname, NICs, rxe devices, mrc.ko for modprobe),
# reports ready, waits for the host's "go", runs COMMAND and writes its
# output and exit status into the shared output dir, then powers off.

set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8

OUT=/mnt/mrc	# the writable 9p share (host OUTDIR)
CTL=$OUT/.fabric


poweroff_now() {
	sync
	busybox poweroff -f
	sleep 60	# poweroff -f does not return; never let PID 1 exit
}

# Setup failure: report it like a result (rc 125) so the host shows it.
fail() {
	echo "mrc-fabric guest node$NODE: setup failed: $*" >/dev/console
	{
		echo "mrc-fabric guest node$NODE: setup failed: $*"
		cat /run/guest-init.err 2>/dev/null
		ip -br link 2>&1
		rdma link 2>&1
		dmesg 2>&1 | tail -n 30
	} >"$OUT/node.$NODE.out" 2>&1
	echo 125 >"$OUT/node.$NODE.rc.tmp" && mv "$OUT/node.$NODE.rc.tmp" "$OUT/node.$NODE.rc"
	poweroff_now
}

# Under TCG every fork+exec costs 0.1-1 s: use few, static busybox where a
# tool is needed often, and bash builtins (read) instead of grep/sleep/cat.
BB=/bin/busybox
[ -x "$BB" ] || BB=
bbmount() { $BB mount "$@"; }
bbmount -t proc proc /proc
bbmount -t sysfs sysfs /sys
bbmount -t devtmpfs devtmpfs /dev
$BB mkdir -p /dev/pts /dev/shm
bbmount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
bbmount -t tmpfs -o mode=1777 tmpfs /dev/shm
bbmount -t tmpfs -o mode=1777 tmpfs /tmp
bbmount -t tmpfs -o mode=0755 tmpfs /run
bbmount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
# Boot stage timestamps (guest uptime), saved as OUTDIR/boot.N.log.
BOOTLOG=/dev/shm/mrc-boot.log
stage() { local u; read -r u _ </proc/uptime; echo "$u $*" >>"$BOOTLOG"; }
stage "guest-init: mounted"
# Errors of the setup commands end up in the report of fail().
exec 2>>/run/guest-init.err
# sleep without a fork: a read timeout on a FIFO that nobody writes to.
$BB mkfifo /run/mrc-sleep && exec 9<>/run/mrc-sleep
nap() { read -r -t "$1" -u 9 _ 2>/dev/null; return 0; }

# The node number comes from the kernel command line (a dotted word, which
# the kernel keeps to itself unless a module named mrcfab exists).
NODE=
read -ra words </proc/cmdline
for w in "${words[@]}"; do
	case $w in mrcfab.node=*) NODE=${w#mrcfab.node=} ;; esac
done
[ -n "$NODE" ] || fail "no mrcfab.node= on the kernel command line"

# shellcheck source=/dev/null
source "$CTL/config" || fail "cannot read $CTL/config"
# From config: NODES PLANES MTU REPO KVER ONLY CMD
: "${NODES:?}" "${PLANES:?}" "${MTU:?}" "${REPO:?}" "${KVER:?}" "${ONLY?}" "${CMD[0]:?}"

# A kernel whose modules tree is not the host's /lib/modules/$KVER
# (MRC_KMODDIR): the guest's /lib/modules/$KVER points into it over 9p
# (kernel/, and extra/ where scripts/debug-kernel added modules: every
# directory the host's depmod saw, prepare_modules()); the small modules.*
# indexes are copied so that mrc.ko's can replace them.
if [ -n "${KMODDIR:-}" ] && [ "$KMODDIR" != "/lib/modules/$KVER" ]; then
	$BB mkdir -p "/lib/modules/$KVER" ||
		fail "creating /lib/modules/$KVER"
	for e in "$KMODDIR"/*; do
		case ${e##*/} in build|source|updates|modules.*) continue ;; esac
		[ -d "$e" ] || continue
		$BB ln -s "$e" "/lib/modules/$KVER/${e##*/}" ||
			fail "linking /lib/modules/$KVER/${e##*/} to $e"
	done
	$BB cp "$KMODDIR"/modules.* "/lib/modules/$KVER/" ||
		fail "copying $KMODDIR/modules.* to /lib/modules/$KVER"
fi

echo "mrc-node$NODE" >/proc/sys/kernel/hostname
echo "mrc-node$NODE" >/etc/hostname

# No udev here: load drivers by hand and poll for the devices.
wait_until() {	# TIMEOUT_S CMD...: poll every 0.1 s
	local i=$(($1 * 10))
	shift
	while ! "$@"; do
		i=$((i - 1))
		[ $i -gt 0 ] || return 1
		nap 0.1
	done
}
all_eth() {
	local p
	for ((p = 0; p < PLANES; p++)); do [ -e "/sys/class/net/eth$p" ] || return 1; done
}
stage "config read"
# All at once; rxe needs crc32_generic (no udev to pull it in).
modprobe -a virtio_net crc32_generic rdma_rxe rdma_ucm ib_uverbs ||
	fail "modprobe virtio_net crc32_generic rdma_rxe rdma_ucm ib_uverbs"
stage "modules loaded"
wait_until 30 all_eth || fail "eth0..eth$((PLANES - 1)) did not appear"

# MTU first: rxe derives its active_mtu when the link is added.
batch="link set lo up"$'\n'
for ((p = 0; p < PLANES; p++)); do
	batch+="link set eth$p mtu $MTU"$'\n'
	batch+="address add 10.200.$p.$NODE/24 dev eth$p"$'\n'
	batch+="link set eth$p up"$'\n'
done
echo -n "$batch" >/run/ip.batch
ip -batch /run/ip.batch || fail "ip configuration of eth0..eth$((PLANES - 1))"
stage "NICs up"

batch=
for ((p = 0; p < PLANES; p++)); do
	batch+="link add rxe$p type rxe netdev eth$p"$'\n'
done
echo -n "$batch" >/run/rdma.batch	# rdma -b does not read stdin
rdma -b /run/rdma.batch || fail "rdma link add rxe0..rxe$((PLANES - 1))"
stage "rxe links added"

# The project's module, if built: make it loadable with modprobe (not loaded).
# The host ran depmod for us (depmod over 9p under TCG takes a minute).
if [ -d "$CTL/modules" ]; then
	cp -r "$CTL/modules/." "/lib/modules/$KVER/" || fail "installing mrc.ko"
fi

ports_active() {
	local p s
	for ((p = 0; p < PLANES; p++)); do
		s=
		read -r s <"/sys/class/infiniband/rxe$p/ports/1/state" 2>/dev/null
		[[ $s == *ACTIVE* ]] || return 1
	done
}
wait_until 60 ports_active || fail "rxe ports not ACTIVE"
stage "ready"
cp "$BOOTLOG" "$OUT/boot.$NODE.log"

echo ready >"$CTL/ready.$NODE.tmp" && mv "$CTL/ready.$NODE.tmp" "$CTL/ready.$NODE"
# The host says go once every node is ready (and stop when it is done).
while [ ! -e "$CTL/go" ]; do nap 0.1; done
stage "go"

# The runner's timeout: blocked tasks' stacks into the kernel log, and the
# log into the share (see run.sh's header). A background child of PID 1.
dump_watch() {
	while [ ! -e "$CTL/dump" ]; do nap 1; done
	echo w >/proc/sysrq-trigger
	nap 1
	dmesg >"$OUT/dmesg.$NODE.log" 2>&1
	echo dumped >"$CTL/dumped.$NODE"
}
dump_watch &

if [ -n "$ONLY" ] && [ "$ONLY" != "$NODE" ]; then
	# --only: this node only provides the fabric.
	while [ ! -e "$CTL/stop" ]; do nap 0.5; done
	poweroff_now
fi

cd "$REPO" || fail "cd $REPO"
env -i \
	PATH="$REPO/tools/mrcctl:$REPO/tools:$PATH" HOME=/root LANG=C.UTF-8 TERM=dumb \
	MRC_IN_VM=1 MRC_NODE="$NODE" MRC_NODES="$NODES" MRC_PLANES="$PLANES" \
	MRC_ONLY="$ONLY" MRC_MTU="$MTU" MRC_SHARED="$OUT/shared" MRC_OUTDIR="$OUT" \
	MRC_REPO="$REPO" MRC_KVER="$KVER" \
	"${CMD[@]}" >"$OUT/node.$NODE.out" 2>&1 </dev/null
rc=$?
stage "command done rc=$rc"
cp "$BOOTLOG" "$OUT/boot.$NODE.log"
dmesg >"$OUT/dmesg.$NODE.log" 2>&1
echo "$rc" >"$OUT/node.$NODE.rc.tmp"
mv "$OUT/node.$NODE.rc.tmp" "$OUT/node.$NODE.rc"
poweroff_now
GUEST_EOF
}

CACHE=$FABRIC_DIR/.cache
build_initramfs() {
	local key stage m f tmp
	key=$( { initramfs_init; echo "$INITRD_MODS $MODDIR"; sha256sum "$BUSYBOX"; } | sha256sum | cut -c1-12)
	INITRD=$CACHE/initramfs-$KVER-$key.cpio
	[ -s "$INITRD" ] && return 0
	msg "building initramfs for $KVER -> $INITRD"
	mkdir -p "$CACHE" || die "cannot create $CACHE"
	stage=$(mktemp -d "$CACHE/stage.XXXXXX") || die "mktemp failed"
	mkdir -p "$stage/bin" "$stage/lib/mrc-mods"
	cp "$BUSYBOX" "$stage/bin/busybox"
	initramfs_init >"$stage/init"
	chmod 755 "$stage/init"
	for m in $INITRD_MODS; do
		if ! f=$(modinfo -b "${MODDIR%/lib/modules/"$KVER"}/" -k "$KVER" -n "$m" 2>/dev/null); then
			# Another kernel (MRC_KERNEL) may lack a feature
			# altogether (e.g. fscache): if 9p or overlay is
			# missing, the initramfs says so at boot.
			[ -n "$KMODDIR" ] && { msg "note: $KVER has no module $m"; continue; }
			rm -rf "$stage"
			die "module $m not found for $KVER"
		fi
		# Built into the kernel (e.g. the debug lane's): nothing to load.
		[ "$f" = "(builtin)" ] && continue
		# Debian may ship modules compressed: the initramfs has no
		# decompressing insmod, so store plain .ko files.
		case $f in
		*.ko) cp "$f" "$stage/lib/mrc-mods/$m.ko" ;;
		*.ko.xz) xz -dc "$f" >"$stage/lib/mrc-mods/$m.ko" ;;
		*.ko.zst) zstd -qdc "$f" >"$stage/lib/mrc-mods/$m.ko" ;;
		*.ko.gz) gzip -dc "$f" >"$stage/lib/mrc-mods/$m.ko" ;;
		*) rm -rf "$stage"; die "unexpected module file $f" ;;
		esac || { rm -rf "$stage"; die "cannot unpack $f"; }
		echo "$m" >>"$stage/lib/mrc-mods/order"
	done
	# Uncompressed newc cpio: saves the guest a decompression under TCG.
	tmp=$INITRD.tmp.$$
	touch "$stage/lib/mrc-mods/order"	# all built in: an empty list
	(cd "$stage" && find . | "$BUSYBOX" cpio -o -H newc 2>/dev/null) >"$tmp" ||
		{ rm -rf "$stage" "$tmp"; die "cpio failed"; }
	rm -rf "$stage"
	mv -f "$tmp" "$INITRD"	# atomic: concurrent runs may build the same key
	for f in "$CACHE"/initramfs-"$KVER"-*.cpio; do	# superseded ones
		[ "$f" = "$INITRD" ] || rm -f "$f"
	done
}

# ---------------------------------------------------------------- run state
NETNS=mrcfab-$$
declare -A QPID=()	# node -> QEMU pid
CLEANED=0

# shellcheck disable=SC2317  # invoked via trap
cleanup() {
	local n pid t
	[ "$CLEANED" = 1 ] && return
	CLEANED=1
	trap '' INT TERM HUP
	# Ask QEMUs to quit, then force; only our own children by PID.
	for n in "${!QPID[@]}"; do
		pid=${QPID[$n]}
		kill -0 "$pid" 2>/dev/null && kill -TERM "$pid" 2>/dev/null
	done
	for t in $(seq 20); do
		local alive=0
		for n in "${!QPID[@]}"; do
			kill -0 "${QPID[$n]}" 2>/dev/null && alive=1
		done
		[ "$alive" = 0 ] && break
		sleep 0.1
	done
	for n in "${!QPID[@]}"; do
		pid=${QPID[$n]}
		kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	# Deleting the namespace removes its bridges and taps.
	if ip netns list 2>/dev/null | grep -qw "^$NETNS"; then
		ip netns del "$NETNS" 2>/dev/null || msg "warning: could not delete netns $NETNS"
	fi
	if [ "$1" != 0 ] && [ -n "${OUTDIR:-}" ] && [ -d "$OUTDIR" ]; then
		msg "consoles saved in $OUTDIR/console.N.log, outputs in $OUTDIR/node.N.out"
	fi
}
trap 'cleanup $?' EXIT
trap 'msg "interrupted"; exit 130' INT
trap 'msg "terminated"; exit 143' TERM
trap 'msg "hangup"; exit 129' HUP

now_ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); }
secs() { printf '%d.%d' $(($1 / 1000)) $(($1 % 1000 / 100)); }	# ms -> "X.Y"

T0=$(now_ms)

# ---------------------------------------------------------------- outdir
if [ -z "$OUTDIR" ]; then
	OUTDIR=$(mktemp -d "${TMPDIR:-/tmp}/mrc-fabric.XXXXXX") || die "mktemp failed"
else
	mkdir -p "$OUTDIR" || die "cannot create $OUTDIR"
	OUTDIR=$(realpath -- "$OUTDIR")
	# Two runs sharing one OUTDIR would trample each other's files.
	exec 9>"$OUTDIR/.lock" || die "cannot write $OUTDIR"
	flock -n 9 || die "$OUTDIR is in use by another fabric run" 1
	# Only remove what a previous run of this script left behind.
	rm -rf "$OUTDIR/.fabric" "$OUTDIR/shared"
	rm -f "$OUTDIR"/qemu.*.log
	rm -f "$OUTDIR"/node.*.out "$OUTDIR"/node.*.rc "$OUTDIR"/console.*.log "$OUTDIR"/dmesg.*.log "$OUTDIR"/boot.*.log
fi
# QEMU's -fsdev path= cannot contain commas (option separator).
[[ $OUTDIR == *,* ]] && die "OUTDIR must not contain a comma: $OUTDIR" 2
mkdir -p "$OUTDIR/.fabric" "$OUTDIR/shared" || die "cannot populate $OUTDIR"
guest_init >"$OUTDIR/.fabric/guest-init.sh" || die "cannot write guest-init.sh"

# Configuration for guest-init.sh: a bash snippet it sources.
{
	echo "# generated by run.sh"
	declare -p NODES PLANES MTU REPO KVER ONLY CMD KMODDIR
} >"$OUTDIR/.fabric/config"

build_initramfs

# Under TCG the guest spends ~6 s decompressing the xz bzImage. The Debian
# kernel has CONFIG_PVH, so QEMU can boot the uncompressed ELF vmlinux
# directly: unpack it once and cache it. Falls back to the bzImage.
extract_vmlinux() {
	local img=$1 out=$2 magic cmd m off tmp
	tmp=$out.tmp.$$
	for magic in xz zstd gzip; do
		case $magic in
		xz) cmd=(xz -dc --single-stream); m=$'\xfd7zXZ\x00' ;;
		zstd) cmd=(zstd -dcq); m=$'\x28\xb5\x2f\xfd' ;;
		gzip) cmd=(gzip -dc); m=$'\x1f\x8b\x08' ;;
		esac
		command -v "${cmd[0]}" >/dev/null || continue
		for off in $(LC_ALL=C grep -aboF -- "$m" "$img" 2>/dev/null | cut -d: -f1 | head -n 5); do
			# Trailing data after the stream makes some decompressors
			# complain: judge by the result, an ELF file.
			tail -c +$((off + 1)) "$img" | "${cmd[@]}" >"$tmp" 2>/dev/null
			if [ "$(head -c 4 "$tmp" | od -An -c | tr -d ' ')" = '177ELF' ] &&
			   [ "$(stat -c %s "$tmp")" -gt 1000000 ]; then
				mv -f "$tmp" "$out"
				return 0
			fi
		done
	done
	rm -f "$tmp"
	return 1
}
if [ -z "$KMODDIR" ] && [ "${MRC_BZIMAGE:-0}" != 1 ] && grep -q '^CONFIG_PVH=y' "/boot/config-$KVER" 2>/dev/null; then
	VMLINUX=$CACHE/vmlinux-$KVER-$(stat -c '%s-%Y' "$KERNEL")
	if [ -s "$VMLINUX" ]; then
		KERNEL=$VMLINUX
	elif mkdir -p "$CACHE" && extract_vmlinux "$KERNEL" "$VMLINUX"; then
		msg "unpacked $KERNEL to $VMLINUX (PVH boot, faster under TCG)"
		for f in "$CACHE"/vmlinux-"$KVER"-*; do	# older unpacked images
			[ "$f" = "$VMLINUX" ] || rm -f "$f"
		done
		KERNEL=$VMLINUX
	else
		msg "note: cannot unpack $KERNEL; booting the compressed image (slower)"
	fi
fi

# mrc.ko, if built, becomes /lib/modules/$KVER/updates/mrc.ko in the guests.
# depmod runs here, on a tree of symlinks to the real modules plus a snapshot
# of mrc.ko: ~1 s (cached per mrc.ko) instead of ~1 min in each guest. The
# guest copies the resulting modules.* indexes and mrc.ko from .fabric/modules.
prepare_modules() {
	local dst=$OUTDIR/.fabric/modules key cached base tree e
	mkdir -p "$dst/updates" "$CACHE" || return 1
	# Snapshot first: mrc.ko may be rebuilt while we run.
	cp "$REPO/mrc.ko" "$dst/updates/mrc.ko" || return 1
	key=$( { sha256sum <"$dst/updates/mrc.ko"; stat -c %Y "$MODDIR/modules.dep"; } |
		sha256sum | cut -c1-16)
	cached=$CACHE/depmod-$KVER-$key
	if [ ! -s "$cached/modules.dep" ]; then
		base=$(mktemp -d "$CACHE/depmod.XXXXXX") || return 1
		tree=$base/lib/modules/$KVER
		mkdir -p "$tree/updates" "$base/out"
		for e in "$MODDIR"/*; do
			case ${e##*/} in
			build|source|updates) ;;
			modules.order|modules.builtin|modules.builtin.modinfo) ln -s "$e" "$tree/" ;;
			modules.*) ;;	# regenerated by depmod
			*) ln -s "$e" "$tree/" ;;
			esac
		done
		# Keep anything the host has in updates/ (other than mrc.ko).
		if [ -d "$MODDIR/updates" ]; then
			for e in "$MODDIR/updates"/*; do
				[ -e "$e" ] && [ "${e##*/}" != mrc.ko ] && ln -s "$e" "$tree/updates/"
			done
		fi
		if ! cp "$dst/updates/mrc.ko" "$tree/updates/mrc.ko" ||
		   ! depmod -b "$base" "$KVER"; then
			rm -rf "$base"
			return 1
		fi
		for e in "$tree"/modules.*; do
			[ -L "$e" ] || cp "$e" "$base/out/"
		done
		# A concurrent run may have won the race: fine, same content.
		mv -T "$base/out" "$cached" 2>/dev/null
		rm -rf "$base"
		# Keep the 4 newest indexes.
		find "$CACHE" -maxdepth 1 -name 'depmod-*' -printf '%T@ %p\n' |
			sort -rn | tail -n +5 | cut -d' ' -f2- |
			while IFS= read -r old; do rm -rf "$old"; done
	fi
	cp "$cached"/modules.* "$dst/"
}
if [ -f "$REPO/mrc.ko" ]; then
	vermagic=$(modinfo -F vermagic "$REPO/mrc.ko" 2>/dev/null)
	[ "${vermagic%% *}" = "$KVER" ] ||
		msg "warning: $REPO/mrc.ko was built for '${vermagic%% *}', guests run $KVER: modprobe mrc will fail"
	prepare_modules || die "cannot prepare $REPO/mrc.ko for the guests (depmod)"
	msg "mrc.ko will be modprobe-able in the guests ($(stat -c '%y' "$REPO/mrc.ko" | cut -d. -f1))"
fi

# ---------------------------------------------------------------- network
# Host-side MTU: never below the guests', and jumbo-capable so tests may raise
# a guest MTU themselves.
HMTU=$((MTU > 9000 ? MTU : 9000))
# Namespaces left by runs that were SIGKILLed (their QEMUs died with them).
for ns in $(ip netns list 2>/dev/null | awk '/^mrcfab-[0-9]+/ { print $1 }'); do
	pid=${ns#mrcfab-}
	grep -qs 'fabric/run.sh' "/proc/$pid/cmdline" && continue
	ip netns del "$ns" 2>/dev/null && msg "removed stale netns $ns"
done
ip netns add "$NETNS" || die "cannot create netns $NETNS"
nsx() { ip netns exec "$NETNS" "$@"; }
nsx ip link set lo up
for ((p = 0; p < PLANES; p++)); do
	nsx ip link add "br$p" type bridge stp_state 0 forward_delay 0 ||
		die "cannot create bridge br$p (bridge module?)"
	for ((n = 1; n <= NODES; n++)); do
		nsx ip tuntap add dev "tap$p.$n" mode tap || die "cannot create tap$p.$n"
		nsx ip link set "tap$p.$n" mtu "$HMTU" master "br$p" up ||
			die "cannot attach tap$p.$n"
	done
	nsx ip link set "br$p" mtu "$HMTU" up || die "cannot bring up br$p"
done

# ---------------------------------------------------------------- boot
PDEATH=()
setpriv --help 2>/dev/null | grep -q -- --pdeathsig && PDEATH=(setpriv --pdeathsig KILL --)
# The host's TSC rate, for the guests' tsc_early_khz: a guest that
# calibrates its TSC against the emulated PIT on a loaded host has been
# seen to come up with a twentieth of it (tsc_khz.c), and its every
# timeout then fires twenty times early.  Measured by a helper built
# into the cache; without it (no compiler, not x86) the guests calibrate.
TSC_KHZ=
tsc_helper=$CACHE/tsc_khz-$(stat -c %Y "$FABRIC_DIR/tsc_khz.c")
if [ ! -x "$tsc_helper" ] && mkdir -p "$CACHE" &&
	"${CC:-cc}" -O2 -o "$tsc_helper.$$" "$FABRIC_DIR/tsc_khz.c" 2>/dev/null; then
	mv -f "$tsc_helper.$$" "$tsc_helper"
fi
if [ -x "$tsc_helper" ]; then
	TSC_KHZ=$("$tsc_helper") || TSC_KHZ=
fi
msg "booting $NODES VM(s): kernel $KVER, $PLANES plane(s), MTU $MTU, netns $NETNS, out $OUTDIR, TSC ${TSC_KHZ:+$TSC_KHZ kHz}${TSC_KHZ:-calibrated by the guests}"
declare -A BOOTED=() BOOTS=()	# when each VM's current boot started, boots
boot_node() {
	local n=$1 p args
	# debug-threads: QEMU names its threads ("CPU 0/TCG", ...), so that
	# the host can tell the vCPU from the I/O (bench/hostcpu, top -H).
	args=(-accel tcg -m "$MEM" -smp "$VCPUS" -nodefaults -display none -monitor none
		-name "node$n,debug-threads=on"
		-serial "file:$OUTDIR/console.$n.log" -no-reboot
		-kernel "$KERNEL" -initrd "$INITRD"
		# quiet keeps console loglevel at errors: panics and oopses
		# still show; panic=-1 + -no-reboot makes a panic end QEMU.
		# no_timer_check: on a loaded host TCG can miss the IO-APIC
		# timer check at boot ("IO-APIC + timer doesn't work" panic).
		# tsc=reliable: under TCG the clocksource watchdog cannot time
		# the HPET it checks the TSC against ("hpet read-back delay
		# ... marking unstable") and may move a guest to the HPET for
		# good mid-run, where every clock read (ktime_get, hrtimers)
		# is an emulated MMIO access: that node then runs slower.
		# tsc_early_khz: the host's TSC rate (TSC_KHZ above).
		-append "console=ttyS0 quiet panic=-1 no_timer_check tsc=reliable ${TSC_KHZ:+tsc_early_khz=$TSC_KHZ} ${MRC_APPEND:-} mrcfab.node=$n"
		-fsdev "local,id=r,path=/,security_model=none,readonly=on,multidevs=remap"
		-device "virtio-9p-pci,fsdev=r,mount_tag=hostroot"
		-fsdev "local,id=o,path=$OUTDIR,security_model=none,multidevs=remap"
		-device "virtio-9p-pci,fsdev=o,mount_tag=mrcout")
	# romfile= : no iPXE option ROM, SeaBIOS would spend seconds on it.
	for ((p = 0; p < PLANES; p++)); do
		args+=(-netdev "tap,id=p$p,ifname=tap$p.$n,script=no,downscript=no"
			-device "virtio-net-pci,romfile=,netdev=p$p,mac=$(printf '52:54:00:00:%02x:%02x' "$p" "$n")")
	done
	# ip netns exec and setpriv exec in place, so $! is QEMU's own PID.
	# --pdeathsig: QEMU dies with this script even on SIGKILL.
	ip netns exec "$NETNS" "${PDEATH[@]}" "$QEMU" "${args[@]}" </dev/null >"$OUTDIR/qemu.$n.log" 2>&1 &
	QPID[$n]=$!
	BOOTED[$n]=$(now_ms)
	BOOTS[$n]=$((${BOOTS[$n]:-0} + 1))
}
for ((n = 1; n <= NODES; n++)); do
	boot_node "$n"
done
TBOOT=$(now_ms)

# ---------------------------------------------------------------- wait
declare -A READY=() FIN=()
GO=0
RUNNERS=()
declare -A RUNS=()	# nodes that run COMMAND
for ((n = 1; n <= NODES; n++)); do
	if [ -z "$ONLY" ] || [ "$ONLY" = "$n" ]; then RUNNERS+=("$n"); RUNS[$n]=1; fi
done

# A VM that died without leaving an rc: show why and fail.
vm_died() {
	local n=$1
	# Tells the other guests' barrier/get (lib.sh) not to wait for it.
	: >"$OUTDIR/.fabric/dead.$n"
	msg "node$n: VM exited without a result (panic or setup failure); console tail:"
	tail -n 25 "$OUTDIR/console.$n.log" 2>/dev/null | sed "s/^/  node$n| /" >&2
	[ -s "$OUTDIR/qemu.$n.log" ] && sed "s/^/  node$n qemu| /" "$OUTDIR/qemu.$n.log" >&2
}

# A VM not ready BOOT_TIMEOUT after its boot started: say how far it got;
# boot it again (-r), or stop waiting.  (2026-11-30 and 12-01, debug-kernel
# lane: one node of peers.sh had written nothing after 14 min, and one of
# credit.sh stopped at "tsc: Unable to calibrate against PIT", 0.02 s into
# its boot; their partners were ready in about a minute.  Nothing of mrc
# runs that early: the guest kernel's boot under TCG hung.)
boot_hung() {
	local n=$1 pid=${QPID[$1]}
	msg "node$n: not ready after $BOOT_TIMEOUT s (boot ${BOOTS[$n]} hung?); console tail:"
	tail -n 25 "$OUTDIR/console.$n.log" 2>/dev/null | sed "s/^/  node$n| /" >&2
	if [ "${BOOTS[$n]}" -le "$BOOT_RETRIES" ]; then
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		mv -f "$OUTDIR/console.$n.log" "$OUTDIR/console.$n.hung.${BOOTS[$n]}.log"
		rm -f "$OUTDIR/boot.$n.log" "$OUTDIR/node.$n.out"
		msg "node$n: killed QEMU (pid $pid), booting it again ($((BOOTS[$n])) of $BOOT_RETRIES retries)"
		boot_node "$n"
		return 0
	fi
	: >"$OUTDIR/.fabric/dead.$n"
	return 1
}

# A guest asked for node N's death (.fabric/kill.N; see the header): no
# shutdown, QEMU is killed as a crash or power loss would.
kill_node() {
	local n=$1 pid=${QPID[$1]}
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	FIN[$n]=killed
	echo "$(now_ms)" >"$OUTDIR/.fabric/killed.$n.tmp" &&
		mv -f "$OUTDIR/.fabric/killed.$n.tmp" "$OUTDIR/.fabric/killed.$n"
	msg "node$n: QEMU (pid $pid) killed as requested by a guest (.fabric/kill.$n)"
}

# A guest NIC whose transmit queue stalled (NIC STALL in usage()): the
# guest kernel's watchdog said so twice, or lib.sh's probe once.  Looked
# for every 5 s and when the command has ended.
NEXT_STALL_CHECK=0
nic_stalled() {
	local n p c c2 why
	for ((n = 1; n <= NODES; n++)); do
		c=$(grep -c 'NETDEV WATCHDOG' "$OUTDIR/console.$n.log" 2>/dev/null)
		c2=$(grep -c 'mrc-fabric: eth[0-9]*: NIC STALL' "$OUTDIR/console.$n.log" 2>/dev/null)
		if [ "${c:-0}" -ge 2 ]; then
			why="the guest's NETDEV WATCHDOG, $c times"
		elif [ "${c2:-0}" -ge 1 ]; then
			why="lib.sh's probe found a NIC that completes no transmit"
		else
			continue
		fi
		msg "node$n: a NIC stopped transmitting ($why); a fault of the emulated NIC below mrc, the run is stopped:"
		grep 'NETDEV WATCHDOG\|mrc-fabric: eth[0-9]*: NIC STALL' "$OUTDIR/console.$n.log" |
			tail -n 2 | sed "s/^/  node$n| /" >&2
		for ((p = 0; p < PLANES; p++)); do
			# The host's RX of a tap is what that guest sent.
			nsx ip -s link show "tap$p.$n" 2>&1 | sed "s/^/  host| /" >&2
		done
		echo "$(now_ms)" >"$OUTDIR/.fabric/nicstall.$n"
		return 0
	done
	return 1
}

# At the timeout: ask the guests still running for their blocked tasks
# and kernel logs (see the header), for at most DUMP_WAIT seconds.
DUMP_WAIT=20
dump_guests() {
	local n t end pending
	echo dump >"$OUTDIR/.fabric/dump"
	end=$(($(now_ms) + DUMP_WAIT * 1000))
	while :; do
		pending=()
		for ((n = 1; n <= NODES; n++)); do
			[ -e "$OUTDIR/.fabric/dumped.$n" ] && continue
			kill -0 "${QPID[$n]}" 2>/dev/null || continue
			pending+=("node$n")
		done
		t=$(now_ms)
		[ ${#pending[@]} = 0 ] || [ "$t" -ge "$end" ] && break
		sleep 0.2
	done
	for ((n = 1; n <= NODES; n++)); do
		[ -e "$OUTDIR/.fabric/dumped.$n" ] &&
			msg "node$n: blocked tasks and dmesg saved in $OUTDIR/dmesg.$n.log"
	done
	[ ${#pending[@]} = 0 ] || msg "no dmesg from ${pending[*]} within ${DUMP_WAIT} s"
}

FAIL=0
while :; do
	t=$(now_ms)
	if [ $GO = 1 ] && [ "$t" -ge "$NEXT_STALL_CHECK" ]; then
		NEXT_STALL_CHECK=$((t + 5000))
		nic_stalled && exit 5
	fi
	if [ $GO = 0 ]; then
		for ((n = 1; n <= NODES; n++)); do
			[ -n "${READY[$n]:-}" ] && continue
			if [ -e "$OUTDIR/.fabric/ready.$n" ]; then
				READY[$n]=$t
				msg "node$n ready in $(secs $((t - TBOOT))) s"
			elif [ -e "$OUTDIR/node.$n.rc" ]; then
				# guest-init.sh reports setup failures like a result.
				msg "node$n: guest setup failed:"
				sed "s/^/  node$n| /" "$OUTDIR/node.$n.out" >&2
				exit 1
			elif ! kill -0 "${QPID[$n]}" 2>/dev/null; then
				vm_died "$n"
				exit 1
			elif [ $((t - BOOTED[$n])) -ge $((BOOT_TIMEOUT * 1000)) ]; then
				boot_hung "$n" || exit 124
			fi
		done
		if [ ${#READY[@]} -eq "$NODES" ]; then
			GO=1
			msg "all $NODES node(s) ready in $(secs $((t - TBOOT))) s; running: ${CMD[*]}"
			echo go >"$OUTDIR/.fabric/go.tmp" && mv "$OUTDIR/.fabric/go.tmp" "$OUTDIR/.fabric/go"
		fi
	else
		for ((n = 1; n <= NODES; n++)); do
			[ -n "${FIN[$n]:-}" ] && continue
			if [ -e "$OUTDIR/.fabric/kill.$n" ]; then
				kill_node "$n"
			elif [ -n "${RUNS[$n]:-}" ] && [ -e "$OUTDIR/node.$n.rc" ]; then
				FIN[$n]=$(cat "$OUTDIR/node.$n.rc")
				msg "node$n finished: rc=${FIN[$n]} after $(secs $((t - TBOOT))) s"
			elif ! kill -0 "${QPID[$n]}" 2>/dev/null; then
				# The rc may have landed just before QEMU exited.
				[ -e "$OUTDIR/node.$n.rc" ] && continue
				FIN[$n]=died
				vm_died "$n"
				FAIL=1
			fi
		done
		finished=1
		for n in "${RUNNERS[@]}"; do [ -n "${FIN[$n]:-}" ] || finished=0; done
		[ $finished = 1 ] && break
	fi
	if [ $((t - T0)) -ge $((TIMEOUT * 1000)) ]; then
		late=()
		for ((n = 1; n <= NODES; n++)); do
			if [ $GO = 0 ]; then
				[ -z "${READY[$n]:-}" ] && late+=("node$n(not ready)")
			elif [ -n "${RUNS[$n]:-}" ] && [ -z "${FIN[$n]:-}" ]; then
				late+=("node$n")
			fi
		done
		msg "TIMEOUT after ${TIMEOUT} s; not finished: ${late[*]}"
		[ $GO = 1 ] && dump_guests
		exit 124
	fi
	sleep 0.2
done

# Let guests that wrote their rc power off on their own, briefly, so their
# last console lines land; idle (--only) nodes are told to stop.
echo stop >"$OUTDIR/.fabric/stop"
for t in $(seq 10); do
	alive=0
	for ((n = 1; n <= NODES; n++)); do kill -0 "${QPID[$n]}" 2>/dev/null && alive=1; done
	[ "$alive" = 0 ] && break
	sleep 0.1
done

# A stall found at the very end (lib.sh's probe runs after the test).
nic_stalled && exit 5
for n in "${RUNNERS[@]}"; do
	[ "${FIN[$n]}" = 0 ] || [ "${FIN[$n]}" = killed ] || FAIL=1
done
msg "done in $(secs $(($(now_ms) - T0))) s: $([ $FAIL = 0 ] && echo PASS || echo FAIL)"
exit $FAIL
