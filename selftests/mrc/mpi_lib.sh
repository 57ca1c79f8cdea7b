# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# mpi_lib.sh - Open MPI across the VM fabric's guests, for mpi.sh and
# bench/mpi (sourced in the guests, after lib.sh).  Node 1 runs mpirun;
# the other nodes run Debian's sshd on their plane-0 address with a host
# key made in the guest, accepting only the key node 1 made for the run
# (its public half passes through the fabric's shared folder, the private
# half stays in node 1's /tmp).  mpirun starts the remote ranks over ssh.
#
#   mpi_launch_setup    every node: the key (node 1), sshd (the others);
#                       returns once every sshd listens (TAP results)
#   mpirun_on NODES TRANSPORT ARGS...   node 1: mpirun, MPI_PPN ranks
#                       (default 1) on each of nodes 1..NODES, placed
#                       round-robin by node, over TRANSPORT (mrc, ucx, ucx1,
#                       tcp, tcp2),
#                       stopped after MPI_TMO seconds (exit status 124)
#   mpi_launch_stop     every node: stop this node's sshd

MPI_KEY=/tmp/mpi_id
MPI_PY=/usr/bin/python3	# Debian's, where python3-mpi4py is (not a PATH one)

# ssh as mpirun's remote launcher: node 1's key, no host key memory.
MPI_SSH="ssh -i $MPI_KEY -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o ConnectTimeout=30"

# The MCA parameters of each transport.  mrc: the ofi MTL on the mrc
# provider under pml cm; the TCP BTL is not loaded, so MPI data cannot go
# anywhere but mrc; the provider's warnings (failed sends, dropped
# messages) go to the ranks' stderr.  ucx: UCX on rxe0, RC (UCX_TLS=rc:
# RC, with UD for its wire-up), the RoCEv2 IPv4 GID (lib.sh's
# gid_index), plane 0 only; ucx1: the same on rxe1 (plane 1, the one the
# plane-cut loop takes down).  UCX's UD drops every datagram on rxe
# unless UCX_UD_VERBS_ETH_DGID_CHECK=n: with the check (the default) the
# wire-up never completes and every rank aborts at start-up with "UD
# endpoint ... unhandled timeout error" (ucx_perftest between two guests
# shows the same, tag_lat over ud_verbs and over rc alike; with the check
# off both run).  tcp: the ob1 PML over the TCP BTL on eth0; tcp2: the
# same on eth0 and eth1 (the BTL spreads a peer's messages over both
# interfaces).
mpi_transport_args() {
	case $1 in
	mrc) echo "--mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include mrc --mca btl self -x FI_LOG_LEVEL=warn" ;;
	ucx|ucx1)
		local dev=rxe0
		[ "$1" = ucx1 ] && dev=rxe1
		echo "--mca pml ucx --mca btl self -x UCX_NET_DEVICES=$dev:1 -x UCX_TLS=rc,self -x UCX_IB_GID_INDEX=$(gid_index $dev) -x UCX_UD_VERBS_ETH_DGID_CHECK=n" ;;
	tcp) echo "--mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include eth0" ;;
	tcp2) echo "--mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include eth0,eth1" ;;
	*) return 1 ;;
	esac
}

mpirun_on() {
	local nodes=$1 tr=$2 hosts='' n ppn=${MPI_PPN:-1}
	local -a targs
	shift 2
	read -ra targs <<< "$(mpi_transport_args "$tr")" || return 2
	for ((n = 1; n <= nodes; n++)); do
		hosts+="${hosts:+,}$(node_ip $n 0):$ppn"
	done
	timeout "${MPI_TMO:-600}" mpirun --allow-run-as-root -np $((nodes * ppn)) \
		--host "$hosts" --map-by node \
		--mca plm_rsh_agent "$MPI_SSH" --mca oob_tcp_if_include eth0 \
		"${targs[@]}" "$@"
}

# _mpi_sshd: Debian's sshd on this node's plane-0 address, in the
# foreground (MPI_SSHD_PID is ours to stop), taking node 1's key only.
_mpi_sshd() {
	mkdir -p /run/sshd &&
	ssh-keygen -q -t ed25519 -N '' -f /tmp/ssh_host_ed25519_key &&
	cat > /tmp/sshd_config <<-EOF
	ListenAddress $(node_ip "$MRC_NODE" 0)
	HostKey /tmp/ssh_host_ed25519_key
	AuthorizedKeysFile $MRC_SHARED/mpi_id.pub
	PermitRootLogin prohibit-password
	PasswordAuthentication no
	KbdInteractiveAuthentication no
	UsePAM no
	StrictModes no
	PidFile /tmp/sshd.pid
	EOF
	/usr/sbin/sshd -D -e -f /tmp/sshd_config > /tmp/sshd.log 2>&1 &
	MPI_SSHD_PID=$!
}

mpi_launch_setup() {
	if is_node 1; then
		ok 'ssh-keygen: a key for this run' \
			ssh-keygen -q -t ed25519 -N '' -f $MPI_KEY
		ok 'its public half into the shared folder' \
			sh -c "cp $MPI_KEY.pub '$MRC_SHARED/mpi_id.pub.tmp' &&
			       mv '$MRC_SHARED/mpi_id.pub.tmp' '$MRC_SHARED/mpi_id.pub'"
	fi
	barrier mpi-key 120
	if ! is_node 1; then
		ok "sshd on $(node_ip "$MRC_NODE" 0):22" _mpi_sshd
		wait_for 'sshd listening' 60 \
			sh -c "ss -ltn | grep -q '$(node_ip "$MRC_NODE" 0):22 '"
	fi
	barrier mpi-sshd-up 120
}

mpi_launch_stop() {
	[ -n "${MPI_SSHD_PID:-}" ] || return 0
	kill "$MPI_SSHD_PID"
	wait "$MPI_SSHD_PID" 2>/dev/null
	MPI_SSHD_PID=
}
