# hang_evidence, shared by tests/lib.sh and bench/common.sh (sourced).
# A stall seen once under load must explain itself: what every thread of
# the stuck process was doing, from the kernel's side (state, wait channel,
# stack) and from its own (gdb, else eu-stack, if installed).

# hang_evidence PID FILE: write it to FILE.
hang_evidence() {
	{
		echo "== $(date -u +%T) pid $1: $(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null)"
		echo "== load average: $(cat /proc/loadavg)"
		for t in /proc/"$1"/task/*; do
			[ -d "$t" ] || continue
			echo "== thread ${t##*/} ($(cat "$t/comm" 2>/dev/null)):" \
				"state $(sed 's/.*) //' "$t/stat" 2>/dev/null | cut -d' ' -f1)," \
				"wchan $(cat "$t/wchan" 2>/dev/null)"
			cat "$t/stack" 2>/dev/null
		done
		if command -v gdb >/dev/null 2>&1; then
			timeout 120 gdb -nx -batch -p "$1" -ex 'thread apply all bt' 2>&1 |
				grep -E '^(Thread |#[0-9])'
		elif command -v eu-stack >/dev/null 2>&1; then
			timeout 60 eu-stack -p "$1" 2>&1
		else
			echo "== no gdb or eu-stack: no user-space stacks"
		fi
	} >"$2" 2>&1
}


# descendants PID: the pids of PID's children, theirs, and so on.
descendants() {
	de_pids=$(pgrep -P "$1" 2>/dev/null)
	while [ -n "$de_pids" ]; do
		echo "$de_pids"
		de_next=
		for de_p in $de_pids; do
			de_next="$de_next $(pgrep -P "$de_p" 2>/dev/null)"
		done
		de_pids=$(echo $de_next)
	done
}
