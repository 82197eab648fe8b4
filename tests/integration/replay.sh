# Replay of perf.data files written by tests/helpers/mkperfdata: native, swapped and
# pipe formats give the same profile; -D prints every record; damaged files
# give exit status 1 with the offset, a truncated one a warning and the
# samples before the cut; build IDs decide whether a file's symbols are used.
. tests/lib.sh

MK=${MKPERFDATA:-tests/helpers/mkperfdata}
[ -x "$MK" ] || fail "$MK is not built (make tests/helpers/mkperfdata)"
WL=$(cd "$(dirname "$WORKLOAD")" && pwd)/$(basename "$WORKLOAD")

# Addresses of the workload's leaves as if mapped at 0x555555554000 (the
# text segment's file offsets equal its vaddrs in this small binary).
BASE=0x555555554000
addr() {
	a=$(nm "$WL" | awk -v s="$1" '$3 == s { print $1 }')
	[ -n "$a" ] || fail "no $1 in $WL"
	printf '0x%x' $((BASE + 0x$a + 4))
}
A=$(addr leaf_a)
B=$(addr leaf_b)
ID=$(readelf -n "$WL" | awk '/Build ID/ { print $3 }')

desc() {
	cat <<EOF
attr sample_type=IP|TID|TIME|CPU|PERIOD|ID|CALLCHAIN period=1000 name=cpu-clock ids=5,6
hostname replayhost
osrelease 0.0.0-replay
arch x86_64
nrcpus 2 2
cmdline perf record ./workload
sample_time 1000 5000
comm pid=42 comm=workload time=1000
mmap2 pid=42 start=$BASE len=0x4000 pgoff=0 file=$WL time=1001
sample pid=42 ip=$A time=3000 cpu=1 id=6 callchain=0xfffffffffffffe00,$A,0x1234
sample pid=42 ip=$B time=2000 cpu=0
round
sample pid=42 ip=$A time=4000 cpu=0
sample pid=42 ip=$A time=3500 cpu=1 id=6
round
fork pid=43 ppid=42 time=4500
exit pid=43 ppid=42 time=5000
EOF
}

desc >"$TMP/n.txt"
{ echo "order swapped"; desc; } >"$TMP/s.txt"
{ echo "pipe"; desc; } >"$TMP/p.txt"
{ echo "order swapped"; echo "pipe"; desc; } >"$TMP/sp.txt"
for f in n s p sp; do
	"$MK" -o "$TMP/$f.data" "$TMP/$f.txt" || fail "mkperfdata $f"
done
ok "mkperfdata wrote native, swapped, pipe and swapped pipe files"

# The same profile from every format: leaf_a 75%, leaf_b 25%.
for f in n s p sp; do
	"$PROFTOP" -i "$TMP/$f.data" --json >"$TMP/$f.json" 2>"$TMP/$f.err" ||
		fail "$f: exit status $? ($(cat "$TMP/$f.err"))"
	json_check "$TMP/$f.json" '(
len(snaps) == 1 and snaps[0]["samples"] == 4 and
[(r["symbol"], r["dso"], r["self"]) for r in snaps[0]["rows"] if r["self"] > 0] ==
    [("leaf_a", "workload", 75.0), ("leaf_b", "workload", 25.0)])' ||
		fail "$f: unexpected profile: $(cat "$TMP/$f.json")"
done
ok "native, swapped and pipe files give the same profile"

"$PROFTOP" -i - --batch <"$TMP/p.data" >"$TMP/stdin.out" 2>&1 || fail "-i - exit status"
grep -q "leaf_a" "$TMP/stdin.out" || fail "-i - lacks leaf_a: $(cat "$TMP/stdin.out")"
ok "-i - reads the pipe format from stdin"

# -D: every record, in file order, the same from both byte orders.
"$PROFTOP" -i "$TMP/n.data" -D >"$TMP/n.dump" 2>&1 || fail "-D exit status"
"$PROFTOP" -i "$TMP/s.data" -D >"$TMP/s.dump" 2>&1 || fail "-D swapped exit status"
for want in "# hostname: replayhost" "# arch: x86_64" "# nrcpus: 2 available, 2 online" \
	"# event 0: cpu-clock: type 1" "COMM (3)" "comm workload" "MMAP2 (10)" \
	"file $WL" "time 3000 pid/tid 42/42 cpu 1 id 6" "ip $A period 1000" \
	"callchain: 3 entries" "0xfffffffffffffe00 (user)" "FINISHED_ROUND (68)" \
	"pid 43 ppid 42 tid 43 ptid 42 time 4500" "EXIT (4)"; do
	grep -qF -- "$want" "$TMP/n.dump" || fail "-D output lacks '$want'"
done
[ "$(grep -c '^0x' "$TMP/n.dump")" -eq 10 ] || fail "-D: expected 10 records"
grep -n "SAMPLE" "$TMP/n.dump" | head -1 | grep -q "ip\|SAMPLE" || fail "-D order"
[ "$(grep -m1 -A2 'SAMPLE (9)' "$TMP/n.dump" | grep -c 'time 3000')" -eq 1 ] ||
	fail "-D is not in file order"
diff "$TMP/n.dump" "$TMP/s.dump" | grep -v -e '^[0-9]' -e '^---$' -e 'format:' | grep -q . &&
	fail "-D of the swapped file differs: $(diff "$TMP/n.dump" "$TMP/s.dump")"
ok "-D prints every record in file order, the same for both byte orders"

# Damage in the middle: exit 1, one message naming the offset.
expect_damage() {
	what=$1
	shift
	{ desc; for d in "$@"; do echo "$d"; done; } >"$TMP/d.txt"
	"$MK" -o "$TMP/d.data" "$TMP/d.txt" || fail "mkperfdata $what"
	"$PROFTOP" -i "$TMP/d.data" --batch >"$TMP/d.out" 2>"$TMP/d.err"
	st=$?
	[ $st -eq 1 ] || fail "$what: exit status $st, expected 1 ($(cat "$TMP/d.err"))"
	grep -q "offset [0-9]" "$TMP/d.err" || fail "$what: no offset in: $(cat "$TMP/d.err")"
	ok "$what: $(tail -1 "$TMP/d.err")"
}
expect_damage "record size below its header" "poke @2+6 0400"
expect_damage "record size not whole words" "poke @3+6 2100"
expect_damage "callchain longer than its record" "poke @2+56 ff00000000000000"
expect_damage "bad magic" "poke 0 0102030405060708"
expect_damage "attrs outside the file" "poke 24 ffffffffffff0000"
printf 'PERFILE2' >"$TMP/d.data"
"$PROFTOP" -i "$TMP/d.data" --batch >/dev/null 2>"$TMP/d.err"
[ $? -eq 1 ] || fail "8-byte file: exit status"
ok "8-byte file: $(cat "$TMP/d.err")"
"$PROFTOP" -i "$TMP/no-such-file" --batch >/dev/null 2>"$TMP/d.err"
[ $? -eq 1 ] && grep -q "no-such-file" "$TMP/d.err" || fail "missing file: $(cat "$TMP/d.err")"
ok "missing file: $(cat "$TMP/d.err")"

# Truncated inside the last sample: a warning, the samples before it, exit 0.
{ desc; echo "truncate @9+12"; } >"$TMP/t.txt"
"$MK" -o "$TMP/t.data" "$TMP/t.txt" || fail "mkperfdata truncated"
"$PROFTOP" -i "$TMP/t.data" --json >"$TMP/t.json" 2>"$TMP/t.err" ||
	fail "truncated: exit status $? ($(cat "$TMP/t.err"))"
grep -q "truncated" "$TMP/t.err" || fail "truncated: no warning: $(cat "$TMP/t.err")"
json_check "$TMP/t.json" 'snaps[0]["samples"] == 4' || fail "truncated: $(cat "$TMP/t.json")"
{ desc | sed '/^fork/,$d'; echo "truncate @6+20"; } >"$TMP/t.txt"
"$MK" -o "$TMP/t.data" "$TMP/t.txt" || fail "mkperfdata truncated 2"
"$PROFTOP" -i "$TMP/t.data" --json >"$TMP/t.json" 2>"$TMP/t.err" ||
	fail "truncated 2: exit status $?"
json_check "$TMP/t.json" 'snaps[0]["samples"] == 3' || fail "truncated 2: $(cat "$TMP/t.json")"
ok "truncated file: $(grep truncated "$TMP/t.err" | head -1)"

# Build IDs: the file's symbols only when its build ID is the recorded one.
if [ -n "$ID" ]; then
	{ desc; echo "build_id id=$ID file=$WL"; } >"$TMP/b.txt"
	"$MK" -o "$TMP/b.data" "$TMP/b.txt" || fail "mkperfdata build id"
	"$PROFTOP" -i "$TMP/b.data" --json >"$TMP/b.json" 2>/dev/null || fail "build id: status"
	json_check "$TMP/b.json" 'snaps[0]["rows"][0]["symbol"] == "leaf_a"' ||
		fail "matching build id: $(cat "$TMP/b.json")"
	BAD=$(echo "$ID" | sed 's/^./f/; s/^ff/ee/')
	[ "$BAD" != "$ID" ] || BAD=0000000000000000000000000000000000000000
	{ desc; echo "build_id id=$BAD file=$WL"; } >"$TMP/b.txt"
	"$MK" -o "$TMP/b.data" "$TMP/b.txt" || fail "mkperfdata build id 2"
	"$PROFTOP" -i "$TMP/b.data" --json >"$TMP/b.json" 2>/dev/null || fail "build id 2: status"
	json_check "$TMP/b.json" '(
[(r["dso"], r.get("symbol")) for r in snaps[0]["rows"] if r["self"] > 0] ==
    [("workload (build-id mismatch)", "[unknown]")])' ||
		fail "other build id: $(cat "$TMP/b.json")"
	# --symfs: the binary under DIR/.build-id when the path is gone.
	mkdir -p "$TMP/symfs/.build-id/$(echo "$ID" | cut -c1-2)"
	cp "$WL" "$TMP/symfs/.build-id/$(echo "$ID" | cut -c1-2)/$(echo "$ID" | cut -c3-)"
	desc | sed "s|file=$WL|file=/gone/workload|" >"$TMP/g.txt"
	echo "build_id id=$ID file=/gone/workload" >>"$TMP/g.txt"
	"$MK" -o "$TMP/g.data" "$TMP/g.txt" || fail "mkperfdata symfs"
	"$PROFTOP" -i "$TMP/g.data" --symfs "$TMP/symfs" --json >"$TMP/g.json" 2>/dev/null ||
		fail "symfs: status"
	json_check "$TMP/g.json" 'snaps[0]["rows"][0]["symbol"] == "leaf_a"' ||
		fail "symfs: $(cat "$TMP/g.json")"
	ok "build IDs: matching file used, other build [unknown], --symfs .build-id found"
else
	echo "# the workload has no build ID: build-ID checks skipped"
fi

# perf itself must accept what the writer writes, and count the same samples.
if command -v perf >/dev/null 2>&1; then
	for f in n s p; do
		if [ $f = p ]; then
			n=$(perf report -i - --stdio --sort sym <"$TMP/p.data" 2>/dev/null |
				awk '/^# Samples:/ { s += $3 } END { print s + 0 }')
		else
			n=$(perf report -i "$TMP/$f.data" --stdio --sort sym 2>/dev/null |
				awk '/^# Samples:/ { s += $3 } END { print s + 0 }')
		fi
		[ "$n" = 4 ] || fail "perf report -i $f.data counts $n samples, expected 4"
	done
	ok "perf report accepts the writer's native, swapped and pipe files (4 samples each)"
else
	echo "SKIP: perf not installed: the writer's files are not checked against perf"
fi
