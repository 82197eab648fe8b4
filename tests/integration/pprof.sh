# --pprof: the profile.proto proftop writes, read by an independent reader
# (go tool pprof, Debian's golang-go): -top gives the table's functions and
# self shares (within 0.1 points, as the issue asks), -traces the stacks and counts of
# --folded, for a replayed recording and for a live command.
. tests/lib.sh

command -v go >/dev/null 2>&1 ||
	skip "go not found: go tool pprof is the independent reader (apt-get install golang-go, or ./configure --install-deps)"
go tool pprof -h >/dev/null 2>&1 || skip "go tool pprof does not run here"
MK=${MKPERFDATA:-tests/helpers/mkperfdata}
[ -x "$MK" ] || fail "$MK is not built (make tests/helpers/mkperfdata)"
WL=$(cd "$(dirname "$WORKLOAD")" && pwd)/$(basename "$WORKLOAD")
# pprof keeps nothing of ours, and looks up no binary: the names are in the file.
export HOME="$PWD/$TMP"
PP="go tool pprof -symbolize=none"

# top_vs_table TABLE PPROF: every function over 1% in one has the same self
# share in the other, within 0.1 points (the last table of TABLE; rows are
# summed by name, as pprof names functions; an unknown symbol with a DSO is
# "[dso]", as --folded writes it).
top_vs_table() {
	$PP -top -nodecount=200 -nodefraction=0 "$2" >"$2.top" 2>"$2.toperr" ||
		fail "go tool pprof -top $2: $(cat "$2.toperr")"
	python3 - "$1" "$2.top" <<'PY' || exit 1
import re, sys
table, top = {}, {}
row = re.compile(r'^\s*(?:([\d.]+)%\s+)?([\d.]+)%\s+\d+\s+(\S+)\s+\[.\]\s+(.+?)\s*$')
for line in open(sys.argv[1]):
    if line.startswith("proftop: "):
        table = {}
    m = row.match(line)
    if not m:
        continue
    dso, sym = m.group(3), re.sub(r' \(inlined\)$', '', m.group(4))
    if sym == "[unknown]" and dso != "[unknown]" and not dso.startswith("["):
        sym = "[%s]" % dso
    table[sym] = table.get(sym, 0.0) + float(m.group(2))
started = False
for line in open(sys.argv[2]):
    if re.match(r'^\s*flat\s+flat%', line):
        started = True
        continue
    f = line.split(None, 5)
    if started and len(f) == 6:
        top[re.sub(r' \(inline\)$', '', f[5].strip())] = float(f[1].rstrip('%'))
if not table or not top:
    print("not ok - empty: table %r, pprof %r" % (table, top)); sys.exit(1)
for name in set(table) | set(top):
    a, b = table.get(name, 0.0), top.get(name, 0.0)
    if max(a, b) >= 1 and abs(a - b) > 0.1:
        print("not ok - %s: table %.2f%%, pprof %.2f%%" % (name, a, b))
        print("# table:", sorted(table.items()), "\n# pprof:", sorted(top.items()))
        sys.exit(1)
print("# %d functions agree, first: %s" % (len(top), max(top, key=top.get)))
PY
}

# traces_vs_folded FOLDED PPROF: go tool pprof -traces, in samples, gives
# the stacks and counts of the last refresh of FOLDED.
traces_vs_folded() {
	$PP -traces -sample_index=samples "$2" >"$2.traces" 2>"$2.trerr" ||
		fail "go tool pprof -traces $2: $(cat "$2.trerr")"
	python3 - "$1" "$2.traces" <<'PY' || exit 1
import re, sys
blocks, cur = [], {}
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    if not line:
        if cur:
            blocks.append(cur)
        cur = {}
        continue
    m = re.match(r'^(.*) (\d+)$', line)
    if m:
        cur[m.group(1)] = cur.get(m.group(1), 0) + int(m.group(2))
if cur:
    blocks.append(cur)
folded = blocks[-1] if blocks else {}
traces, comm, frames, count = {}, None, None, 0
def end():
    # A stack whose samples decayed to 0 keeps its period for pprof;
    # --folded weighs by samples and leaves it out.
    if frames and count:
        key = ";".join(([comm] if comm else ["[unknown]"]) + frames[::-1])
        traces[key] = traces.get(key, 0) + count
for line in open(sys.argv[2]):
    line = line.rstrip("\n")
    if line.startswith("-----------+"):
        end()
        comm, frames, count = None, [], 0
        continue
    if frames is None:
        continue
    m = re.match(r'^\s+comm:\s+(.*)$', line)
    if m and not frames:
        comm = m.group(1).strip()
        continue
    line = re.sub(r' \(inline\)$', '', line.rstrip())
    m = re.match(r'^\s*(\d+)\s+(\S.*)$', line)
    if m and not frames:
        count, frames = int(m.group(1)), [m.group(2).strip()]
    elif line.strip():
        frames.append(line.strip())
if traces != folded:
    print("not ok - stacks differ")
    for k in sorted(set(traces) | set(folded)):
        if traces.get(k) != folded.get(k):
            print("#  %s: folded %s, pprof %s" % (k, folded.get(k), traces.get(k)))
    sys.exit(1)
print("# %d stacks agree" % len(traces))
PY
}

# A recording with chains: leaf_a 6, leaf_b 3, leaf_c (called from
# leaf_a) 1, an address in no mapping 1; all from main.
BASE=0x555555554000
addr() {
	a=$(nm "$WL" | awk -v s="$1" '$3 == s { print $1 }')
	[ -n "$a" ] || fail "no $1 in $WL"
	printf '0x%x' $((BASE + 0x$a + 4))
}
A=$(addr leaf_a)
B=$(addr leaf_b)
C=$(addr leaf_c)
M=$(addr main)
{
	cat <<EOF
attr sample_type=IP|TID|TIME|CPU|PERIOD|ID|CALLCHAIN period=1000 name=cpu-clock ids=5,6
hostname replayhost
osrelease 0.0.0-replay
arch x86_64
nrcpus 2 2
cmdline perf record ./workload
sample_time 1000 9000
comm pid=42 comm=workload time=1000
mmap2 pid=42 start=$BASE len=0x4000 pgoff=0 file=$WL time=1001
EOF
	t=2000
	for ip in $A $A $A $A $A $A $B $B $B; do
		echo "sample pid=42 ip=$ip time=$t cpu=0 callchain=0xfffffffffffffe00,$ip,$M"
		t=$((t + 10))
	done
	echo "sample pid=42 ip=$C time=$t cpu=1 callchain=0xfffffffffffffe00,$C,$A,$M"
	echo "sample pid=42 ip=0x1234 time=$((t + 5)) cpu=1 callchain=0xfffffffffffffe00,0x1234,$M"
	echo round
} >"$TMP/r.txt"
"$MK" -o "$TMP/r.data" "$TMP/r.txt" || fail "mkperfdata"

# -i with --batch: the table and the file, of the same snapshot.
"$PROFTOP" -i "$TMP/r.data" --batch --pprof="$TMP/r.pb.gz" >"$TMP/r.txt.out" 2>"$TMP/r.err" ||
	fail "-i --batch --pprof: exit status $? ($(cat "$TMP/r.err"))"
[ "$(head -c 2 "$TMP/r.pb.gz" | od -An -tx1 | tr -d ' ')" = 1f8b ] || fail "not gzip"
top_vs_table "$TMP/r.txt.out" "$TMP/r.pb.gz"
grep -q "leaf_a" "$TMP/r.pb.gz.top" && grep -q "54.55%" "$TMP/r.pb.gz.top" ||
	fail "pprof -top: $(cat "$TMP/r.pb.gz.top")"
grep -q "^Type: cpu" "$TMP/r.pb.gz.top" || fail "sample type: $(cat "$TMP/r.pb.gz.top")"
ok "-i: go tool pprof -top agrees with the batch table"

# The mapping: the recorded object's path and build ID, its executable
# segment as readelf gives it, functions only.
ID=$(readelf -n "$WL" | awk '/Build ID/ { print $3 }')
SEG=$(readelf -lW "$WL" | awk '$1 == "LOAD" && $8 == "E" { print $2, $3, $6; exit }' |
	{ read -r off va memsz && printf '0x%x/0x%x/0x%x' $((va)) $((va + memsz)) $((off)); })
$PP -raw "$TMP/r.pb.gz" >"$TMP/r.raw" 2>&1 || fail "pprof -raw: $(cat "$TMP/r.raw")"
grep -q "^1: $SEG $WL $ID \[FN\]\$" "$TMP/r.raw" ||
	fail "mapping (want $SEG): $(sed -n '/^Mappings/,$p' "$TMP/r.raw")"
ok "the mapping names $(basename "$WL") with its build ID ${ID:-(none)} and segment $SEG"
# Locations by address: each sampled leaf at its nm address + 4 (where the
# recording put the samples), callers within their call (return address
# less 1), the address outside any mapping kept as it is.
python3 - "$TMP/r.raw" "$(nm "$WL")" <<'PY' || exit 1
import re, sys
nm = {f[2]: int(f[0], 16) for f in (l.split() for l in sys.argv[2].splitlines()) if len(f) == 3}
locs = {}
for line in open(sys.argv[1]):
    m = re.match(r'^\s+\d+: 0x([0-9a-f]+) (?:M=\d+ )?(\S+) ', line)
    if m:
        locs.setdefault(m.group(2), set()).add(int(m.group(1), 16))
want = {"leaf_a": {nm["leaf_a"] + 4, nm["leaf_a"] + 3}, "leaf_b": {nm["leaf_b"] + 4},
        "leaf_c": {nm["leaf_c"] + 4}, "main": {nm["main"] + 3}, "[unknown]": {0x1234}}
if locs != want:
    print("not ok - locations %r, want %r" % ({k: sorted(map(hex, v)) for k, v in locs.items()},
                                              {k: sorted(map(hex, v)) for k, v in want.items()}))
    sys.exit(1)
PY
ok "locations at the recorded addresses (leaf_a as a leaf and as leaf_c's caller)"
# The recording's time: its file's, less its length; pid labels with -s pid.
"$PROFTOP" -i "$TMP/r.data" -s pid,dso,sym --pprof="$TMP/p.pb.gz" 2>"$TMP/r.err" || fail "-s pid"
$PP -raw "$TMP/p.pb.gz" >"$TMP/p.raw" 2>&1 || fail "pprof -raw: $(cat "$TMP/p.raw")"
python3 - "$TMP/p.raw" "$TMP/r.data" <<'PY' || exit 1
import datetime, os, re, sys
raw = open(sys.argv[1]).read()
m = re.search(r'^Time: (\S+ \S+)', raw, re.M)
t = datetime.datetime.strptime(m.group(1)[:26], "%Y-%m-%d %H:%M:%S.%f").replace(
    tzinfo=datetime.timezone.utc).timestamp()
mt = os.stat(sys.argv[2]).st_mtime
if abs(t - (mt - 8e-6)) > 1e-3:
    print("not ok - Time %s, the file's %f" % (m.group(1), mt)); sys.exit(1)
n = len(re.findall(r'^\s+pid:\[42\]$', raw, re.M))
if n != 4:
    print("not ok - %d samples labelled pid 42, want 4:\n%s" % (n, raw)); sys.exit(1)
PY
ok "-i: the profile's time is the recording's; pid labels with -s pid"

"$PROFTOP" -i "$TMP/r.data" --folded --pprof="$TMP/f.pb.gz" >"$TMP/r.folded" 2>"$TMP/r.err" ||
	fail "-i --folded --pprof: exit status $?"
traces_vs_folded "$TMP/r.folded" "$TMP/f.pb.gz"
ok "-i: go tool pprof -traces gives the --folded stacks"

# --pprof alone: no table; "-": the profile on stdout.
"$PROFTOP" -i "$TMP/r.data" --pprof="$TMP/a.pb.gz" >"$TMP/a.out" 2>"$TMP/r.err" ||
	fail "--pprof alone: exit status $?"
[ -s "$TMP/a.out" ] && fail "--pprof alone printed: $(head -3 "$TMP/a.out")"
"$PROFTOP" -i "$TMP/r.data" --pprof=- >"$TMP/s.pb.gz" 2>"$TMP/r.err" || fail "--pprof=-: status $?"
$PP -top "$TMP/s.pb.gz" >"$TMP/s.top" 2>&1 || fail "--pprof=- output: $(cat "$TMP/s.top")"
grep -q "54.55%.*leaf_a" "$TMP/s.top" || fail "--pprof=- content: $(cat "$TMP/s.top")"
ok "--pprof alone prints no table; --pprof=- writes the profile to stdout"

# A directory that does not exist: exit 1, one line naming the file.
"$PROFTOP" -i "$TMP/r.data" --pprof="$TMP/no/such/p.pb.gz" >/dev/null 2>"$TMP/e.err"
st=$?
[ $st -eq 1 ] && grep -q "no/such/p.pb.gz" "$TMP/e.err" || fail "bad path: status $st: $(cat "$TMP/e.err")"
ok "unwritable path: $(grep pprof "$TMP/e.err")"

# Live: a command's last refresh, table and file from the same snapshot;
# the file is replaced at each refresh, no temporary left behind.
require_perf_events
mkdir -p "$TMP/live"
"$PROFTOP" -d 0.5 --batch --pprof="$TMP/live/l.pb.gz" -- "$WORKLOAD" 2 >"$TMP/l.out" 2>"$TMP/l.err" ||
	fail "live --batch --pprof: exit status $? ($(cat "$TMP/l.err"))"
[ "$(ls "$TMP/live")" = l.pb.gz ] || fail "left in the directory: $(ls "$TMP/live")"
top_vs_table "$TMP/l.out" "$TMP/live/l.pb.gz"
head -20 "$TMP/live/l.pb.gz.top" | sed 's/^/# /'
for f in leaf_a leaf_b lib_leaf leaf_c; do
	grep -q " $f\$" "$TMP/live/l.pb.gz.top" || fail "live: no $f in pprof -top"
done
ok "live: go tool pprof -top agrees with the batch table"

"$PROFTOP" -d 0.5 --folded --pprof="$TMP/live/f.pb.gz" -- "$WORKLOAD" 1 >"$TMP/l.folded" 2>"$TMP/l.err" ||
	fail "live --folded --pprof: exit status $? ($(cat "$TMP/l.err"))"
traces_vs_folded "$TMP/l.folded" "$TMP/live/f.pb.gz"
ok "live: go tool pprof -traces gives the --folded stacks"

# --inline: a function inlined into another is a Line of the same Location,
# innermost first; the shares and stacks still agree.
command -v gcc >/dev/null 2>&1 || skip "gcc is not installed (the --inline fixture)"
FIX=$TMP/inlfix
gcc -O2 -g -o "$FIX" tests/helpers/inline-fixture.c || fail "cannot build the fixture"
"$PROFTOP" --accumulate -d 5 --inline --batch --pprof="$TMP/live/ib.pb.gz" -- "$FIX" 1 \
	>"$TMP/ib.out" 2>"$TMP/ib.err" || fail "--inline --batch --pprof: status $? ($(cat "$TMP/ib.err"))"
top_vs_table "$TMP/ib.out" "$TMP/live/ib.pb.gz"
grep -q "hot_inline (inline)" "$TMP/live/ib.pb.gz.top" || fail "no inlined hot_inline: $(cat "$TMP/live/ib.pb.gz.top")"
$PP -raw "$TMP/live/ib.pb.gz" >"$TMP/ib.raw" 2>&1 || fail "pprof -raw: $(cat "$TMP/ib.raw")"
grep -A1 " hot_inline " "$TMP/ib.raw" | grep -q "^  *outer_noinline " ||
	fail "hot_inline is not a line over outer_noinline: $(sed -n '/^Locations/,/^Mappings/p' "$TMP/ib.raw")"
"$PROFTOP" --accumulate -d 5 --inline --folded --pprof="$TMP/live/if.pb.gz" -- "$FIX" 1 \
	>"$TMP/if.folded" 2>"$TMP/if.err" || fail "--inline --folded --pprof: status $?"
traces_vs_folded "$TMP/if.folded" "$TMP/live/if.pb.gz"
ok "--inline: hot_inline is a line of outer_noinline's location; -top and -traces agree"
# --inline reads the DWARF: the functions name their source file (as
# eu-addr2line gives it for hot_inline's code), and the fixture's mapping
# has_filenames; without --inline none does.
SRC=$(grep " hot_inline " "$TMP/ib.raw" | head -1 | awk '{ print $(NF - 1) }' | sed 's/:[0-9]*$//')
HOT=$(nm "$FIX" | awk '$3 == "outer_noinline" { print "0x" $1 }')
WANT=$(eu-addr2line -i -e "$FIX" "$HOT" 2>/dev/null | head -1 | sed 's/:[0-9:]*$//')
# (the line table's name, relative as gcc was given it; eu-addr2line adds
# the compilation directory)
case $WANT in
*"/$SRC" | "$SRC") ;;
*) WANT="$WANT (not ending in $SRC)" SRC= ;;
esac
[ -n "$SRC" ] ||
	fail "hot_inline's file: pprof '$SRC', eu-addr2line '$WANT' ($(grep " hot_inline " "$TMP/ib.raw"))"
grep -q -E "^[0-9]+: 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ [^ ]*/$(basename "$FIX") .*\[FN\]\[FL\]\[LN\]\[IN\]\$" "$TMP/ib.raw" ||
	fail "the fixture's mapping is not [FN][FL][LN][IN]: $(sed -n '/^Mappings/,$p' "$TMP/ib.raw")"
grep -q '\[FL\]\|\[LN\]' "$TMP/r.raw" &&
	fail "has_filenames or has_line_numbers without --inline: $(sed -n '/^Mappings/,$p' "$TMP/r.raw")"
ok "--inline: source files from the DWARF ($SRC), has_filenames and has_line_numbers on the fixture's mapping"

# lines_vs_addr2line PPROF: each Location (one per address, with --inline
# too) has, Line by Line, the functions and lines eu-addr2line -i -f gives
# for its address in its mapping's file, and in the objects listed in
# $FIXTURES the file of each Line's function is the one eu-addr2line names
# there (by base name).  Not in others: a function's file is where it is
# defined, which is not always its lines' (glibc's __vfprintf_internal
# #includes a .c file in its body), and two static functions of one name
# share a Function, as they share a row.  And go tool pprof -lines -top
# gives each leaf line the samples of the addresses eu-addr2line puts on
# that line.  With "outer" (-s srcline without --inline) each Location has
# one Line, the function's own: eu-addr2line's last.
lines_vs_addr2line() {
	$PP -raw "$1" >"$1.raw" 2>&1 || fail "pprof -raw $1: $(cat "$1.raw")"
	$PP -lines -top -nodecount=100000 -nodefraction=0 -sample_index=samples "$1" \
		>"$1.ltop" 2>"$1.lterr" || fail "pprof -lines -top $1: $(cat "$1.lterr")"
	python3 - "$1.raw" "$1.ltop" "${2:-}" <<'PY' || exit 1
import collections, os, re, subprocess, sys
raw = open(sys.argv[1]).read()
outer = sys.argv[3] == "outer"
maps = dict(re.findall(r'^(\d+): 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ (\S+) ', raw, re.M))
locs, cur = {}, None
for line in raw[raw.index("\nLocations"):raw.index("\nMappings")].splitlines():
    m = re.match(r'^\s+(\d+): 0x([0-9a-f]+) (?:M=(\d+) )?(\S+) (\S*):(\d+) s=\d+$', line)
    if m:
        cur = locs[int(m.group(1))] = (int(m.group(2), 16), m.group(3), [])
        cur[2].append((m.group(4), m.group(5), int(m.group(6))))
        continue
    m = re.match(r'^\s+(\S+) (\S*):(\d+) s=\d+$', line)
    if m and cur:
        cur[2].append((m.group(1), m.group(2), int(m.group(3))))
byfile = collections.defaultdict(list)
for i, l in locs.items():
    if l[1] and os.path.isfile(maps.get(l[1], "")):
        byfile[maps[l[1]]].append(i)
want = {}
for path, ids in byfile.items():
    out = subprocess.run(["eu-addr2line", "-a", "-i", "-f", "-e", path] +
                         ["0x%x" % locs[i][0] for i in ids], capture_output=True, text=True).stdout
    answers = re.split(r'^0x[0-9a-f]+\n', out, flags=re.M)[1:]
    if len(answers) != len(ids):
        print("not ok - eu-addr2line gave %d answers for %d addresses of %s" % (len(answers), len(ids), path))
        sys.exit(1)
    for i, a in zip(ids, answers):
        rows, w = a.rstrip("\n").split("\n"), []
        for k in range(0, len(rows) - 1, 2):
            m = re.match(r'^(.*?):(\d+)(?::\d+)?$', rows[k + 1])
            if rows[k] != "??" or rows[k + 1] != "??:0":
                w.append((rows[k].split(" inlined at ")[0], m.group(1) if m else "", int(m.group(2)) if m else 0))
        want[i] = w or [("??", "", 0)]
        if outer:
            want[i] = want[i][-1:]
files = collections.defaultdict(set)
for w in want.values():
    for name, f, line in w:
        if line:
            files[name].add(os.path.basename(f))
bad, nlines, nfiles, permap = [], 0, 0, collections.Counter()
for i, w in want.items():
    got = locs[i][2]
    permap[os.path.basename(maps[locs[i][1]])] += 1
    mine = maps[locs[i][1]] in os.environ.get("FIXTURES", "").split()
    if got[-1][0].startswith("["):
        # no symbol: the object's unnamed code, with no file or line
        if got[-1][1] or got[-1][2]:
            bad.append("0x%x: %s has %s:%d" % (locs[i][0], got[-1][0], got[-1][1], got[-1][2]))
        got, w = got[:-1], w[:-1]
    if [x[2] for x in got] != [x[2] for x in w] or [x[0] for x in got[:-1]] != [x[0] for x in w[:-1]]:
        bad.append("0x%x in %s: pprof %s, eu-addr2line %s" % (locs[i][0], maps[locs[i][1]], got, w))
    for g, x in zip(got, w):
        nlines += x[2] != 0
        nfiles += bool(x[2] and mine)
        if x[2] and mine and len(files[x[0]]) == 1 and os.path.basename(g[1]) != os.path.basename(x[1]):
            bad.append("0x%x: %s's file %s, eu-addr2line %s" % (locs[i][0], g[0], g[1], x[1]))
if bad or not nlines:
    print("not ok - %d of %d locations differ from eu-addr2line (%d lines):" % (len(bad), len(want), nlines))
    print("\n".join("#  " + b for b in bad[:20]))
    sys.exit(1)
# -lines -top: the leaf Line of each sample, by eu-addr2line.
flat = collections.Counter()
samples = raw[raw.index("\nSamples:"):raw.index("\nLocations")]
for m in re.finditer(r'^\s+(\d+)\s+\d+: (\d+)', samples, re.M):
    i = int(m.group(2))
    if i in want and want[i][0][2]:
        flat[(locs[i][2][0][0], want[i][0][2])] += int(m.group(1))
top = collections.Counter()
for line in open(sys.argv[2]):
    m = re.match(r'^\s*(\d+)\s+[\d.]+%\s+[\d.]+%\s+\d+\s+[\d.]+%\s+(\S+) \S*:(\d+)(?: \(inline\))?$', line)
    if m and int(m.group(1)):
        top[(m.group(2), int(m.group(3)))] += int(m.group(1))
diff = {k: (flat.get(k), top.get(k)) for k in set(flat) | set(top)
        if flat.get(k) != top.get(k) and any(n == k[0] for n, _ in flat)}
if not flat or diff:
    print("not ok - pprof -lines -top against eu-addr2line's leaf lines: %r" % sorted(diff.items())[:20])
    sys.exit(1)
print("# %d locations, %d lines as eu-addr2line gives them (%s), %d with its file; %d leaf lines in -lines -top" %
      (len(want), nlines, ", ".join("%s %d" % kv for kv in sorted(permap.items())), nfiles, len(flat)))
PY
}
FIXTURES=$(cd "$(dirname "$FIX")" && pwd)/$(basename "$FIX")
export FIXTURES
lines_vs_addr2line "$TMP/live/ib.pb.gz"
ok "--inline: a Location per address, its Lines' functions and lines as eu-addr2line -i gives them; pprof -lines -top agrees"

# --inline's output does not depend on the order addresses come in (which
# symbol loading varies from run to run): five replays of a recording
# write the same bytes.  The recording has ld.so's and libc's frames (with
# their DWARF when libc6-dbg is installed) and the fixture built as glibc
# is, with a relative compilation directory, where a function's file once
# came out as "./src/F" or "./src/./src/F" by the address seen first.
command -v perf >/dev/null 2>&1 || skip "perf is not installed (the replayed --inline part)"
mkdir -p "$TMP/rel/src"
cp tests/helpers/inline-fixture.c "$TMP/rel/src/"
REL=$(cd "$TMP/rel" && pwd)
(cd "$REL/src" && gcc -O2 -g -fdebug-prefix-map="$REL"=. -o "$REL/inlrel" inline-fixture.c) ||
	fail "cannot build the fixture with a relative compilation directory"
FIXTURES="$FIXTURES $REL/inlrel"
perf record -q -o "$TMP/ld.data" -e cpu-clock -F 10000 -g -- sh -c \
	"'$REL/inlrel' 0.3; i=0; while [ \$i -lt 60 ]; do /bin/true; ls / >/dev/null; i=\$((i + 1)); done" \
	>/dev/null 2>&1 || skip "perf record cannot sample here"
for i in 1 2 3 4 5; do
	"$PROFTOP" -i "$TMP/ld.data" --inline --pprof="$TMP/d.pb.gz" 2>"$TMP/d.err" ||
		fail "-i --inline --pprof: status $? ($(cat "$TMP/d.err"))"
	if [ $i = 1 ]; then
		cp "$TMP/d.pb.gz" "$TMP/d1.pb.gz"
	elif ! cmp -s "$TMP/d1.pb.gz" "$TMP/d.pb.gz"; then
		$PP -raw "$TMP/d1.pb.gz" >"$TMP/d1.raw" 2>&1
		$PP -raw "$TMP/d.pb.gz" >"$TMP/d.raw" 2>&1
		fail "replay $i wrote other bytes than replay 1: $(diff "$TMP/d1.raw" "$TMP/d.raw" | head -10)"
	fi
done
lines_vs_addr2line "$TMP/d.pb.gz"
grep -q " hot_inline \./src/\./src/inline-fixture\.c:[0-9]* s=" "$TMP/d.pb.gz.raw" ||
	fail "hot_inline's file is not eu-addr2line's ./src/./src/inline-fixture.c: $(grep hot_inline "$TMP/d.pb.gz.raw" | head -3)"
ok "-i --inline: five replays write the same bytes; files, lines and -lines -top as eu-addr2line gives them"
# -s srcline (with -g) reads the DWARF too: no inlined Lines, but each
# Location's line is its function's there (the call of what is inlined).
"$PROFTOP" -i "$TMP/ld.data" -s dso,sym,srcline --pprof="$TMP/sl.pb.gz" 2>"$TMP/d.err" ||
	fail "-i -s srcline --pprof: status $? ($(cat "$TMP/d.err"))"
lines_vs_addr2line "$TMP/sl.pb.gz" outer
ok "-i -s srcline: each Location's one Line as eu-addr2line's outermost frame gives it"
