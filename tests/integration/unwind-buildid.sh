# A --call-graph dwarf recording whose program was rebuilt since, with a
# new layout: perf's build-id cache has the recorded copy.  The replay
# names the samples from that copy and unwinds them with its CFI too
# (chains reach main through mid and leaf), every run the same bytes:
# the unwinder waits for the DSO's symbols before it opens a file, where
# it read the mapped path (the rebuilt program) when the loader had not
# got there yet.  Skipped without perf or a compiler.
. tests/lib.sh

command -v perf >/dev/null 2>&1 || skip "perf is not installed"
command -v cc >/dev/null 2>&1 || skip "no C compiler"
ABS=$(cd "$TMP" && pwd)
CACHE=$ABS/cache
mkdir -p "$ABS/b"
cat >"$ABS/prog.c" <<'PROG'
#include <stdlib.h>
#include <time.h>
static volatile unsigned long sink;
#ifdef PAD
/* The rebuild's code moves: its CFI at the recorded addresses is another
 * function's, or none. */
#define MOVED __attribute__((aligned(PAD)))
#else
#define MOVED
#endif
MOVED __attribute__((noinline, noclone)) static void leaf(unsigned n)
{
	volatile unsigned long a[64];
	for (unsigned i = 0; i < n; i++)
		a[i % 64] = sink += i * 3;
}
MOVED __attribute__((noinline, noclone)) static void mid(unsigned n)
{
	volatile unsigned long b[32];
	b[n % 32] = n;
	leaf(n);
	sink += b[n % 32];
}
int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int k = 0; k < 100; k++)
			mid(4000);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	return 0;
}
PROG
CFLAGS="-O2 -fomit-frame-pointer -fasynchronous-unwind-tables"
cc $CFLAGS -o "$ABS/prog" "$ABS/prog.c" || fail "cannot build the workload"
perf --buildid-dir "$CACHE" record -q --call-graph dwarf -F 999 -e cpu-clock \
	-o "$ABS/perf.data" -- "$ABS/prog" 1.5 >/dev/null 2>"$TMP/perf.err" ||
	skip "perf record failed: $(tail -1 "$TMP/perf.err")"
[ -d "$CACHE/.build-id" ] || skip "perf record kept no build-id cache"
# Rebuilt over the recorded path (a new inode), its code moved.
cc $CFLAGS -DPAD=4096 -o "$ABS/b/prog" "$ABS/prog.c" && mv "$ABS/b/prog" "$ABS/prog" ||
	fail "cannot rebuild the workload"
old=$(perf buildid-list -i "$ABS/perf.data" 2>/dev/null | grep "$ABS/prog" | cut -d' ' -f1)
new=$(perf buildid-list -f 2>/dev/null -i "$ABS/prog" | cut -d' ' -f1)
[ -n "$old" ] && [ "$old" != "$new" ] || fail "the rebuild kept build ID $old ($new)"

for i in 1 2 3; do
	PERF_BUILDID_DIR=$CACHE timeout 60 "$PROFTOP" -i "$ABS/perf.data" --batch --children \
		-s sym -G 0 >"$TMP/out$i.txt" 2>"$TMP/err$i.txt" ||
		fail "replay $i: exit status $? ($(cat "$TMP/err$i.txt"))"
done
cmp -s "$TMP/out1.txt" "$TMP/out2.txt" && cmp -s "$TMP/out1.txt" "$TMP/out3.txt" ||
	fail "three replays differ: $(diff "$TMP/out1.txt" "$TMP/out2.txt" | head -5)"
ok "three replays, the same bytes"
python3 - "$TMP/out1.txt" <<'PY' || exit 1
import re, sys
rows = {}
for line in open(sys.argv[1]):
    m = re.match(r'^\s+([0-9.]+)%\s+([0-9.]+)%\s+\d+\s+\[\.\]\s+(\S+)', line)
    if m:
        rows[m.group(3)] = (float(m.group(1)), float(m.group(2)))
print("# children/self: %s" % ", ".join("%s %.1f/%.1f" % (s, *rows.get(s, (0, 0)))
                                        for s in ("leaf", "mid", "main")))
for s in ("leaf", "mid", "main"):
    if rows.get(s, (0, 0))[0] < 90:
        print("not ok - %s's children %.1f: the chains were unwound with the rebuilt "
              "program's CFI" % (s, rows.get(s, (0, 0))[0]))
        sys.exit(1)
print("ok - leaf, mid and main each at least 90% children: unwound with the recorded copy")
PY
