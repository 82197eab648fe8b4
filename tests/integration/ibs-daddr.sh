# -s daddr_dso,daddr_sym on AMD IBS Op recordings written by
# tests/helpers/mkperfdata: a small program's .data, .bss and .rodata
# objects (addresses from nm, maps from readelf -l as ld.so makes them),
# [heap], [stack] and an anonymous map, and addresses in no map; IbsDcLinAd
# counts only for loads and stores with IbsDcLinAddrValid.  Rows and
# percentages equal counts worked out here from the generated bits; the
# same file with PERF_SAMPLE_ADDR (the address where IBS gives one, 0
# elsewhere, as the kernel's perf mem support writes it) gives perf 6.1's
# report --mem-mode rows once perf's per-address rows are summed by symbol
# (and its unresolved addresses by mapping).  A byte-swapped file decodes
# the same; PERF_SAMPLE_ADDR alone (perf mem on another CPU) gives the
# rows too; a recording without data addresses is a usage error.
. tests/lib.sh

MK=${MKPERFDATA:-tests/helpers/mkperfdata}
[ -x "$MK" ] || fail "$MK is not built (make tests/helpers/mkperfdata)"
command -v cc >/dev/null 2>&1 || skip "no C compiler"
command -v python3 >/dev/null 2>&1 || skip "no python3"

cat >"$TMP/ds.c" <<'EOF'
int table[256] = { 1 };
char big_bss[100];
static long counter = 7;
const char message[64] = "read only";
long *volatile sink;
int main(void)
{
	sink = &counter;
	return table[3] + big_bss[5] + message[1];
}
EOF
cc -O1 -g -o "$TMP/ds" "$TMP/ds.c" || fail "cc ds.c"
DS=$(cd "$TMP" && pwd)/ds
nm "$DS" >"$TMP/ds.nm" || fail "nm"
readelf -lW "$DS" | awk '$1 == "LOAD"' >"$TMP/ds.loads" || fail "readelf -l"

# gen.py MODE SEED: the description on stdout, the expected rows (JSON) in
# $TMP/want.MODE.json.  MODE ibs: IBS raw only; ibscc: with callchains;
# ibsaddr: with ADDR and DATA_SRC (perf's --mem-mode wants DATA_SRC); addr:
# a cpu-clock event with ADDR alone.
cat >"$TMP/gen.py" <<'PY'
import json, random, struct, sys
mode, seed, tmp, ds = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
rnd = random.Random(seed)
base = 0x555555554000
syms = {}
for l in open(tmp + "/ds.nm"):
    f = l.split()
    if len(f) == 3:
        syms[f[2]] = int(f[0], 16)
PF = {"R": 1, "RW": 3, "RE": 5, "R E": 5}
if mode == "addr":
    print("attr type=1 config=0 sample_type=IP|TID|TIME|CPU|PERIOD|ADDR|ID period=100000 "
          "name=cpu-clock ids=5")
else:
    st = "IP|TID|TIME|CPU|PERIOD|RAW|ID" + ("|ADDR|DATA_SRC" if mode == "ibsaddr" else "") + \
        ("|CALLCHAIN" if mode == "ibscc" else "")
    print("attr type=11 config=0 sample_type=%s period=100000 name=ibs_op// ids=5" % st)
    print("cpuid AuthenticAMD,25,17,1\npmu 4 cpu\npmu 11 ibs_op\npmu 12 ibs_fetch")
print("arch x86_64\nsample_time 100 100000\ncomm pid=42 comm=ds time=1")
rw = None
for l in open(tmp + "/ds.loads"):
    f = l.split()
    off, va, fs, ms = (int(x, 16) for x in f[1:3] + f[4:6])
    flg = " ".join(f[6:-1])
    s, e = va & ~0xfff, (va + ms + 0xfff) & ~0xfff
    print("mmap2 pid=42 start=0x%x len=0x%x pgoff=0x%x prot=%d flags=2 file=%s time=2" %
          (base + s, e - s, off & ~0xfff, PF[flg], ds))
HEAP, STACK, ANON = 0x555555600000, 0x7ffffffde000, 0x7ffff7fb0000
print("mmap2 pid=42 start=0x%x len=0x21000 pgoff=0 prot=3 flags=0x22 file=[heap] time=2" % HEAP)
print("mmap2 pid=42 start=0x%x len=0x21000 pgoff=0 prot=3 flags=0x22 file=[stack] time=2" % STACK)
print("mmap2 pid=42 start=0x%x len=0x4000 pgoff=0 prot=3 flags=0x22 file=//anon time=2" % ANON)
# (weight, dso, sym, address maker)
places = [
    (6, "ds", "table", lambda: base + syms["table"] + rnd.randrange(1024)),
    (3, "ds", "big_bss", lambda: base + syms["big_bss"] + rnd.randrange(100)),
    (2, "ds", "counter", lambda: base + syms["counter"] + rnd.randrange(8)),
    (2, "ds", "message", lambda: base + syms["message"] + rnd.randrange(64)),
    (4, "[heap]", "[heap]", lambda: HEAP + rnd.randrange(0x21000)),
    (3, "[stack]", "[stack]", lambda: STACK + rnd.randrange(0x21000)),
    (2, "anon", "anon", lambda: ANON + rnd.randrange(0x4000)),
    (1, "[unknown]", "[unknown]", lambda: 0x10000 + rnd.randrange(0x1000)),  # in no map
]
pick = [p for p in places for _ in range(p[0])]
want = {}
ip = base + syms["main"]
for i in range(600):
    _, dso, sym, mk = rnd.choice(pick)
    addr = mk()
    ld, st, valid = rnd.random() < 0.6, rnd.random() < 0.4, rnd.random() < 0.9
    has = (ld or st) and valid
    if not has:
        dso = sym = "[unknown]"
    want[dso + "/" + sym] = want.get(dso + "/" + sym, 0) + 1
    extra = ""
    if mode == "ibscc":  # one chain for every sample: rows must still split
        extra = " callchain=0x%x,0x%x" % (ip, ip + 8)
    elif mode != "ibs":
        extra = " addr=%d" % (addr if has else 0)
    if mode == "addr":
        print("sample pid=42 tid=42 ip=0x%x time=%d cpu=0 period=1%s" % (ip, 100 + i, extra))
        continue
    d3 = int(ld) | int(st) << 1 | int(valid) << 17 | rnd.getrandbits(16) << 32
    raw = struct.pack("<I7Q", 0x1f, 3 << 17, ip, rnd.getrandbits(64) & ~(1 << 37), 0, d3,
                      addr, 0)
    print("sample pid=42 tid=42 ip=0x%x time=%d cpu=%d period=1%s raw=%s" %
          (ip, 100 + i, i % 2, extra, raw.hex()))
json.dump(want, open("%s/want.%s.json" % (tmp, mode), "w"))
PY

for m in ibs ibscc ibsaddr addr; do
	python3 "$TMP/gen.py" $m 7 "$TMP" "$DS" >"$TMP/$m.txt" || fail "gen.py $m"
	"$MK" -o "$TMP/$m.data" "$TMP/$m.txt" || fail "mkperfdata $m"
done
{ echo "order swapped"; cat "$TMP/ibs.txt"; } >"$TMP/swap.txt"
"$MK" -o "$TMP/swap.data" "$TMP/swap.txt" || fail "mkperfdata swapped"
cp "$TMP/want.ibs.json" "$TMP/want.swap.json"
cp "$TMP/want.ibsaddr.json" "$TMP/want.pipe.json"
{ echo "pipe"; cat "$TMP/ibsaddr.txt"; } >"$TMP/pipe.txt"
"$MK" -o "$TMP/pipe.data" "$TMP/pipe.txt" || fail "mkperfdata pipe"
ok "mkperfdata wrote IBS Op recordings with data addresses (raw, raw + ADDR, swapped, pipe) and a cpu-clock one with ADDR"

# rows.py MODE FILE: proftop's rows of -s daddr_dso,daddr_sym (JSON) against
# the expected counts; percentages of the batch table against them too.
cat >"$TMP/rows.py" <<'PY'
import json, sys
want = json.load(open(sys.argv[1]))
rows = {}
snap = None
for l in open(sys.argv[2]):
    snap = json.loads(l)
for r in snap["rows"]:
    k = r["daddr_dso"] + "/" + r["daddr_sym"]
    assert k not in rows, "two rows for " + k
    rows[k] = r["samples"]
if rows != want:
    sys.exit("rows %s\nwant %s" % (sorted(rows.items()), sorted(want.items())))
total = sum(want.values())
seen = 0
for l in open(sys.argv[3]):
    f = l.split()
    # Overhead, or Children and Self (with callchains: equal here), Samples
    n = 2 if len(f) > 2 and f[1].endswith("%") else 1
    if len(f) >= 4 and f[0].endswith("%") and f[n].isdigit():
        k = f[-2] + "/" + f[-1]
        exp = 100.0 * want[k] / total
        for pct in f[:n]:
            assert abs(float(pct[:-1]) - exp) < 0.006, "%s: %s, want %.2f%%" % (k, pct, exp)
        assert int(f[n]) == want[k], k
        seen += 1
assert sys.argv[3] == "/dev/null" or seen == len(want), "%d batch rows" % seen
print(total, len(want))
PY
for m in ibs ibscc swap pipe addr; do
	f=$TMP/$m.data
	[ $m = pipe ] && f=-
	if [ $m = pipe ]; then
		"$PROFTOP" -i - --json -s daddr_dso,daddr_sym <"$TMP/pipe.data" >"$TMP/$m.json" \
			2>"$TMP/$m.err" &&
			"$PROFTOP" -i - -b -s daddr_dso,daddr_sym <"$TMP/pipe.data" >"$TMP/$m.txt.out" \
				2>>"$TMP/$m.err" || fail "$m: $(cat "$TMP/$m.err")"
	else
		"$PROFTOP" -i "$f" --json -s daddr_dso,daddr_sym >"$TMP/$m.json" 2>"$TMP/$m.err" &&
			"$PROFTOP" -i "$f" -b -s daddr_dso,daddr_sym >"$TMP/$m.txt.out" \
				2>>"$TMP/$m.err" || fail "$m: $(cat "$TMP/$m.err")"
	fi
	res=$(python3 "$TMP/rows.py" "$TMP/want.$m.json" "$TMP/$m.json" "$TMP/$m.txt.out") ||
		fail "$m: rows differ from the generated counts: $res"
	ok "$m: rows and percentages of -s daddr_dso,daddr_sym equal the counts worked out (samples, rows: $res)"
done
grep -q "Data Object  *Data Symbol" "$TMP/ibs.txt.out" || fail "batch titles: $(head -5 "$TMP/ibs.txt.out")"
ok "batch titles Data Object, Data Symbol (perf's)"

# daddr_sym alone: the same rows; daddr_dso alone: one per mapping.
"$PROFTOP" -i "$TMP/ibs.data" --json -s daddr_sym >"$TMP/sym.json" 2>/dev/null ||
	fail "-s daddr_sym"
"$PROFTOP" -i "$TMP/ibs.data" --json -s sym,daddr_dso >"$TMP/dso.json" 2>/dev/null ||
	fail "-s sym,daddr_dso"
python3 - "$TMP/want.ibs.json" "$TMP/sym.json" "$TMP/dso.json" <<'PY' || fail "daddr_sym / daddr_dso alone"
import json, sys
want = json.load(open(sys.argv[1]))
last = lambda p: [json.loads(l) for l in open(p)][-1]
sym = {r["daddr_sym"]: r["samples"] for r in last(sys.argv[2])["rows"]}
assert sym == {k.split("/")[1]: v for k, v in want.items()}, sym
dso = {}
for k, v in want.items():
    dso[k.split("/")[0]] = dso.get(k.split("/")[0], 0) + v
rows = last(sys.argv[3])["rows"]
assert {r["daddr_dso"]: r["samples"] for r in rows} == dso, rows
assert all(r["symbol"] == "main" and "daddr_sym" not in r for r in rows), rows
PY
ok "-s daddr_sym alone and -s sym,daddr_dso group as expected"

# With callchains: children per data row, and no trees (the chains do not
# keep the data address: a row's tree would be every data row's).
"$PROFTOP" -i "$TMP/ibscc.data" --json -G 5 -s daddr_dso,daddr_sym >"$TMP/cc.json" 2>/dev/null ||
	fail "ibscc -G 5"
python3 - "$TMP/want.ibscc.json" "$TMP/cc.json" <<'PY' || fail "ibscc: children or trees"
import json, sys
want = json.load(open(sys.argv[1]))
snap = [json.loads(l) for l in open(sys.argv[2])][-1]
assert snap["rows"], snap
for r in snap["rows"]:
    assert "callers" not in r and "callees" not in r, r
    assert abs(r["children"] - r["self"]) < 1e-9, r
PY
ok "with callchains: children per data row, no trees"

# perf 6.1 on the same recording with ADDR: its rows are per address
# ("table+0x10", "0x00007fff..."); summed by symbol, or by mapping where
# it has no symbol, they are proftop's.
if command -v perf >/dev/null 2>&1; then
	perf report -i "$TMP/ibsaddr.data" --mem-mode --sort=dso_daddr,symbol_daddr -n --stdio \
		>"$TMP/perf.out" 2>"$TMP/perf.err" || fail "perf report --mem-mode: $(tail -3 "$TMP/perf.err")"
	python3 - "$TMP/want.ibsaddr.json" "$TMP/perf.out" <<'PY' ||
import json, re, sys
want = json.load(open(sys.argv[1]))
got = {}
for l in open(sys.argv[2]):
    m = re.match(r"\s+[\d.]+%\s+(\d+)\s+(\S+)\s+\[\.\] (\S+)", l)
    if not m:
        continue
    n, dso, sym = int(m.group(1)), m.group(2), m.group(3)
    if re.match(r"(0x)?[0-9a-f]+$", sym):
        sym = dso                      # no symbol: its mapping
    else:
        sym = re.sub(r"\+0x[0-9a-f]+$", "", sym)
    got[dso + "/" + sym] = got.get(dso + "/" + sym, 0) + n
if got != want:
    sys.exit("perf %s\nwant %s" % (sorted(got.items()), sorted(want.items())))
PY
		fail "perf report --mem-mode, summed by symbol, differs: see $TMP/perf.out"
	"$PROFTOP" -i "$TMP/ibsaddr.data" --json -s daddr_dso,daddr_sym >"$TMP/ibsaddr.json" \
		2>/dev/null || fail "ibsaddr"
	python3 "$TMP/rows.py" "$TMP/want.ibsaddr.json" "$TMP/ibsaddr.json" /dev/null >/dev/null ||
		fail "ibsaddr rows"
	ok "perf report --mem-mode --sort=dso_daddr,symbol_daddr gives the same rows, summed by symbol"
else
	echo "SKIP: no perf: the comparison with perf report --mem-mode"
fi

# The objects' names against readelf -s: every object proftop names is an
# OBJECT of ds, and .data, .bss and .rodata each have one.
readelf -sW "$DS" | awk '$4 == "OBJECT" { print $8 }' | sort -u >"$TMP/objects"
python3 - "$TMP/ibs.json" "$TMP/objects" <<'PY' || fail "object names are not readelf's OBJECTs"
import json, sys
objs = set(open(sys.argv[2]).read().split())
rows = [json.loads(l) for l in open(sys.argv[1])][-1]["rows"]
names = {r["daddr_sym"] for r in rows if r["daddr_dso"] == "ds"}
assert names == {"table", "big_bss", "counter", "message"}, names
assert names <= objs, (names, objs)
PY
ok "the data symbols are readelf -s OBJECTs of .data, .bss and .rodata"

# Usage errors: a recording whose samples have no data addresses; an IBS
# Fetch event has none either.
sed 's/|ADDR|ID/|ID/; s/ addr=[0-9]*//' "$TMP/addr.txt" >"$TMP/noaddr.txt"
"$MK" -o "$TMP/noaddr.data" "$TMP/noaddr.txt" || fail "mkperfdata noaddr"
sed 's/type=11 /type=12 /; s/name=ibs_op/name=ibs_fetch/' "$TMP/ibs.txt" >"$TMP/fetch.txt"
"$MK" -o "$TMP/fetch.data" "$TMP/fetch.txt" || fail "mkperfdata fetch"
for f in noaddr fetch; do
	"$PROFTOP" -i "$TMP/$f.data" -b -s daddr_sym >"$TMP/$f.out" 2>"$TMP/$f.err"
	st=$?
	[ $st -eq 2 ] || fail "$f: exit $st, want 2"
	[ "$(grep -c . "$TMP/$f.err")" -eq 1 ] && grep -q "no data addresses" "$TMP/$f.err" ||
		fail "$f: $(cat "$TMP/$f.err")"
	[ -s "$TMP/$f.out" ] && fail "$f: a table was printed"
done
"$PROFTOP" -i "$TMP/noaddr.data" -b -s sym >/dev/null 2>&1 || fail "noaddr without daddr"
ok "a daddr key with samples without data addresses (cpu-clock, IBS Fetch): one line, exit 2"

if [ -d /sys/bus/event_source/devices/ibs_op ]; then
	"$PROFTOP" -e ibs_op -b -n 2 -d 0.5 -s daddr_dso,daddr_sym -- "$WORKLOAD" 1 \
		>"$TMP/live.out" 2>&1 || fail "live: $(tail -3 "$TMP/live.out")"
	grep -q "Data Object" "$TMP/live.out" || fail "live: no Data Object column"
	ok "live ibs_op with -s daddr_dso,daddr_sym"
else
	echo "SKIP: live IBS: no /sys/bus/event_source/devices/ibs_op here"
fi
