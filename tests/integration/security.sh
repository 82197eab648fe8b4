# Security properties: no external program is run on a path a user controls,
# debuginfod is not contacted because DEBUGINFOD_URLS is set, install is not
# setuid, and hostile paths in a recording (a FIFO, a device) are not opened.
. tests/lib.sh

# 1. The sources never call system(), popen() or exec*() except the one
#    execvp of the user's own "-- COMMAND" (src/target.c).
hits=$(grep -nE '\b(system|popen|execl|execle|execlp|execv|execve|execvpe|posix_spawnp?)[[:space:]]*\(' \
	src/*.c src/arch/*.c symbols/*.c ui/*.c 2>/dev/null | grep -v '^\S*:[0-9]*:\s*/\?\*')
calls=$(grep -nE '\bexecvp[[:space:]]*\(' src/*.c symbols/*.c ui/*.c | grep -v 'src/target.c')
[ -z "$hits" ] || fail "external programs run from: $hits"
[ -z "$calls" ] || fail "execvp outside the -- COMMAND launcher: $calls"
ok "no system/popen/exec* but the -- COMMAND launcher"

# 2. make install: no setuid or setgid bit.
DEST=$(cd "$TMP" && pwd)/inst
make -s install DESTDIR="$DEST" >/dev/null 2>&1 || fail "make install DESTDIR"
f=$(find "$DEST" -type f -perm /6000)
[ -z "$f" ] || fail "setuid/setgid files installed: $f"
ok "install sets no setuid/setgid bit"

# 3. A recording naming a FIFO and a device as mapped files: proftop must
#    neither block on the FIFO nor open the device (the ELF loader checks
#    the file type before it opens anything).
MK=${MKPERFDATA:-tests/helpers/mkperfdata}
mkfifo "$TMP/fifo"
"$MK" -o "$TMP/h.data" <<EOF2 || fail "mkperfdata"
attr sample_type=IP|TID|TIME|PERIOD period=1000
comm pid=42 tid=42 comm=evil time=1
mmap2 pid=42 tid=42 start=0x400000 len=0x1000 pgoff=0 prot=5 file=$TMP/fifo time=2
mmap2 pid=42 tid=42 start=0x500000 len=0x1000 pgoff=0 prot=5 file=/dev/zero time=3
mmap2 pid=42 tid=42 start=0x600000 len=0x1000 pgoff=0 prot=5 file=/dev/stdin time=4
sample pid=42 tid=42 ip=0x400010 time=10
sample pid=42 tid=42 ip=0x500010 time=11
sample pid=42 tid=42 ip=0x600010 time=12
EOF2
timeout 20 "$PROFTOP" -i "$TMP/h.data" --json </dev/null >"$TMP/h.json" 2>"$TMP/h.err"
st=$?
[ $st -ne 124 ] || fail "a FIFO named in a recording blocks proftop"
[ $st -eq 0 ] || fail "hostile mmap paths: status $st ($(cat "$TMP/h.err"))"
json_check "$TMP/h.json" 'snaps[-1]["samples"] == 3' || fail "hostile mmap paths: samples not counted"
ok "a FIFO, /dev/zero and /dev/stdin named in a recording: not opened, samples [unknown]"

# 4. DEBUGINFOD_URLS in the environment alone makes no connection (replay
#    and live).  strace -f: every connect() of proftop and its threads.
#    (LeakSanitizer cannot run under ptrace: off for these two runs.)
if ! command -v strace >/dev/null 2>&1; then
	echo "SKIP: strace not installed: debuginfod check not run"
else
	WL=$(cd "$(dirname "$WORKLOAD")" && pwd)/$(basename "$WORKLOAD")
	"$MK" -o "$TMP/d.data" <<EOF2 || fail "mkperfdata"
attr sample_type=IP|TID|TIME|PERIOD period=1000
comm pid=42 tid=42 comm=workload time=1
mmap2 pid=42 tid=42 start=0x555555554000 len=0x4000 pgoff=0 file=$WL time=2
mmap2 pid=42 tid=42 start=0x7f0000000000 len=0x4000 pgoff=0 file=/no/such/lib.so time=3
sample pid=42 tid=42 ip=0x555555555100 time=10
sample pid=42 tid=42 ip=0x7f0000000100 time=11
EOF2
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 DEBUGINFOD_URLS=http://127.0.0.1:9 strace -f -qq -e trace=connect -o "$TMP/strace.i" \
		"$PROFTOP" -i "$TMP/d.data" --batch >/dev/null 2>"$TMP/di.err" ||
		fail "proftop -i under strace: $(cat "$TMP/di.err")"
	! grep -q 'connect(' "$TMP/strace.i" || fail "proftop -i connected: $(grep 'connect(' "$TMP/strace.i")"
	ok "DEBUGINFOD_URLS set: proftop -i makes no connect()"
	if perf_events_usable; then
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 DEBUGINFOD_URLS=http://127.0.0.1:9 strace -f -qq -e trace=connect -o "$TMP/strace.l" \
			"$PROFTOP" --batch -d 0.5 -- "$WORKLOAD" 1 >/dev/null 2>"$TMP/dl.err" ||
			fail "live proftop under strace: $(cat "$TMP/dl.err")"
		! grep -q 'connect(' "$TMP/strace.l" ||
			fail "live proftop connected: $(grep 'connect(' "$TMP/strace.l")"
		ok "DEBUGINFOD_URLS set: a live session makes no connect()"
	else
		echo "SKIP: perf_event_open unavailable: live debuginfod check not run"
	fi
fi
