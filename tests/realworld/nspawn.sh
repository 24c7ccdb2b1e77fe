# A systemd booted in a container over the machine's own installed system,
# for test_units.sh: source it, don't run it.
# shellcheck shell=bash
#
# systemd-nspawn --boot over an overlayfs whose lower layer is / and whose
# upper layer is a tmpfs: the container runs the machine's own units and
# programs, and whatever it or the test writes lands in the tmpfs, gone
# with it.  It has a network of its own (its loopback only: the units' fixed
# ports clash with nothing on the machine), boots into basic.target (nothing
# the machine enables starts unasked), and systemd is its PID 1 whatever the
# machine's own PID 1 is.  Everything inside is run with nsenter into all of
# its namespaces (ct), with a clean environment.
#
#   nspawn_mount           the tmpfs and the overlay: sets nspawn_work (the
#                          tmpfs: nspawn_work/root is the container's /,
#                          writable before the boot)
#   nspawn_boot NAME       boots it as machine NAME, waits until systemd says
#                          running or degraded (60 s at most): sets nspawn_pid
#                          (systemd-nspawn) and nspawn_leader (its systemd)
#   ct COMMAND...          COMMAND inside
#   nspawn_cleanup         the container stopped (SIGTERM: its systemd shuts
#                          down; killed after 20 s), the mounts gone; safe at
#                          any point, and twice
# nspawn_mount and nspawn_boot call the caller's skip() with one line saying
# why when the machine cannot do it (no overlayfs, nspawn cannot boot).

nspawn_work='' nspawn_pid='' nspawn_leader='' nspawn_machine=''
nspawn_env=(env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	HOME=/root LANG=C.UTF-8 TERM=dumb)

ct() { nsenter -t "$nspawn_leader" -a "${nspawn_env[@]}" "$@"; }

nspawn_mount() {
	nspawn_work=$(mktemp -d /tmp/cyclock-nspawn.XXXXXX) || exit 1
	mount -t tmpfs -o mode=755 tmpfs "$nspawn_work" || skip "cannot mount a tmpfs on $nspawn_work"
	mkdir "$nspawn_work/upper" "$nspawn_work/ovl" "$nspawn_work/root"
	mount -t overlay overlay -o "lowerdir=/,upperdir=$nspawn_work/upper,workdir=$nspawn_work/ovl" \
		"$nspawn_work/root" || skip "cannot mount an overlayfs over / (lowerdir=/, a tmpfs above)"
}

# The console's last line that says something, for a skip's reason.
nspawn_said() { grep -v '^[[:space:]]*$' "$nspawn_work/console.log" | tail -1; }

nspawn_boot() {
	local keep=() i state=''
	nspawn_machine=$1
	# Where no systemd is PID 1, none can make the container a scope of
	# its own: it stays in the caller's.
	[[ -d /run/systemd/system ]] || keep=(--keep-unit)
	systemd-nspawn -D "$nspawn_work/root" --boot --register=no "${keep[@]}" --link-journal=no \
		--private-network -M "$nspawn_machine" --console=read-only -- systemd.unit=basic.target \
		</dev/null >"$nspawn_work/console.log" 2>&1 &
	nspawn_pid=$!
	for ((i = 0; i < 600; i++)); do
		kill -0 "$nspawn_pid" 2>/dev/null || skip "systemd-nspawn cannot boot here: $(nspawn_said)"
		[[ -n $nspawn_leader ]] || nspawn_leader=$(pgrep -P "$nspawn_pid" -x systemd | head -1)
		if [[ -n $nspawn_leader ]]; then
			state=$(ct systemctl is-system-running 2>/dev/null)
			[[ $state == running || $state == degraded ]] && return 0
		fi
		sleep 0.1
	done
	skip "the container did not boot in 60 s (${state:-no systemd}): $(nspawn_said)"
}

nspawn_cleanup() {
	local i
	if [[ -n $nspawn_pid ]] && kill -0 "$nspawn_pid" 2>/dev/null; then
		kill -TERM "$nspawn_pid" 2>/dev/null
		for ((i = 0; i < 200; i++)); do
			kill -0 "$nspawn_pid" 2>/dev/null || break
			sleep 0.1
		done
		if kill -0 "$nspawn_pid" 2>/dev/null; then
			echo "the container did not stop in 20 s: killed"
			[[ -n $nspawn_leader ]] && kill -KILL "$nspawn_leader" 2>/dev/null
			kill -KILL "$nspawn_pid" 2>/dev/null
		fi
		wait "$nspawn_pid" 2>/dev/null
	fi
	nspawn_pid=''
	if [[ -n $nspawn_work ]]; then
		if mountpoint -q "$nspawn_work/root"; then
			umount "$nspawn_work/root" 2>/dev/null || umount -l "$nspawn_work/root"
		fi
		if mountpoint -q "$nspawn_work"; then
			umount "$nspawn_work" 2>/dev/null || umount -l "$nspawn_work"
		fi
		rmdir "$nspawn_work" 2>/dev/null
		nspawn_work=''
	fi
	# What systemd-nspawn leaves where /run is not a tmpfs (it removes
	# nothing recursively on a disk's file system).
	[[ -z $nspawn_machine ]] || rmdir "/run/systemd/nspawn/propagate/$nspawn_machine" 2>/dev/null
	return 0
}
