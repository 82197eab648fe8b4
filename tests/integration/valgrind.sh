# valgrind memcheck on a replay: no invalid access, no leak, exit 0 (the
# generated recording has mmaps, comms, callchains, a fork/exit, a lost
# record and two events, so the machine, hist and callchain code all run).
. tests/lib.sh

command -v valgrind >/dev/null 2>&1 || skip "valgrind not installed"
# An ASan build cannot run under valgrind (its shadow memory collides).
if grep -q __asan_init "$PROFTOP" 2>/dev/null; then
	skip "proftop is built with --enable-sanitizers: ASan already checks it"
fi
MK=${MKPERFDATA:-tests/helpers/mkperfdata}
[ -x "$MK" ] || fail "$MK is not built (make tests/helpers/mkperfdata)"
WL=$(cd "$(dirname "$WORKLOAD")" && pwd)/$(basename "$WORKLOAD")
LIB=$(dirname "$WL")/libworkload.so
BASE=0x555555554000
addr() {
	a=$(nm "$WL" | awk -v s="$1" '$3 == s { print $1 }')
	[ -n "$a" ] || fail "no $1 in $WL"
	printf '0x%x' $((BASE + 0x$a + 4))
}
A=$(addr leaf_a)
B=$(addr leaf_b)
"$MK" -o "$TMP/v.data" <<EOF2 || fail "mkperfdata"
attr sample_type=IP|TID|TIME|CPU|PERIOD|ID|CALLCHAIN period=1000 name=cpu-clock ids=5
attr sample_type=IP|TID|TIME|CPU|PERIOD|ID period=500 name=page-faults ids=9
hostname vg
arch x86_64
comm pid=42 tid=42 comm=workload time=1000
mmap2 pid=42 tid=42 start=$BASE len=0x4000 pgoff=0 file=$WL time=1001
mmap2 pid=42 tid=42 start=0x7f0000000000 len=0x2000 pgoff=0 file=$LIB time=1002
sample pid=42 tid=42 ip=$A time=2000 cpu=0 id=5 callchain=0xfffffffffffffe00,$A,$B
sample pid=42 tid=42 ip=$B time=2100 cpu=1 id=5 callchain=0xfffffffffffffe00,$B,$A
sample pid=42 tid=42 ip=0x7f0000001000 time=2200 cpu=1 id=5
sample pid=42 tid=42 ip=0xffffffff81000000 misc=1 time=2300 cpu=0 id=5
sample pid=42 tid=42 ip=$A time=2400 cpu=0 id=9
round
fork pid=43 ppid=42 tid=43 ptid=42 time=3000
comm pid=43 tid=43 comm=child time=3001 exec=1
sample pid=43 tid=43 ip=0x1234 time=3100 cpu=0 id=5
exit pid=43 ppid=42 tid=43 ptid=42 time=3200
lost id=5 lost=2
EOF2
ok "recording written"

vg() {
	name=$1
	shift
	valgrind -q --error-exitcode=99 --leak-check=full \
		--log-file="$TMP/$name.vg" "$PROFTOP" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
	st=$?
	[ $st -ne 99 ] || { cat "$TMP/$name.vg"; fail "valgrind: errors in proftop $*"; }
	[ $st -eq 0 ] || fail "proftop $* under valgrind: exit status $st ($(cat "$TMP/$name.err"))"
	ok "valgrind clean: proftop $*"
}
vg batch -i "$TMP/v.data" --batch
vg json -i "$TMP/v.data" --json -g -s comm,dso,sym
vg dump -i "$TMP/v.data" -D
grep -q leaf_a "$TMP/batch.out" || fail "the replay under valgrind lacks leaf_a"
ok "the replay under valgrind shows leaf_a"

# A short live session too (the workload itself is not traced).
if perf_events_usable; then
	vg live --batch -d 0.5 -- "$WORKLOAD" 1
else
	echo "SKIP: perf_event_open unavailable: live session not run under valgrind"
fi
