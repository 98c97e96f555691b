#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test/bench-passt.sh - passt mode in the benchmark: iperf3 from a QEMU
# guest to R and back, through ./passt and through Debian's passt
#
# Usage, as root from the top directory after `make` and test/guest/build.sh:
#
#   test/bench-passt.sh            table on stdout and in $BENCH_PASST_OUT
#   test/bench-passt.sh --quick    1 run of 3 s per direction; TAP output;
#                                  asserts only that ours produced numbers
#                                  (what Debian's passt did is a note)
#
# Topology: test/lib.sh's H and R joined by a veth (RTT 0); `iperf3 -s` on
# 198.51.100.1 in R, restarted for each tool.  For each tool in
# BENCH_PASST_TOOLS, in order:
#   ours         ./passt         -f -s SOCK  $OURS_PASST_OPTS
#   debian       /usr/bin/passt  -f -e -s SOCK  $DEBIAN_PASST_OPTS
#   ours-vu      ./passt         -f --vhost-user -s SOCK  $OURS_PASST_OPTS
#   upstream     upstream's newest (test/upstream, Debian unstable's,
#                fetched by test/sid-passt.sh)  -f -e -s SOCK
#   upstream-vu  the same with --vhost-user
# (the -vu ones: QEMU's -netdev vhost-user on a shared memfd, vectors=0 on
# the NIC: Debian 12's QEMU crashes under TCG with MSI-X there)
# the tool runs as root in H (upstream passt then drops to nobody by itself)
# and one QEMU guest boots against it: the same kernel and initramfs
# (test/guest, doc/passt-guest.md), TCG, 1 vCPU, 256 MiB, virtio-net-pci on
# `-netdev stream`, exactly as test/95-passt-qemu.t boots it.  The guest gets
# its lease from the tool by DHCP, then test/guest/tests/bench-iperf3.sh
# runs BENCH_PASST_RUNS rounds of `iperf3 -c 198.51.100.1 -t SECS -J`,
# upload then download (-R), and prints each run's receiver-side rate and
# byte count on the serial console (PT-BENCH lines).  Meanwhile this script
# polls the console and reads the tool's utime+stime (/proc/PID/stat) at
# every transfer's start and end marker (the guest idles 1 s after each),
# and its VmHWM; after the guest powered off it reads them once more, then
# stops the tool with SIGTERM.
#
# If the tool dies on its own (its PID vanishes before we stop it), the run
# is recorded as "crashed: SIGSEGV" (or "exited N"), with the kernel's
# segfault line if dmesg has one, QEMU is killed at once and the next tool
# runs.  Everything is bounded: the tool's socket must appear within 10 s,
# each iperf3 in the guest is killed SECS+20 s after it starts, and QEMU
# after 60 s + RUNS * 2 * (SECS + 25) s.
#
# Report, per tool and direction: median, min and max Mbit/s over the runs,
# ours/debian (ratio of the medians), the tool's CPU seconds per GB moved
# (utime+stime during the transfers / receiver bytes, 10^9 bytes per GB),
# its peak RSS (VmHWM) and a status: "ok", "crashed: SIGSEGV during up run
# 1", "exited N ...", "guest got no DHCP lease", "not installed (PATH)"...
# The guest runs under TCG (one emulated vCPU), which caps both tools.  The
# report also gives each run's rate, the machine's state (CPU time used by
# other processes during each tool's run: the machine is shared) and facts.
# A markdown table goes to stdout (--quick: as TAP comments), the table
# with details and facts to $BENCH_PASST_OUT.  Exit status: 0 if ours
# produced numbers both ways (--quick: the number of failed TAP tests).
#
# Environment (defaults in brackets; --quick changes those marked *):
#   BENCH_PASST_SECS*   iperf3 -t [10]; --quick: 3
#   BENCH_PASST_RUNS*   rounds (one upload, one download each) [3]; --quick: 1
#   BENCH_PASST_TOOLS   ["ours debian"]
#   BENCH_PASST_OUT*    the markdown report [/tmp/bench-passt.md];
#                       --quick: /tmp/bench-passt-quick.md
#   BENCH_PASST_STREAMS parallel streams per transfer (iperf3 -P) [1]
#   BENCH_PASST_QUIET   wait up to this many seconds before each tool for
#                       the machine to be idle (both CPUs under 15 % busy
#                       over 2 s), e.g. while another benchmark runs [0]
#   PASST [./passt]  DEBIAN_PASST [/usr/bin/passt]  QEMU [qemu-system-x86_64]
#   OURS_PASST_OPTS, DEBIAN_PASST_OPTS  extra options (word-split), e.g.
#                       DEBIAN_PASST_OPTS=-d to see Debian's debug crash
#   KEEP_WORK=1         keep $WORK: consoles, tool logs, samples

# What the caller set, for the record
BP_ENV=$(env | grep -E '^(BENCH_PASST_[A-Z]*|PASST|DEBIAN_PASST|QEMU|OURS_PASST_OPTS|DEBIAN_PASST_OPTS)=' |
	 sort | sed "s/=\(.*\)/='\1'/" | tr '\n' ' ')
BP_ARGS="$*"

# shellcheck source=test/lib.sh
. "$(dirname "$0")/lib.sh"

quick_arg "$@"

if [ $QUICK = 1 ]; then
	BENCH_PASST_SECS=${BENCH_PASST_SECS:-3}
	BENCH_PASST_RUNS=${BENCH_PASST_RUNS:-1}
	BENCH_PASST_OUT=${BENCH_PASST_OUT:-/tmp/bench-passt-quick.md}
fi
BENCH_PASST_SECS=${BENCH_PASST_SECS:-10}
BENCH_PASST_RUNS=${BENCH_PASST_RUNS:-3}
BENCH_PASST_TOOLS=${BENCH_PASST_TOOLS:-ours debian}
BENCH_PASST_OUT=${BENCH_PASST_OUT:-/tmp/bench-passt.md}
BENCH_PASST_QUIET=${BENCH_PASST_QUIET:-0}
BENCH_PASST_STREAMS=${BENCH_PASST_STREAMS:-1}
PASST=${PASST:-$TOPDIR/passt}
DEBIAN_PASST=${DEBIAN_PASST:-/usr/bin/passt}
QEMU=${QEMU:-qemu-system-x86_64}
GAP=1			# guest's idle seconds around each transfer
HZ=$(getconf CLK_TCK)
START=$(date +%s)

case "$BENCH_PASST_SECS$BENCH_PASST_RUNS" in
*[!0-9]*) echo "bench-passt.sh: BENCH_PASST_SECS and _RUNS are integers" >&2
	  exit 2 ;;
esac

# --- output ---------------------------------------------------------------------

die() {
	if [ $QUICK = 1 ]; then
		echo "Bail out! $*"
	else
		echo "bench-passt.sh: $*" >&2
	fi
	exit 1
}

# tap RC DESC - a TAP test in --quick mode, nothing otherwise
tap() {
	[ $QUICK = 1 ] || return "$1"
	ok "$@"
}

# --- checks --------------------------------------------------------------------------

if [ "$(id -u)" != 0 ]; then
	[ $QUICK = 1 ] && skip_all "must run as root (creates network namespaces)"
	die "must run as root (creates network namespaces)"
fi
command -v "$QEMU" >/dev/null || die "$QEMU missing (apt-get install qemu-system-x86)"
command -v iperf3 >/dev/null || die "iperf3 missing"
for t in $BENCH_PASST_TOOLS; do
	case $t in
	ours|debian|ours-vu) ;;
	upstream|upstream-vu)
		"$TESTDIR/sid-passt.sh" >/dev/null ||
			die "no upstream binaries for '$t' (test/sid-passt.sh)" ;;
	*) die "unknown tool '$t' in BENCH_PASST_TOOLS (ours, debian, ours-vu, upstream, upstream-vu)" ;;
	esac
done

lib_init
if [ $QUICK = 1 ]; then
	n=2
	for t in $BENCH_PASST_TOOLS; do
		case $t in
		ours) n=$((n + 3)) ;;
		*) n=$((n + 1)) ;;
		esac
	done
	plan $n
fi

# --- machine state -----------------------------------------------------------------------

# cpu_busy - percent of all CPUs busy (not idle/iowait) over the next 2 s
cpu_busy() {
	local a b
	a=$(awk '/^cpu / { printf "%.0f %.0f\n", $2+$3+$4+$7+$8+$9, $5+$6 }' /proc/stat)
	sleep 2
	b=$(awk '/^cpu / { printf "%.0f %.0f\n", $2+$3+$4+$7+$8+$9, $5+$6 }' /proc/stat)
	awk -v a="$a" -v b="$b" 'BEGIN { split(a, x); split(b, y)
		busy = y[1] - x[1]; all = busy + y[2] - x[2]
		printf "%.0f\n", (all > 0) ? 100 * busy / all : 0 }'
}

# wait_quiet - up to BENCH_PASST_QUIET s for the machine to be idle; the
# last measurement in BUSY
wait_quiet() {
	local deadline=$(( $(date +%s) + BENCH_PASST_QUIET ))
	BUSY=$(cpu_busy)
	while [ "$BUSY" -ge 15 ] && [ "$(date +%s)" -lt "$deadline" ]; do
		sleep 3
		BUSY=$(cpu_busy)
	done
}

steal_ticks() { awk '/^cpu / { print $9 }' /proc/stat; }

# busy_ticks - user+nice+system+irq+softirq of all CPUs so far
busy_ticks() { awk '/^cpu / { printf "%.0f\n", $2 + $3 + $4 + $7 + $8 }' /proc/stat; }

# times_ticks FILE - this shell's and its reaped children's CPU time, in
# ticks, from the output of the `times` builtin saved in FILE
times_ticks() {
	awk -v hz="$HZ" '{ for (i = 1; i <= NF; i++) {
				split($i, p, "m"); sub(/s$/, "", p[2])
				t += p[1] * 60 + p[2] } }
		END { printf "%.0f\n", t * hz }' "$1"
}

# --- guest image, topology ------------------------------------------------------------------

t0=$(date +%s)
if IMG=$("$TESTDIR/guest/build.sh" 2>"$WORK/build.log"); then
	tap 0 "guest kernel and initramfs ready ($(($(date +%s) - t0)) s)"
else
	tap 1 "guest kernel and initramfs ready"
	diag_file "$WORK/build.log"
	die "no guest image (test/guest/build.sh failed)"
fi
KERNEL=$(echo "$IMG" | tail -n 2 | head -n 1)
INITRD=$(echo "$IMG" | tail -n 1)
GUEST_KVER=$(cat "$(dirname "$KERNEL")/kernel/version" 2>/dev/null)

if topo_create; then
	tap 0 "topology: H and R, veth, $SRV_ADDR in R"
else
	tap 1 "topology"
	die "topology"
fi

BIOS=()
[ -f /usr/share/qemu/qboot.rom ] && BIOS=(-bios /usr/share/qemu/qboot.rom)
QEMU_SECS=$((60 + BENCH_PASST_RUNS * 2 * (BENCH_PASST_SECS + 25)))

# iperf_server - (re)start iperf3 -s in R
IPERF_PID=
iperf_server() {
	[ -n "$IPERF_PID" ] && kill_pid "$IPERF_PID"
	bg_r "iperf3-$1" iperf3 -s -B "$SRV_ADDR"
	IPERF_PID=$BG_PID
	wait_tcp "$NS_R" 5201
}

# --- one tool -----------------------------------------------------------------------------

# shortpath PATH - ./NAME for files in the top directory
shortpath() {
	case $1 in
	"$TOPDIR"/*) echo "./${1#"$TOPDIR"/}" ;;
	*) echo "$1" ;;
	esac
}

# ticks PID - utime + stime of PID in clock ticks (fields 14 and 15, counted
# after the ")" that ends comm), nothing if it is gone; builtins only
ticks() {
	local st a
	read -r st 2>/dev/null <"/proc/$1/stat" || return 1
	# shellcheck disable=SC2206
	a=(${st##*) })
	echo $((a[11] + a[12]))
}

# hwm PID - VmHWM in kB
hwm() {
	local k v
	while read -r k v _; do
		[ "$k" = VmHWM: ] && { echo "$v"; return 0; }
	done 2>/dev/null <"/proc/$1/status"
	return 1
}

# run_tool TOOL - boot the guest against TOOL; results in $WORK/TOOL.*:
#   .console (serial), .log (the tool's stderr), .marks ("start|end DIR N
#   TICKS" per marker), and .status: key=value lines (status, ticks, hwm,
#   secs, busy, steal, lease)
run_tool() {
	local tool=$1 bin opts=() sock pid qpid line buf='' fd rc status=''
	local cons=$WORK/$tool.console marks=$WORK/$tool.marks t0 t1 st0 last_hwm=''
	local b0 b1 p0 p1 i0 i1 last_tk='' dir n qemu_killed=''
	local tk hw sig net

	case $tool in
	ours|ours-vu)	bin=$PASST
		# shellcheck disable=SC2206
		opts=(-f ${OURS_PASST_OPTS:-}) ;;
	debian)	bin=$DEBIAN_PASST
		# shellcheck disable=SC2206
		opts=(-f -e ${DEBIAN_PASST_OPTS:-}) ;;
	upstream*)	bin=$TESTDIR/upstream
		opts=(passt -f -e) ;;
	esac
	case $tool in
	*-vu)	opts+=(--vhost-user) ;;
	esac
	: >"$marks"
	: >"$cons"
	: >"$WORK/$tool.status"
	rec() { echo "$*" >>"$WORK/$tool.status"; }
	if [ ! -x "$bin" ]; then
		rec "status=not installed ($bin)"
		return 1
	fi

	wait_quiet
	rec "busy=$BUSY"
	iperf_server "$tool" || { rec "status=iperf3 server did not start"; return 1; }

	sock=$WORK/u/$tool.sock
	ip netns exec "$NS_H" "$bin" "${opts[@]}" -s "$sock" \
		>"$WORK/$tool.log" 2>&1 </dev/null &
	pid=$!
	_PIDS+=("$pid")
	rec "cmd=$(shortpath "$bin") ${opts[*]} -s SOCK"
	if ! _poll 10 test -S "$sock"; then
		if kill -0 "$pid" 2>/dev/null; then
			rec "status=no socket after 10 s"
		else
			wait "$pid"
			rec "status=exited $? before listening"
		fi
		return 1
	fi
	rec "comm=$(cat "/proc/$pid/comm" 2>/dev/null)"
	rec "listening=1"

	# shellcheck disable=SC2054  # commas within QEMU's option values
	case $tool in
	*-vu)	net=(-object memory-backend-memfd,id=mem,size=256M,share=on
		     -numa node,memdev=mem -chardev "socket,id=c0,path=$sock"
		     -netdev vhost-user,id=n0,chardev=c0
		     -device virtio-net-pci,netdev=n0,romfile=,vectors=0) ;;
	*)	net=(-netdev "stream,id=n0,server=off,addr.type=unix,addr.path=$sock"
		     -device virtio-net-pci,netdev=n0,romfile=) ;;
	esac
	: >"$cons"	# opened for reading before QEMU writes to it
	t0=$(date +%s.%N)
	st0=$(steal_ticks)
	# For the CPU time of everything else on the machine during the run:
	# all busy time minus the tool's, iperf3 server's, QEMU's and ours
	b0=$(busy_ticks)
	p0=$(ticks "$pid")
	i0=$(ticks "$IPERF_PID")
	times >"$WORK/$tool.times0"
	ip netns exec "$NS_H" timeout -k 5 "$QEMU_SECS" "$QEMU" -accel tcg \
		"${BIOS[@]}" -m 256 -nographic -nodefaults -serial stdio \
		-monitor none -no-reboot \
		-kernel "$KERNEL" -initrd "$INITRD" \
		-append "console=ttyS0 quiet panic=-1 pt.test=bench-iperf3 pt.srv=$SRV_ADDR pt.secs=$BENCH_PASST_SECS pt.runs=$BENCH_PASST_RUNS pt.gap=$GAP pt.streams=$BENCH_PASST_STREAMS" \
		"${net[@]}" </dev/null >"$cons" 2>"$WORK/$tool.qemu.err" &
	qpid=$!
	_PGIDS+=("$qpid")

	# Follow the console (builtins: read on the open file, partial
	# lines kept in buf) until QEMU exits or the tool dies
	exec {fd}<"$cons"
	while :; do
		while IFS= read -r line <&"$fd"; do
			line=$buf$line
			line=${line%$'\r'}
			buf=
			case $line in
			"PT-BENCH start "*|"PT-BENCH end "*)
				tk=$(ticks "$pid") && last_tk=$tk
				hw=$(hwm "$pid") && last_hwm=$hw
				# shellcheck disable=SC2086
				set -- $line
				echo "$2 $3 $4 ${tk:-gone}" >>"$marks"
				say "$tool: $3 $4 $2"
				;;
			"PT-BENCH result "*|"PT-BENCH fail "*)
				say "$tool: ${line#PT-BENCH }" ;;
			"PT-LEASE "*)
				say "$tool: ${line#PT-}" ;;
			esac
		done
		buf=$buf$line
		if ! kill -0 "$pid" 2>/dev/null; then
			{ wait "$pid"; } 2>/dev/null
			rc=$?
			if [ $rc -gt 128 ] && sig=$(kill -l $((rc - 128)) 2>/dev/null); then
				status="crashed: SIG$sig"
			else
				status="exited $rc"
			fi
			# Where: the guest's last marker
			read -r line dir n _ < <(tail -n 1 "$marks")
			case $line in
			start) status="$status during $dir run $n" ;;
			end) status="$status after $dir run $n" ;;
			*) status="$status before the first transfer" ;;
			esac
			say "$tool: $bin $status, stopping QEMU"
			kill -TERM -- "-$qpid" 2>/dev/null
			wait "$qpid" 2>/dev/null
			break
		fi
		kill -0 "$qpid" 2>/dev/null || { wait "$qpid"; rc=$?; break; }
		sleep 0.2
	done
	exec {fd}<&-
	t1=$(date +%s.%N)
	b1=$(busy_ticks)
	p1=$(ticks "$pid") || p1=$last_tk
	i1=$(ticks "$IPERF_PID")
	times >"$WORK/$tool.times1"
	rec "other_cpu=$(awk -v b="$((b1 - b0))" -v p="$((${p1:-$p0} - p0))" \
		-v i="$((${i1:-$i0} - i0))" -v t0="$(times_ticks "$WORK/$tool.times0")" \
		-v t1="$(times_ticks "$WORK/$tool.times1")" -v s="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
		-v hz="$HZ" 'BEGIN { o = b - p - i - (t1 - t0); if (o < 0) o = 0
				     printf "%.0f", 100 * o / hz / s }')"
	rec "secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')"
	rec "steal=$(awk -v a="$st0" -v b="$(steal_ticks)" -v hz="$HZ" 'BEGIN { printf "%.1f", (b - a) / hz }')"

	if [ -z "$status" ]; then
		[ "$rc" = 124 ] || [ "$rc" = 137 ] && qemu_killed=1
		rec "ticks=$(ticks "$pid")"
		hw=$(hwm "$pid") && last_hwm=$hw
		rec "hwm=$last_hwm"
		kill -TERM "$pid" 2>/dev/null
		if wait_gone "$pid" 5; then
			wait "$pid"
			rec "term_rc=$?"
			status=ok
		else
			kill -KILL "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			status="ok (did not exit on SIGTERM within 5 s: killed)"
		fi
	else
		rec "hwm=$last_hwm"
		line=$(dmesg 2>/dev/null | grep -a "\[$pid\]: segfault" | tail -n 1)
		[ -n "$line" ] && rec "dmesg=${line#*] }"
	fi
	# What the guest saw, when the tool survived
	if [ "${status%% *}" = ok ]; then
		n=$(grep -ac '^PT-BENCH fail' "$cons")
		if [ -n "${qemu_killed:-}" ]; then
			status="guest timed out (QEMU killed after $QEMU_SECS s)"
		elif grep -aq '^PT-RESULT fail dhcp' "$cons"; then
			status="guest got no DHCP lease"
		elif ! grep -aq '^PT-DONE' "$cons"; then
			status="guest did not finish (QEMU exit status $rc)"
		elif [ "$n" -gt 0 ]; then
			status="$status; $n transfers failed in the guest"
		fi
	fi
	rec "status=$status"
	{
		grep -a '^PT-LEASE' "$cons" | tr -d '\r' | tail -n 1 |
			sed 's/^PT-LEASE /lease=/'
		grep -a '^PT-DONE\|^PT-RESULT' "$cons" | tr -d '\r' | sed 's/^/guest=/'
	} >>"$WORK/$tool.status"
	return 0
}

# val TOOL KEY - a value from $WORK/TOOL.status
val() { sed -n "s/^$2=//p" "$WORK/$1.status" 2>/dev/null | tail -n 1; }

# runs TOOL DIR - "mbps bytes ticks retr stalled_s" per run with a result
runs() {
	local tool=$1 dir=$2
	tr -d "\r" 2>/dev/null <"$WORK/$tool.console" |
	awk -v dir="$dir" -v marks="$WORK/$tool.marks" '
		BEGIN { while ((getline l < marks) > 0) {
				split(l, m, " ")
				t[m[1] " " m[2] " " m[3]] = m[4] } }
		$1 == "PT-BENCH" && $2 == "result" && $3 == dir {
			n = $4
			delete kv
			for (i = 5; i <= NF; i++) {
				split($i, p, "="); kv[p[1]] = p[2] }
			s = t["start " dir " " n]; e = t["end " dir " " n]
			tk = (s != "" && e != "" && s != "gone" && e != "gone") ? e - s : "-"
			print kv["mbps"], kv["bytes"], tk,
			      ("retr" in kv) ? kv["retr"] : "?",
			      ("stalled_s" in kv) ? kv["stalled_s"] : "?" }'
}

# fails TOOL DIR - the guest's failure lines for DIR
fails() {
	tr -d "\r" 2>/dev/null <"$WORK/$1.console" |
		sed -n "s/^PT-BENCH fail $2 //p"
}

# stats TOOL DIR - "n median min max cpu_s_per_gb list" ("-" if none)
stats() {
	runs "$1" "$2" | awk -v hz="$HZ" '
		{ v[NR] = $1; b += $2; if ($3 == "-") bad = 1; else tk += $3
		  list = list (NR > 1 ? " " : "") sprintf("%.0f", $1) }
		END {
			n = NR
			if (!n) { print 0, "-", "-", "-", "-", "-"; exit }
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
				if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
			med = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
			cpu = (!bad && b > 0) ? sprintf("%.2f", tk / hz / (b / 1e9)) : "-"
			printf "%d %.0f %.0f %.0f %s %s\n", n, med, v[1], v[n], cpu, list }'
}

# --- run ------------------------------------------------------------------------------------

declare -A TOOL_SECS
for tool in $BENCH_PASST_TOOLS; do
	say "$tool: booting the guest (${BENCH_PASST_RUNS} x ${BENCH_PASST_SECS} s each way)"
	t0=$(date +%s)
	run_tool "$tool"
	TOOL_SECS[$tool]=$(($(date +%s) - t0))
	o=$(val "$tool" other_cpu)
	say "$tool: $(val "$tool" status) (${TOOL_SECS[$tool]} s${o:+; other processes used $o % of a CPU meanwhile})"
	[ "$(val "$tool" busy)" -ge 15 ] 2>/dev/null &&
		say "$tool: note: machine was $(val "$tool" busy) % busy before the run"
done
kill_pid "$IPERF_PID"

# --- report ---------------------------------------------------------------------------------

label() {
	case $1 in
	ours) echo "ours (\`$(shortpath "$PASST")\`)" ;;
	ours-vu) echo "ours, vhost-user" ;;
	debian) echo "Debian (\`$DEBIAN_PASST\`)" ;;
	upstream) echo "upstream $(upstream_version)" ;;
	upstream-vu) echo "upstream $(upstream_version), vhost-user" ;;
	esac
}

# upstream_version - the version of upstream's newest, as its package says
upstream_version() {
	"$TESTDIR/upstream" passt --version 2>/dev/null | head -n 1 |
		awk '{ print $2 }'
}

# ratio A B DIR - A's median over B's for a direction, "-" without both
ratio() {
	local a=${MED[$1.$3]:-} b=${MED[$2.$3]:-}

	if [ -n "$a" ] && [ -n "$b" ] && [ "$b" != 0 ]; then
		awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }'
	else
		echo -
	fi
}

# vu_table - vhost-user against the stream socket and against upstream's
vu_table() {
	[[ " $BENCH_PASST_TOOLS " = *" ours-vu "* ]] || return 0
	echo "| direction | ours vhost-user / ours stream | ours vhost-user / upstream vhost-user | ours vhost-user / upstream stream |"
	echo "|---|---|---|---|"
	for dir in up down; do
		echo "| $(dirname_of "$dir") | $(ratio ours-vu ours "$dir") | $(ratio ours-vu upstream-vu "$dir") | $(ratio ours-vu upstream "$dir") |"
	done
}
dirname_of() {
	case $1 in
	up) echo "upload (guest → R)" ;;
	down) echo "download (R → guest)" ;;
	esac
}

declare -A MED
for tool in $BENCH_PASST_TOOLS; do
	for dir in up down; do
		read -r n med _ <<<"$(stats "$tool" "$dir")"
		[ "$n" -gt 0 ] && MED[$tool.$dir]=$med
	done
done

table() {
	local tool dir n med min max cpu list ratio hw rss
	echo "| tool | direction | runs | Mbit/s median | min | max | ours/Debian | CPU s/GB | peak RSS MiB | status |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	for tool in $BENCH_PASST_TOOLS; do
		hw=$(val "$tool" hwm)
		rss=-
		[ -n "$hw" ] && rss=$(awk -v k="$hw" 'BEGIN { printf "%.1f", k / 1024 }')
		for dir in up down; do
			read -r n med min max cpu list <<<"$(stats "$tool" "$dir")"
			ratio=-
			if [ "$tool" = ours ] && [ -n "${MED[ours.$dir]:-}" ]; then
				ratio=$(ratio ours debian "$dir")
				[ "$ratio" = - ] &&
					[[ " $BENCH_PASST_TOOLS " = *" debian "* ]] &&
					ratio="n/a (Debian: no numbers)"
			fi
			echo "| $(label "$tool") | $(dirname_of "$dir") | $n/$BENCH_PASST_RUNS | $med | $min | $max | $ratio | $cpu | $rss | $(val "$tool" status) |"
		done
	done
}

details() {
	local tool dir n med min max cpu list f tk by
	for tool in $BENCH_PASST_TOOLS; do
		echo "- **$tool**: \`$(val "$tool" cmd)\` (process \`$(val "$tool" comm)\`):" \
		     "$(val "$tool" status)."
		for dir in up down; do
			read -r n med min max cpu list <<<"$(stats "$tool" "$dir")"
			echo "  - $dir: per-run Mbit/s: ${list:--}$(runs "$tool" "$dir" |
				awk '{ r = r (NR > 1 ? ", " : "") $4; z = z (NR > 1 ? ", " : "") $5 }
				     END { if (NR) printf "; sender retransmits: %s; seconds under 1 Mbit/s: %s", r, z }')"
			fails "$tool" "$dir" | sed 's/^/  - '"$dir"' failed run /'
		done
		f=$(val "$tool" dmesg)
		[ -n "$f" ] && echo "  - kernel: \`$f\`"
		case $(val "$tool" status) in
		ok*|"") ;;
		*)	echo "  - last lines of its log:"
			echo
			grep -av 'Failed to send' "$WORK/$tool.log" 2>/dev/null |
				tail -n 4 | sed 's/^/        /'
			echo ;;
		esac
		tk=$(val "$tool" ticks)
		by=$(runs "$tool" up; runs "$tool" down)
		by=$(awk '{ b += $2 } END { printf "%.0f\n", b }' <<<"$by")
		if [ -n "$tk" ] && [ "$by" -gt 0 ]; then
			echo "  - whole life (boot, DHCP, idle gaps included): $(awk -v t="$tk" -v hz="$HZ" -v b="$by" \
				'BEGIN { printf "%.2f s CPU, %.2f GB received, %.2f s/GB", t / hz, b / 1e9, t / hz / (b / 1e9) }')"
		fi
		echo "  - guest: $(val "$tool" lease | cut -d' ' -f1-4); boot to power-off" \
		     "$(val "$tool" secs) s; host CPUs $(val "$tool" busy) % busy" \
		     "before; other processes $(val "$tool" other_cpu) % of a CPU during the run; steal $(val "$tool" steal) s during the run${TOOL_SECS[$tool]:+; ${TOOL_SECS[$tool]} s in all}"
	done
}

facts() {
	local deb_ver
	deb_ver=$(dpkg-query -W -f '${Version}' passt 2>/dev/null)
	echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "- nproc: $(nproc); CPU: $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)"
	echo "- host kernel: $(uname -r); $(. /etc/os-release 2>/dev/null; echo "${PRETTY_NAME:-?}")"
	echo "- QEMU: $("$QEMU" --version | head -n 1); TCG, 1 vCPU, 256 MiB, virtio-net-pci on -netdev stream (-vu tools: -netdev vhost-user, shared memfd, vectors=0)"
	echo "- guest: Debian kernel ${GUEST_KVER:-?}, busybox initramfs, $(iperf3 --version 2>&1 | head -n 1)"
	echo "- \`$(shortpath "$PASST") --version\`: $("$PASST" --version 2>&1 | head -n 1)" \
	     "(sha256 $(sha256sum "$PASST" 2>/dev/null | cut -c1-12), commit" \
	     "$(git -C "$TOPDIR" rev-parse --short HEAD 2>/dev/null || echo ?))"
	echo "- \`$DEBIAN_PASST --version\`: $("$DEBIAN_PASST" --version 2>&1 | grep -v 'syslog' | head -n 1)${deb_ver:+ (package passt $deb_ver)}"
	echo "- iperf3 -t $BENCH_PASST_SECS, $BENCH_PASST_RUNS runs each way (upload, download alternating), receiver's rate; RTT 0 (veth)"
	echo "- command: \`${BP_ENV}test/bench-passt.sh${BP_ARGS:+ $BP_ARGS}\` (total $(($(date +%s) - START)) s)"
}

TABLE=$(table)
VU_TABLE=$(vu_table)
{
	echo "### passt mode: QEMU guest (TCG) through ./passt and Debian's passt"
	echo
	echo "$TABLE"
	echo
	[ -z "$VU_TABLE" ] || printf '%s\n\n' "$VU_TABLE"
	echo "Mbit/s: iperf3's receiver side, per direction over the runs. ours/Debian:"
	echo "ratio of the medians. CPU s/GB: the passt process's utime+stime during"
	echo "the transfers over the bytes received (10^9 bytes/GB). Peak RSS: VmHWM."
	echo "The guest runs under TCG (one emulated vCPU), which caps what either tool"
	echo "can reach. \"other processes\": CPU time of everything but the tool, QEMU,"
	echo "the iperf3 server and this script during the run (100 % = one CPU)."
	echo
	details
	echo
	facts
} >"$BENCH_PASST_OUT"

if [ $QUICK = 1 ]; then
	for tool in $BENCH_PASST_TOOLS; do
		case $tool in
		ours)
			tap "$([ "$(val ours listening)" = 1 ] && echo 0 || echo 1)" \
				"ours: passt listening, guest booted against it ($(val ours status))"
			for dir in up down; do
				read -r n med _ <<<"$(stats ours "$dir")"
				tap "$([ "$n" -ge 1 ] && echo 0 || echo 1)" \
					"ours: iperf3 $dir produced numbers: $n/$BENCH_PASST_RUNS runs, median $med Mbit/s" ||
					{ f=$(fails ours "$dir"); [ -z "$f" ] || diag "$f"; }
			done
			;;
		*)
			# A note, not a failure: only that the harness recorded it
			st=$(val "$tool" status)
			tap "$([ -n "$st" ] && echo 0 || echo 1)" \
				"$(label "$tool"): run recorded: ${st:-nothing}; up ${MED[$tool.up]:--}, down ${MED[$tool.down]:--} Mbit/s"
			;;
		esac
	done
	diag "$TABLE"
	[ -z "$VU_TABLE" ] || diag "$VU_TABLE"
	diag "report: $BENCH_PASST_OUT"
	done_testing
fi

echo "$TABLE"
[ -z "$VU_TABLE" ] || printf '\n%s\n' "$VU_TABLE"
say "report: $BENCH_PASST_OUT"
# Exit status: 0 if ours (when it ran) produced numbers both ways
if [[ " $BENCH_PASST_TOOLS " = *" ours "* ]] &&
   { [ -z "${MED[ours.up]:-}" ] || [ -z "${MED[ours.down]:-}" ]; }; then
	exit 1
fi
exit 0
