# A recording of this kernel names its kernel samples from perf record's
# copy of kallsyms (PERF_BUILDID_DIR, else ~/.debug,
# [kernel.kallsyms]/BUILDID/kallsyms), as perf report does, without
# reading /proc/kallsyms (5-10x slower); from /proc/kallsyms when the
# copy holds no addresses (written under kptr_restrict) or there is none.
# The copy here names a real kernel function's address differently, so
# the output tells which one was read.  The copy is larger than the
# reader's window (256 KB): its lines cross reads.
. tests/lib.sh

MK=${MKPERFDATA:-tests/helpers/mkperfdata}
[ -x "$MK" ] || fail "$MK is not built (make tests/helpers/mkperfdata)"
command -v perf >/dev/null 2>&1 || skip "perf is not installed: no kernel build ID to write"
ID=$(perf buildid-list -k 2>/dev/null)
[ -n "$ID" ] || skip "the running kernel has no build ID"
# A function alone at its address: of aliases (srso_alias_untrain_ret,
# _stext, _text, __pi__text) the last is the name, as perf report names it.
set -- $(awk 'NR == FNR { n[$1]++; next }
	$2 == "T" && $1 !~ /^0+$/ && $3 !~ /^_/ && n[$1] == 1 { print $1, $3; exit }' \
	/proc/kallsyms /proc/kallsyms)
[ -n "${2:-}" ] || skip "kernel addresses are hidden (kptr_restrict)"
KADDR=$1 KNAME=$2

cat >"$TMP/rec.txt" <<EOF
attr sample_type=IP|TID|TIME|CPU|PERIOD period=1000 name=cpu-clock
build_id misc=1 id=$ID file=[kernel.kallsyms]
comm pid=42 comm=worker time=1
sample pid=42 misc=1 ip=0x$KADDR time=100 cpu=0
sample pid=42 misc=1 ip=0x$KADDR time=200 cpu=0
round
EOF
"$MK" -o "$TMP/rec.data" "$TMP/rec.txt" || fail "mkperfdata"

# cache ADDR: a copy whose symbol at KADDR is cached_only_func, behind
# 12,000 filler lines below it (~500 KB); ADDR 0 writes every address as 0.
cache() {
	mkdir -p "$TMP/bid/[kernel.kallsyms]/$ID"
	awk -v zero="$1" -v kaddr="$KADDR" 'BEGIN {
		for (i = 0; i < 12000; i++)
			printf "%s t filler_function_number_%d\n", zero ? "0000000000000000" : \
				sprintf("ffffffff80%06x", i * 16), i
		printf "%s T cached_only_func\n", zero ? "0000000000000000" : kaddr
	}' >"$TMP/bid/[kernel.kallsyms]/$ID/kallsyms"
}

# run: the output into $TMP/out, and the files opened into $TMP/strace
# (a second, traced run: LeakSanitizer refuses to run under ptrace, so
# that one goes without the leak check; the first keeps it).
run() {
	PERF_BUILDID_DIR="$TMP/bid" "$PROFTOP" -i "$TMP/rec.data" --batch >"$TMP/out" \
		2>"$TMP/err" || fail "$PROFTOP -i: status $? ($(tail -1 "$TMP/err"))"
	: >"$TMP/strace"
	command -v strace >/dev/null 2>&1 || return 0
	PERF_BUILDID_DIR="$TMP/bid" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -e trace=open,openat -o "$TMP/strace" \
		"$PROFTOP" -i "$TMP/rec.data" --batch >/dev/null 2>"$TMP/err" ||
		fail "strace $PROFTOP -i: status $? ($(tail -1 "$TMP/err"))"
}

cache 0
run
grep -q 'cached_only_func' "$TMP/out" ||
	fail "kernel sample not named from perf's copy: $(grep kernel "$TMP/out" | head -3)"
grep -q '"/proc/kallsyms"' "$TMP/strace" &&
	fail "/proc/kallsyms read although perf's copy was there"
ok "kernel samples named from perf record's copy of kallsyms, /proc/kallsyms not read"

cache 1
run
grep -q "$KNAME" "$TMP/out" ||
	fail "a copy without addresses: $KNAME not named from /proc/kallsyms: $(grep kernel "$TMP/out" | head -3)"
grep -q 'cached_only_func' "$TMP/out" && fail "named from a copy without addresses"
ok "a copy without addresses: /proc/kallsyms instead"

rm -rf "$TMP/bid"
run
grep -q "$KNAME" "$TMP/out" || fail "no copy: $KNAME not named: $(grep kernel "$TMP/out" | head -3)"
ok "no copy: /proc/kallsyms"
rm -rf "$TMP"
