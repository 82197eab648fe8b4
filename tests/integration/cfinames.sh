# Functions without symbols named from CFI (sub_<hex>, symbols/cfi.c): a
# stripped program built here (its static functions are FDEs readelf
# lists; rows, trees, folded stacks, -s srcline, --inline; a debug file
# found at the next load gives the real names), Debian's stripped
# liblzma, libbz2 and libsqlite3 live, and -i on perf recordings of them,
# where each raw address perf report prints falls in the CFI function
# proftop counts it in (sample counts equal, function by function).
. tests/lib.sh
require_perf_events
command -v cc >/dev/null 2>&1 || skip "no C compiler"
command -v readelf >/dev/null 2>&1 || skip "no readelf (binutils)"
SYMLOOKUP=${SYMLOOKUP:-tests/helpers/symlookup}
[ -x "$SYMLOOKUP" ] || fail "$SYMLOOKUP not built (make tests/helpers/symlookup)"

# fdes FILE: "start end" (hex, no 0x) of every FDE readelf lists.
fdes() {
	readelf --debug-dump=frames "$1" 2>/dev/null |
		sed -n 's/.* FDE .*pc=0*\([0-9a-f]*\)\.\.0*\([0-9a-f]*\).*/\1 \2/p'
}

# check_subs JSON FDES DSO: every sub_<hex> row and tree node of DSO in
# the snapshots is an FDE start, and says "synthetic": true; prints how
# many distinct ones the last snapshot has as rows.
check_subs() {
	python3 - "$@" <<'PY'
import json, sys
snaps = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
starts = {int(l.split()[0], 16) for l in open(sys.argv[2]) if l.strip()}
dso = sys.argv[3]
def walk(nodes):
    for n in nodes:
        yield n
        yield from walk(n.get("children", []))
bad = []
for s in snaps:
    items = list(s["rows"])
    for r in s["rows"]:
        items += list(walk(r.get("callers", []))) + list(walk(r.get("callees", [])))
    for r in items:
        sym = r.get("symbol") or ""
        if r.get("dso") != dso or not sym.startswith("sub_"):
            continue
        if int(sym[4:], 16) not in starts or r.get("synthetic") is not True:
            bad.append(sym)
if bad:
    print("not ok - not FDE starts, or not synthetic: %s" % sorted(set(bad))[:10]); sys.exit(1)
last = snaps[-1]["rows"]
print(len({r["symbol"] for r in last if r.get("dso") == dso and r.get("symbol", "").startswith("sub_")}))
PY
}

# ---- a stripped program built here (frame pointers: callers walk) ----
cat >"$TMP/prog.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static __attribute__((noinline)) unsigned long spin_a(unsigned long n)
{
	volatile unsigned long s = 0;
	for (unsigned long i = 0; i < n; i++)
		s += i * i ^ (s >> 3);
	return s;
}
static __attribute__((noinline)) unsigned long spin_b(unsigned long n)
{
	volatile unsigned long s = 1;
	for (unsigned long i = 0; i < n; i++)
		s = s * 31 + i;
	return s;
}
/* 3:1 between the two. */
static __attribute__((noinline)) unsigned long spin_c(unsigned long n)
{
	return spin_a(3 * n) + spin_b(n);
}
int main(int argc, char **argv)
{
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 2);
	unsigned long s = 0;
	while (time(NULL) < end)
		s += spin_c(200000);
	return s == 1;
}
C
cc -O2 -g -fno-omit-frame-pointer -Wl,--build-id -o "$TMP/prog.full" "$TMP/prog.c" || fail "cc"
strip --strip-all -o "$TMP/prog" "$TMP/prog.full" || fail "strip"
fdes "$TMP/prog" >"$TMP/prog.fdes"
[ -s "$TMP/prog.fdes" ] || fail "readelf lists no FDE in the stripped program"

# symlookup: each static function, at its start and its last byte, is the
# CFI function starting where it starts.
for f in spin_a spin_b spin_c main; do
	set -- $(nm -S "$TMP/prog.full" | awk -v f="$f" '$4 == f || index($4, f ".") == 1 { print $1, $2; exit }')
	[ $# -eq 2 ] || fail "nm: no $f"
	start=$(printf '%x' "0x$1")
	last=$(printf '0x%x' $((0x$1 + 0x$2 - 1)))
	got=$("$SYMLOOKUP" "$TMP/prog" "0x$start" "$last" | sort -u)
	[ "$got" = "sub_$start" ] || fail "$f at 0x$start: symlookup says '$got', want sub_$start"
	grep -q "^$start " "$TMP/prog.fdes" || fail "sub_$start is not an FDE start"
done
ok "symlookup: each static function of a stripped -O2 program is sub_<its start>, an FDE readelf lists"

# Live, with callchains: rows and tree nodes, spin_a ahead of spin_b.
# (proftop ends the program at -n, and exits with its status: not checked.)
A=$(nm "$TMP/prog.full" | awk '$3 ~ /^spin_a/ { sub(/^0*/, "", $1); print $1; exit }')
B=$(nm "$TMP/prog.full" | awk '$3 ~ /^spin_b/ { sub(/^0*/, "", $1); print $1; exit }')
"$PROFTOP" --batch --json -g -d 1 -n 2 -- "$TMP/prog" 3 >"$TMP/live.json" 2>"$TMP/err"
n=$(check_subs "$TMP/live.json" "$TMP/prog.fdes" prog) || { echo "$n"; exit 1; }
[ "$n" -ge 2 ] || fail "only $n sub_ rows of prog"
python3 - "$TMP/live.json" "sub_$A" "sub_$B" <<'PY' || exit 1
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]["rows"]
self = {r["symbol"]: r["self"] for r in rows if r.get("dso") == "prog"}
a, b = self.get(sys.argv[2], 0), self.get(sys.argv[3], 0)
unk = self.get("[unknown]", 0)
print("# %s %.1f%%, %s %.1f%%, [unknown] %.1f%%" % (sys.argv[2], a, sys.argv[3], b, unk))
if not (a > 1.5 * b > 0):
    print("not ok - spin_a (%s) should be about 3x spin_b (%s)" % (sys.argv[2], sys.argv[3])); sys.exit(1)
if unk > 1:
    print("not ok - prog still has an [unknown] row of %.1f%%" % unk); sys.exit(1)
callers = [n for r in rows if r.get("symbol") == sys.argv[2] for n in r.get("callers", [])]
if not any(n.get("synthetic") for n in callers):
    print("not ok - %s's callers have no synthetic node: %s" % (sys.argv[2], callers[:3])); sys.exit(1)
PY
ok "live -g: rows and caller nodes sub_<hex> (synthetic), spin_a's ahead of spin_b's, no [unknown] row"

"$PROFTOP" --batch --folded -g -d 1 -n 1 -- "$TMP/prog" 2 >"$TMP/folded" 2>"$TMP/err"
grep -q "sub_$A" "$TMP/folded" ||
	fail "folded stacks without sub_$A: $(head -3 "$TMP/folded")"
ok "--folded: stacks name sub_<hex> frames"

"$PROFTOP" --batch --json -s dso,sym,srcline -d 1 -n 1 -- "$TMP/prog" 2 >"$TMP/src.json" 2>"$TMP/err"
json_check "$TMP/src.json" "any(r.get('symbol') == 'sub_$A' and r.get('srcline', '').startswith('sub_$A+') for s in snaps for r in s['rows'])" ||
	fail "-s srcline: no sub_$A+OFF line: $(head -c 600 "$TMP/src.json")"
"$PROFTOP" --batch --json --inline -d 1 -n 1 -- "$TMP/prog" 2 >"$TMP/inl.json" 2>"$TMP/err"
json_check "$TMP/inl.json" "any(r.get('symbol') == 'sub_$A' and r.get('synthetic') for s in snaps for r in s['rows'])" ||
	fail "--inline: no sub_$A row"
ok "-s srcline falls back to sub_<hex>+OFF; --inline keeps the sub_<hex> rows"

# A debug file there at the next load: the real names, no sub_ for them.
cp "$TMP/prog" "$TMP/prog.nolink"
objcopy --only-keep-debug "$TMP/prog.full" "$TMP/prog.debug" || fail "objcopy"
objcopy --add-gnu-debuglink="$TMP/prog.debug" "$TMP/prog.nolink" "$TMP/prog.linked" || fail "debuglink"
got=$("$SYMLOOKUP" "$TMP/prog.linked" "0x$A" "0x$B")
# (spin_a, or the clone -O2 made of it: spin_a.constprop.0)
case $(echo $got) in
"spin_a"*" spin_b"*) ;;
*) fail "with the debug file: '$(echo $got)'" ;;
esac
"$PROFTOP" --batch --json -d 1 -n 1 -- "$TMP/prog.linked" 2 >"$TMP/dbg.json" 2>"$TMP/err"
json_check "$TMP/dbg.json" "any(r.get('symbol', '').startswith('spin_a') and not r.get('synthetic') for s in snaps for r in s['rows']) and not any(r.get('symbol') in ('sub_$A', 'sub_$B') for s in snaps for r in s['rows'])" ||
	fail "the debug file's names do not replace sub_$A: $(head -c 600 "$TMP/dbg.json")"
ok "a debug file (.gnu_debuglink) at the next load replaces sub_<hex> with the real names"

# ---- Debian's own stripped libraries ----
head -c 1000000 /dev/urandom | od -A n -t x1 >"$TMP/big.txt"

# system_lib NAME CMD LIB: live, LIB's samples are several sub_ rows, not
# one [unknown] lump; then perf record + -i: each raw address perf report
# prints for LIB counts for the CFI function containing it.
system_lib() {
	name=$1 cmd=$2 lib=$3
	real=$(readlink -f "$lib")
	base=$(basename "$real")
	fdes "$real" >"$TMP/$name.fdes"
	"$PROFTOP" --batch --json -d 1 -n 2 -- sh -c "$cmd" >"$TMP/$name.json" 2>"$TMP/err"
	[ -s "$TMP/$name.json" ] || fail "$name: proftop: $(cat "$TMP/err")"
	n=$(check_subs "$TMP/$name.json" "$TMP/$name.fdes" "$base") || { echo "$n"; exit 1; }
	[ "$n" -ge 3 ] || fail "$name: only $n sub_ rows of $base"
	json_check "$TMP/$name.json" "sum(r['self'] for r in snaps[-1]['rows'] if r.get('dso') == '$base' and r.get('symbol') == '[unknown]') < 1" ||
		fail "$name: $base keeps an [unknown] row"
	ok "$name live: $base is $n sub_<hex> rows (FDE starts, synthetic), no [unknown] lump"

	command -v perf >/dev/null 2>&1 || { echo "# no perf: -i not compared"; return; }
	if ! perf record -q --no-buildid-cache -o "$TMP/$name.data" -e cpu-clock -F 999 -- \
		sh -c "$cmd" >"$TMP/rec" 2>&1; then
		echo "# perf record failed ($(tail -1 "$TMP/rec")): -i not compared"
		return
	fi
	perf report -i "$TMP/$name.data" --stdio -n --sort dso,sym 2>/dev/null >"$TMP/$name.report"
	readelf -lW "$real" >"$TMP/$name.phdrs"
	"$PROFTOP" -i "$TMP/$name.data" --batch --json >"$TMP/$name.i.json" 2>"$TMP/err" ||
		fail "$name: proftop -i: $(cat "$TMP/err")"
	python3 - "$TMP/$name.report" "$TMP/$name.fdes" "$TMP/$name.phdrs" "$TMP/$name.i.json" "$base" \
		"$SYMLOOKUP" "$real" <<'PY' || exit 1
import json, re, subprocess, sys
report, fdesf, phdrs, js, base, symlookup, real = sys.argv[1:]
fdes = sorted((int(a, 16), int(b, 16)) for a, b in (l.split() for l in open(fdesf) if l.strip()))
loads = []
for l in open(phdrs):
    f = l.split()
    if f and f[0] == "LOAD":
        loads.append((int(f[1], 16), int(f[2], 16), int(f[4], 16)))
def vaddr(off):
    # perf's raw address is the file offset in the map: to ELF vaddr
    for o, v, sz in loads:
        if o <= off < o + sz:
            return off - o + v
    return off
samples = []
for l in open(report):
    m = re.match(r"\s*[\d.]+%\s+(\d+)\s+(\S+)\s+\[\.\]\s+0x([0-9a-f]+)\s*$", l)
    if m and m.group(2) == base:
        samples.append((vaddr(int(m.group(3), 16)), int(m.group(1))))
# proftop's name for each address: the CFI function containing it, or a
# name perf does not give (perf 6.1 leaves .plt.got entries raw).
names = subprocess.run([symlookup, real] + ["0x%x" % a for a, n in samples],
                       capture_output=True, text=True).stdout.split()
want, raw, addrs, plt = {}, 0, 0, 0
for (a, n), name in zip(samples, names):
    hit = [s for s, e in fdes if s <= a < e]
    key = "sub_%x" % hit[-1] if hit else "[unknown]"
    if name.endswith("@plt"):
        plt += n
        continue
    if name != key and not (key == "[unknown]" and name == "??"):
        print("not ok - 0x%x: proftop names it %s, the FDE containing it is %s" % (a, name, key)); sys.exit(1)
    raw += n
    addrs += 1
    want[key] = want.get(key, 0) + n
snaps = [json.loads(l) for l in open(js) if l.strip()]
got = {}
for r in snaps[-1]["rows"]:
    if r.get("dso") == base and (r["symbol"].startswith("sub_") or r["symbol"] == "[unknown]"):
        got[r["symbol"]] = got.get(r["symbol"], 0) + r["samples"]
if raw < 50:
    print("# only %d samples at raw addresses in %s: not compared" % (raw, base)); sys.exit(0)
diff = {k: (want.get(k, 0), got.get(k, 0)) for k in set(want) | set(got) if want.get(k, 0) != got.get(k, 0)}
top = sorted(want.items(), key=lambda kv: -kv[1])[:5]
print("# %s: %d samples at %d raw addresses in perf report, in %d CFI functions (%d in @plt entries perf leaves raw); top %s" % (base, raw, addrs, len(want), plt, top))
if diff:
    print("not ok - per CFI function (perf, proftop) differ: %s" % sorted(diff.items())[:10]); sys.exit(1)
PY
	ok "$name -i: each raw address perf report prints for $base counts in the CFI function containing it"
}

if [ -x /usr/bin/xz ] && [ -e /usr/lib/x86_64-linux-gnu/liblzma.so.5 ]; then
	system_lib xz "exec xz -9 -T1 -c $TMP/big.txt >/dev/null" /usr/lib/x86_64-linux-gnu/liblzma.so.5
else
	echo "# no xz/liblzma here"
fi
if [ -x /usr/bin/bzip2 ] && [ -e /usr/lib/x86_64-linux-gnu/libbz2.so.1.0 ]; then
	system_lib bzip2 "for i in 1 2 3; do bzip2 -9 -c $TMP/big.txt; done >/dev/null" \
		/usr/lib/x86_64-linux-gnu/libbz2.so.1.0
fi
if [ -x /usr/bin/sqlite3 ] && [ -e /usr/lib/x86_64-linux-gnu/libsqlite3.so.0 ]; then
	system_lib sqlite3 "exec sqlite3 :memory: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000000) SELECT sum(length(printf(\"%x\", x * x))) FROM c;' >/dev/null" \
		/usr/lib/x86_64-linux-gnu/libsqlite3.so.0
fi
