# Replay results do not depend on how a recording's records are laid out:
# the same samples written in time order, as per-CPU runs inside each
# round (the way perf writes its rings) and shuffled inside each round give
# the same --batch and --json output, with and without callchains
# (perfdata.c's reordering merges the runs of a round).  And kallsyms is
# read only when a kernel address needs it: a user-only recording of this
# kernel never opens /proc/kallsyms (strace), one with kernel samples gets
# their names (read at the first kernel address).
. tests/lib.sh

MK=${MKPERFDATA:-tests/helpers/mkperfdata}
[ -x "$MK" ] || fail "$MK is not built (make tests/helpers/mkperfdata)"
WL=$(cd "$(dirname "$WORKLOAD")" && pwd)/$(basename "$WORKLOAD")
BASE=0x555555554000
syms=
for a in $(nm "$WL" | awk '$2 ~ /^[Tt]$/ && $3 ~ /^(leaf_a|leaf_b|leaf_c|main|now)$/ { print $1 }'); do
	syms="$syms${syms:+,}$((0x$a))"
done
[ -n "$syms" ] || fail "no functions in $WL"
REL=$(uname -r)

# gen ORDER KERNEL: 3 CPUs x 4 rounds x 40 samples; round r holds the times
# [r * 100000, (r + 1) * 100000) only, so every layout sorts the same way.
# KERNEL=1 makes some samples kernel ones at KADDR (a text symbol of this
# kernel, as a hex string: awk's doubles cannot hold kernel addresses).
gen() {
	awk -v order="$1" -v kern="$2" -v base=$((BASE)) -v syms="$syms" \
	    -v wl="$WL" -v kaddr="${KADDR:-0}" -v rel="$REL" 'BEGIN {
	n = split(syms, f, ",")
	srand(7)
	lcg = 1
	print "attr sample_type=IP|TID|TIME|CPU|PERIOD|CALLCHAIN period=1000 name=cpu-clock"
	print "osrelease " rel
	print "comm pid=42 comm=workload time=1"
	printf "mmap2 pid=42 start=%.0f len=0x4000 pgoff=0 file=%s time=2\n", base, wl
	print "comm pid=43 comm=other time=3"
	printf "mmap2 pid=43 start=%.0f len=0x4000 pgoff=0 file=%s time=4\n", base, wl
	for (r = 0; r < 4; r++) {
		m = 0
		for (c = 0; c < 3; c++)
			for (i = 0; i < 40; i++) {
				t = r * 100000 + 1000 + i * 97 + c * 31
				leaf = sprintf("%.0f", base + f[1 + int(rand() * n)] + 1 + int(rand() * 8))
				cc = ""
				if (kern && rand() < 0.3) {
					cc = "0xffffffffffffff80," kaddr ","
					mode = "misc=1 ip=" kaddr
				} else {
					mode = "ip=" leaf
				}
				cc = cc "0xfffffffffffffe00," leaf
				d = 1 + int(rand() * 4)
				for (k = 0; k < d; k++)
					cc = cc "," sprintf("%.0f", base + f[1 + int(rand() * n)] + 5)
				rec[r, m++] = sprintf("sample pid=%d %s time=%d cpu=%d callchain=%s",
						      42 + (c == 2), mode, t, c, cc)
				tm[r, m - 1] = t
			}
		# rec[r, *] is in per-CPU runs; sort or shuffle a copy
		for (i = 0; i < m; i++)
			idx[i] = i
		if (order == "time") {
			for (i = 1; i < m; i++)
				for (j = i; j > 0 && tm[r, idx[j - 1]] > tm[r, idx[j]]; j--) {
					x = idx[j]; idx[j] = idx[j - 1]; idx[j - 1] = x
				}
		} else if (order == "shuffled") {
			# its own generator: the records must not change
			for (i = m - 1; i > 0; i--) {
				lcg = (lcg * 1103515245 + 12345) % 2147483648
				j = lcg % (i + 1); x = idx[i]; idx[i] = idx[j]; idx[j] = x
			}
		}
		for (i = 0; i < m; i++)
			print rec[r, idx[i]]
		print "round"
	}
	}' >"$TMP/$1.$2.txt" || fail "awk"
	"$MK" -o "$TMP/$1.$2.data" "$TMP/$1.$2.txt" || fail "mkperfdata $1"
}

for o in time runs shuffled; do
	gen $o 0
done
n=0
for opts in "" "-g" "--no-children -g" "--json" "--json -g" "-s pid,sym -g" "-s dso,sym --no-children"; do
	for o in time runs shuffled; do
		# The same name for each (the header shows it).
		cp "$TMP/$o.0.data" "$TMP/perf.data"
		# shellcheck disable=SC2086
		"$PROFTOP" -i "$TMP/perf.data" --batch $opts >"$TMP/$o.out" 2>"$TMP/$o.err" ||
			fail "$o $opts: exit status $? ($(cat "$TMP/$o.err"))"
	done
	grep -q leaf_ "$TMP/time.out" || fail "$opts: no leaf_ in the profile: $(head -20 "$TMP/time.out")"
	for o in runs shuffled; do
		cmp -s "$TMP/time.out" "$TMP/$o.out" ||
			fail "$o layout, $opts: another profile: $(diff "$TMP/time.out" "$TMP/$o.out" | head -20)"
	done
	n=$((n + 1))
done
ok "time-ordered, per-CPU runs and shuffled rounds give the same output ($n option sets)"

# kallsyms only when needed (this kernel: osrelease matches).
if ! command -v strace >/dev/null 2>&1; then
	skip "strace is not installed: cannot watch for /proc/kallsyms"
fi
# LeakSanitizer refuses to run under ptrace: no leak check in the traced runs.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS
strace -f -e trace=open,openat -o "$TMP/strace" "$PROFTOP" -i "$TMP/time.0.data" --batch \
	>/dev/null 2>&1 || fail "strace $PROFTOP: status $?"
grep -q '"/proc/kallsyms"' "$TMP/strace" &&
	fail "a user-only recording opened /proc/kallsyms: $(grep kallsyms "$TMP/strace" | head -3)"
grep -q "$(basename "$WL")" "$TMP/strace" || fail "strace saw no open of the workload: $(head "$TMP/strace")"
ok "a user-only recording does not read /proc/kallsyms"

# A text symbol with an address of its own (none before or after it
# shares it), so the address names it alone.
set -- $(awk '$2 ~ /^[Tt]$/ && $1 != "0000000000000000" {
	if (pa != "" && pa != la && $1 != pa && pt ~ /^[Tt]$/ && pn !~ /[[.]/) { print pa, pn; exit }
	la = pa; pa = $1; pt = $2; pn = $3 }' /proc/kallsyms)
KADDR=0x${1:-0} KNAME=${2:-}
if [ -z "$KNAME" ]; then
	skip "kernel addresses are hidden (kptr_restrict): no kernel symbols to check"
fi
export KADDR
gen time 1
strace -f -e trace=open,openat -o "$TMP/strace" "$PROFTOP" -i "$TMP/time.1.data" --batch -g \
	>"$TMP/k.out" 2>"$TMP/k.err" || fail "kernel samples: status $? ($(cat "$TMP/k.err"))"
grep -q '"/proc/kallsyms"' "$TMP/strace" || fail "kernel samples, but /proc/kallsyms not read"
grep -q "\[k\] $KNAME" "$TMP/k.out" ||
	fail "no [k] $KNAME in the profile: $(head -20 "$TMP/k.out"; cat "$TMP/k.err")"
grep -q leaf_ "$TMP/k.out" || fail "no leaf_ beside the kernel samples: $(head -20 "$TMP/k.out")"
ok "kernel samples get kallsyms names ($KNAME), read at the first kernel address"
