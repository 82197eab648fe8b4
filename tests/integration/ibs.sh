# AMD IBS from recordings: perf.data files written by tests/helpers/mkperfdata
# with an x86_64 ARCH, an AMD CPUID, ibs_op/ibs_fetch in PMU_MAPPINGS and
# random IBS register blocks (fixed seeds).  -D prints, for every valid IBS
# sample, the lines perf 6.1's report -D prints for the same file (compared
# byte for byte, perf decodes these headers on a machine without the PMU);
# --json per-row counters equal those a decoder written here in python
# from the kernel's amd-ibs.h computes, and add up; short blocks and caps
# claiming absent registers count as not IBS; a byte-swapped file gives the
# same counts; an Intel CPUID or no PMU mapping decodes nothing; the batch
# table and --order show the columns.  Live IBS: see the end.
. tests/lib.sh

MK=${MKPERFDATA:-tests/helpers/mkperfdata}
[ -x "$MK" ] || fail "$MK is not built (make tests/helpers/mkperfdata)"
WL=$(cd "$(dirname "$WORKLOAD")" && pwd)/$(basename "$WORKLOAD")
BASE=0x555555554000
addr() {
	a=$(nm "$WL" | awk -v s="$1" '$3 == s { print $1 }')
	[ -n "$a" ] || fail "no $1 in $WL"
	printf '0x%x' $((BASE + 0x$a + 4))
}
A=$(addr leaf_a)
B=$(addr leaf_b)
C=$(addr leaf_c)
ID=$(readelf -n "$WL" | awk '/Build ID/ { print $3 }')

GEN=tests/helpers/ibs_gen.py

# decode.py: the field layouts of the kernel's amd-ibs.h and the caps of
# its ibs.c, written again for the test (not proftop's code).
cat >"$TMP/decode.py" <<'PY'
import struct
def bit(x, lo, n=1):
    return (x >> lo) & ((1 << n) - 1)
def regs(raw, base, opt):
    if len(raw) < 4 + 8 * base:
        return None
    caps = struct.unpack("<I", raw[:4])[0]
    n = base + sum(1 for c in opt if caps & c)
    if len(raw) < 4 + 8 * n:
        return None
    return caps, struct.unpack("<%dQ" % n, raw[4:4 + 8 * n])
def errata(fam, model):
    return fam == 0x19 and model < 0x10
def op(raw, fam, model):
    r = regs(raw, 7, [1 << 5, 1 << 10])
    if not r:
        return None
    caps, v = r
    ctl, rip, d, d2, d3 = v[:5]
    if not (bit(ctl, 17) and bit(ctl, 18)):
        return None
    zen4 = bool(caps & (1 << 11))
    o = dict(brn_ret=bit(d, 37), taken=bit(d, 35), misp=bit(d, 36), ret=bit(d, 34),
             tag=bit(d, 16, 16), comp=bit(d, 0, 16), ld=bit(d3, 0), st=bit(d3, 1),
             l1tlb=bit(d3, 2), l2tlb=bit(d3, 3), dcmiss=bit(d3, 7), l2miss=bit(d3, 20),
             lat=bit(d3, 32, 16), locked=bit(d3, 15), uc=bit(d3, 14), misacc=bit(d3, 8),
             micro=bit(d, 40), fuse=bit(d, 39))
    valid = not (errata(fam, model) and (bit(d3, 16) or bit(d3, 21)))
    o["l2valid"] = valid
    src = bit(d2, 0, 3) | ((bit(d2, 6, 2) << 3) if zen4 else 0)
    rmt = bit(d2, 4)
    s = "none"
    if o["ld"] and o["dcmiss"]:
        if valid and not o["l2miss"]:
            s = "l2"
        elif not valid or src == 0:
            s = "none"
        elif zen4:
            s = {1: "l3", 2: "other_ccx", 3: "remote_dram" if rmt else "dram",
                 5: "remote_cache", 7: "io"}.get(src, "other")
        else:
            s = {2: "remote_cache" if rmt else "l3", 3: "remote_dram" if rmt else "dram",
                 4: "remote_cache", 7: "io"}.get(src, "other")
    o["src"] = s
    return o
def fetch(raw, fam, model):
    r = regs(raw, 3, [1 << 9])
    if not r:
        return None
    caps, v = r
    c = v[0]
    if not (bit(c, 48) and bit(c, 49)):
        return None
    zen4 = bool(caps & (1 << 11))
    return dict(comp=bit(c, 50), icmiss=bit(c, 51), icvalid=not errata(fam, model),
                l1tlb=bit(c, 55), l2tlb=bit(c, 56), l2miss=bit(c, 58), lat=bit(c, 32, 16),
                zen4=zen4, ocmiss=zen4 and bit(c, 60), l3miss=zen4 and bit(c, 61))
def want_op(samples, fam, model):
    w = {}
    for ip, raw in samples:
        s = w.setdefault(ip, dict(samples=0, not_ibs=0, branches=0, taken=0, mispredicted=0,
                                  returns=0, ret_mispredicted=0, loads=0, stores=0, dc_miss=0,
                                  l2_miss=0, l2_known=0, loads_stores=0, dtlb_l1_miss=0,
                                  dtlb_l2_miss=0, load_latency_sum=0, load_latency_n=0,
                                  tag_to_retire_sum=0, comp_to_retire_sum=0, locked=0,
                                  uncacheable=0, misaligned=0, microcode=0, fused=0,
                                  source=dict(none=0, l2=0, l3=0, other_ccx=0, dram=0,
                                              remote_cache=0, remote_dram=0, io=0, other=0)))
        o = op(raw, fam, model)
        if not o:
            s["not_ibs"] += 1
            continue
        s["samples"] += 1
        if o["brn_ret"]:
            s["branches"] += 1
            s["taken"] += o["taken"]
            s["mispredicted"] += o["misp"]
            s["returns"] += o["ret"]
            s["ret_mispredicted"] += o["ret"] and o["misp"]
        s["loads"] += o["ld"]
        s["stores"] += o["st"]
        if o["ld"]:
            s["dc_miss"] += o["dcmiss"]
            if o["l2valid"]:
                s["l2_known"] += 1
                s["l2_miss"] += o["dcmiss"] and o["l2miss"]
            if o["dcmiss"]:
                s["load_latency_sum"] += o["lat"]
                s["load_latency_n"] += 1
                s["source"][o["src"]] += 1
        if o["ld"] or o["st"]:
            s["loads_stores"] += 1
            s["dtlb_l1_miss"] += o["l1tlb"]
            s["dtlb_l2_miss"] += o["l2tlb"]
        s["tag_to_retire_sum"] += o["tag"]
        s["comp_to_retire_sum"] += o["comp"]
        s["locked"] += o["locked"]
        s["uncacheable"] += o["uc"]
        s["misaligned"] += o["misacc"]
        s["microcode"] += o["micro"]
        s["fused"] += o["fuse"]
    return w
def want_fetch(samples, fam, model):
    w = {}
    for ip, raw in samples:
        s = w.setdefault(ip, dict(samples=0, not_ibs=0, completed=0, aborted=0, ic_miss=0,
                                  ic_miss_known=0, itlb_l1_miss=0, itlb_l2_miss=0, l2_miss=0,
                                  l3_miss=0, oc_miss=0, zen4=0, latency_sum=0))
        f = fetch(raw, fam, model)
        if not f:
            s["not_ibs"] += 1
            continue
        s["samples"] += 1
        s["completed"] += f["comp"]
        s["aborted"] += 1 - f["comp"]
        if f["icvalid"]:
            s["ic_miss_known"] += 1
            s["ic_miss"] += f["icmiss"]
        s["itlb_l1_miss"] += f["l1tlb"]
        s["itlb_l2_miss"] += f["l2tlb"]
        s["l2_miss"] += f["comp"] and f["l2miss"]
        s["latency_sum"] += f["lat"]
        s["zen4"] += f["zen4"]
        s["l3_miss"] += f["l3miss"]
        s["oc_miss"] += f["ocmiss"]
    return w
PY

gen() { # NAME KIND SEED CPUID ZEN4 BAD
	python3 "$GEN" "$2" "$3" "$4" "$5" "$6" "$TMP/truth.$1.json" "$A" "$B" "$C" "$WL" "$ID" \
		>"$TMP/$1.txt" || fail "gen.py $1"
	"$MK" -o "$TMP/$1.data" "$TMP/$1.txt" || fail "mkperfdata $1"
}
gen op4 op 1 AuthenticAMD,25,17,1 1 0     # Zen 4: DataSrc extension, L3MissOnly
gen op3 op 2 AuthenticAMD,23,49,0 0 0     # Zen 2
gen operr op 3 AuthenticAMD,25,1,1 0 0    # family 19h model 1: errata 1293
gen fe4 fetch 4 AuthenticAMD,25,17,1 1 0
gen feerr fetch 5 AuthenticAMD,25,1,1 0 0 # erratum 1238, 1347
gen opbad op 6 AuthenticAMD,25,17,1 1 1
gen febad fetch 7 AuthenticAMD,23,49,0 0 1
gen opb4 op 8 AuthenticAMD,25,17,1 1 bits  # each bit alone, then all: Zen 4 caps
gen opb0 op 8 AuthenticAMD,25,17,1 0 bits  # the same CPU, caps without the Zen 4 bit
gen opb3 op 8 AuthenticAMD,23,49,0 0 bits
gen feb4 fetch 8 AuthenticAMD,25,17,1 1 bits
gen feb0 fetch 8 AuthenticAMD,25,17,1 0 bits
gen oplong op 9 AuthenticAMD,25,17,1 1 long
gen felong fetch 10 AuthenticAMD,23,49,0 0 long
{ echo "order swapped"; cat "$TMP/opbad.txt"; } >"$TMP/opswap.txt"
"$MK" -o "$TMP/opswap.data" "$TMP/opswap.txt" || fail "mkperfdata swapped"
cp "$TMP/truth.opbad.json" "$TMP/truth.opswap.json"
{ echo "pipe"; cat "$TMP/op4.txt"; } >"$TMP/oppipe.txt"
"$MK" -o "$TMP/oppipe.data" "$TMP/oppipe.txt" || fail "mkperfdata pipe"
cp "$TMP/truth.op4.json" "$TMP/truth.oppipe.json"
sed 's/^cpuid .*/cpuid GenuineIntel,6,85,4/' "$TMP/op4.txt" >"$TMP/intel.txt"
grep -v '^pmu ' "$TMP/op4.txt" >"$TMP/nomap.txt"
"$MK" -o "$TMP/intel.data" "$TMP/intel.txt" && "$MK" -o "$TMP/nomap.data" "$TMP/nomap.txt" ||
	fail "mkperfdata intel/nomap"
ok "mkperfdata wrote IBS Op and Fetch recordings (Zen 2, Zen 4, family 19h model 1, bad blocks, swapped, pipe)"

# -D against perf 6.1 on the files with only whole blocks (perf reads past
# a short one: it checks no length).
IBSRE='^(ibs_|Ibs|ic_ibs_)'
if command -v perf >/dev/null 2>&1; then
	for f in op4 op3 operr fe4 feerr opb4 opb0 opb3 feb4 feb0; do
		perf report -D -i "$TMP/$f.data" 2>/dev/null | grep -E "$IBSRE" | grep -v ' stats:$' \
			>"$TMP/$f.perf"
		"$PROFTOP" -i "$TMP/$f.data" -D 2>"$TMP/$f.err" | grep -E "$IBSRE" >"$TMP/$f.pt" ||
			fail "-D $f: $(cat "$TMP/$f.err")"
		[ -s "$TMP/$f.perf" ] || { echo "SKIP: perf report -D decodes no IBS here"; break; }
		cmp -s "$TMP/$f.perf" "$TMP/$f.pt" || {
			diff "$TMP/$f.perf" "$TMP/$f.pt" | head -10 | sed 's/^/# /'
			fail "-D $f: the IBS lines differ from perf report -D's"
		}
	done
	[ -s "$TMP/op4.perf" ] && ok "-D: $(wc -l <"$TMP/op4.perf") lines (Zen 4 Op) and 9 more files (5 with each bit alone and all bits) equal perf report -D's, byte for byte"
else
	echo "SKIP: no perf: -D not compared"
fi

# --json: the per-row counters of the python decoder, adding up to the
# totals; the bad blocks count as not IBS.
check_json() { # NAME KIND FAMILY MODEL
	"$PROFTOP" -i "$TMP/$1.data" --json >"$TMP/$1.json" 2>"$TMP/$1.jerr" ||
		fail "--json $1: $(cat "$TMP/$1.jerr")"
	python3 - "$TMP/$1.json" "$TMP/truth.$1.json" "$TMP/decode.py" "$2" "$3" "$4" "$A" "$B" "$C" <<'PY' || fail "--json $1"
import json, sys
exec(open(sys.argv[3]).read())
snap = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]
truth = json.load(open(sys.argv[2]))
kind, fam, model = sys.argv[4], int(sys.argv[5]), int(sys.argv[6])
names = dict(zip(sys.argv[7:10], ["leaf_a", "leaf_b", "leaf_c"]))
samples = [(names[s["ip"]], bytes.fromhex(s["raw"])) for s in truth]
dec = op if kind == "op" else fetch
for s in truth:  # the blocks made bad on purpose are the ones this decoder rejects
    if "bad" in s and (dec(bytes.fromhex(s["raw"]), fam, model) is None) != s["bad"]:
        print("not ok - python decoder: block %s: bad is %s" % (s["raw"], s["bad"])); sys.exit(1)
want = (want_op if kind == "op" else want_fetch)(samples, fam, model)
key = "ibs_" + kind
def bad(msg):
    print("not ok - " + msg); sys.exit(1)
rows = {r["symbol"]: r for r in snap["rows"]}
tot = {}
for name, w in want.items():
    got = rows[name].get(key)
    if got is None:
        bad("row %s has no %s object" % (name, key))
    if set(got) != set(w):
        bad("%s: keys %s, want %s" % (name, sorted(got), sorted(w)))
    for k, v in w.items():
        if got.get(k) != v:
            bad("%s: %s is %r, want %r" % (name, k, got.get(k), v))
    for k, v in got.items():
        if isinstance(v, int):
            tot[k] = tot.get(k, 0) + v
for k, v in tot.items():
    if snap[key][k] != v:
        bad("rows' %s add up to %d, total %d" % (k, v, snap[key][k]))
nibs = sum(w["samples"] for w in want.values())
nnot = sum(w["not_ibs"] for w in want.values())
for k in (key, "ibs"):  # the decoder's keys, and the family's of the issue
    if snap[k + "_samples"] != nibs or snap["not_" + k] != nnot:
        bad("counts %s_samples/not_%s %s/%s, want %d/%d" % (k, k, snap[k + "_samples"],
                                                          snap["not_" + k], nibs, nnot))
print("# %s: %d IBS samples, %d not" % (sys.argv[2].split("truth.")[1], nibs, nnot))
PY
}
check_json op4 op 25 17
check_json op3 op 23 49
check_json operr op 25 1
check_json fe4 fetch 25 17
check_json feerr fetch 25 1
check_json opbad op 25 17
check_json febad fetch 23 49
check_json opswap op 25 17
check_json oppipe op 25 17
ok "--json: per-row IBS counters equal the python decoder's and add up, for 9 files (bad blocks: not IBS; swapped, pipe format: same)"
for f in "opb4 op 25 17" "opb0 op 25 17" "opb3 op 23 49" "feb4 fetch 25 17" "feb0 fetch 25 17"; do
	# shellcheck disable=SC2086 # four words on purpose
	check_json $f
done
ok "--json: each documented bit alone and all bits set (Op, Fetch; Zen 4 caps bit on and off): every counter equals the python decoder's"
check_json oplong op 25 17
check_json felong fetch 23 49
for f in oplong:ibs_op_ctl felong:ibs_fetch_ctl; do
	n=${f%%:*}
	good=$(python3 -c 'import json, sys; print(sum(1 for s in json.load(open(sys.argv[1])) if not s["bad"]))' "$TMP/truth.$n.json")
	"$PROFTOP" -i "$TMP/$n.data" -D 2>"$TMP/$n.err" >"$TMP/$n.D" || fail "-D $n: $(cat "$TMP/$n.err")"
	[ "$(grep -c "^${f#*:}:" "$TMP/$n.D")" -eq "$good" ] ||
		fail "-D $n: $(grep -c "^${f#*:}:" "$TMP/$n.D") decoded blocks, want $good"
done
ok "caps words claiming registers past the payload's end: not IBS, no -D lines; the whole blocks beside them decode"

# Not decoded: an Intel CPUID, no PMU_MAPPINGS.
for f in intel nomap; do
	"$PROFTOP" -i "$TMP/$f.data" --json >"$TMP/$f.json" 2>/dev/null || fail "$f --json"
	grep -q '"ibs_op_samples"\|"ibs_samples"\|"ibs_op":' "$TMP/$f.json" && fail "$f: JSON has IBS: $(head -c 300 "$TMP/$f.json")"
	"$PROFTOP" -i "$TMP/$f.data" -D 2>/dev/null | grep -q -E "$IBSRE" && fail "$f: -D decodes IBS"
done
ok "an Intel CPUID or no PMU mapping: no IBS columns, counts or -D lines"

# The batch table, the detail of the first row, --order.
"$PROFTOP" -i "$TMP/op4.data" --batch >"$TMP/op4.out" 2>/dev/null || fail "--batch exit status"
grep -q -E '^Overhead +Samples +Branch +BrMisp +Taken +RetMisp +Load +Store +DCmiss +L2miss +Source +DTLB1 +DTLB2 +LdLat +Tag2Ret +Cmp2Ret +Shared Object +Symbol$' "$TMP/op4.out" ||
	fail "batch titles: $(grep Overhead "$TMP/op4.out")"
grep -q -E '^ +[0-9.]+% +[0-9]+ +([0-9.]+% +){8}[[:alnum:]/ ]+ +[0-9.]+% +[0-9.]+% +([0-9.]+ +){3}workload +\[\.\] leaf_a$' "$TMP/op4.out" ||
	fail "batch leaf_a row: $(grep leaf_a "$TMP/op4.out")"
grep -q '^samples: 500 .*IBS Op: 500  not IBS Op: 0' "$TMP/op4.out" || fail "batch header counts"
grep -q '^  data source of L1D-missing loads: L2 [0-9]' "$TMP/op4.out" || fail "batch detail"
"$PROFTOP" -i "$TMP/fe4.data" --batch >"$TMP/fe4.out" 2>/dev/null || fail "fetch --batch"
grep -q -E '^Overhead +Samples +ICmiss +ITLB1 +ITLB2 +FetLat +Compl +Abort +L2miss +Shared Object +Symbol$' "$TMP/fe4.out" ||
	fail "fetch batch titles: $(grep Overhead "$TMP/fe4.out")"
ok "batch table: IBS Op and Fetch columns, counts, the first row's detail"
"$PROFTOP" -i "$TMP/op4.data" --json --order ldlat >"$TMP/ord.json" 2>/dev/null || fail "--order exit"
json_check "$TMP/ord.json" '(snaps[0]["order"] == "ldlat" and
[r["ibs_op"]["load_latency_sum"] / r["ibs_op"]["load_latency_n"] for r in snaps[0]["rows"]] ==
sorted([r["ibs_op"]["load_latency_sum"] / r["ibs_op"]["load_latency_n"] for r in snaps[0]["rows"]], reverse=True))' ||
	fail "--order ldlat: $(cat "$TMP/ord.json")"
ok "--order ldlat sorts by the mean load latency"

# --annotate: the IBS counters per instruction add up to the function's,
# which are the row's; the batch annotation has the IBS columns.
"$PROFTOP" -i "$TMP/op4.data" --annotate leaf_a --json >"$TMP/ann.json" 2>/dev/null || fail "--annotate --json"
json_check "$TMP/ann.json" '(lambda s: (lambda f, row: f["ibs_op"] == row["ibs_op"] and
all(sum(i.get("ibs_op", {}).get(k, 0) for i in f["instructions"]) == v
    for k, v in f["ibs_op"].items() if isinstance(v, int)) and
sum(1 for i in f["instructions"] if "ibs_op" in i) >= 1)(
s["annotate"][0], [r for r in s["rows"] if r["symbol"] == "leaf_a"][0]))(snaps[-1])' ||
	fail "--annotate: per-instruction IBS counts: $(head -c 600 "$TMP/ann.json")"
"$PROFTOP" -i "$TMP/op4.data" --annotate leaf_a --batch >"$TMP/ann.out" 2>/dev/null || fail "--annotate --batch"
grep -q -E '^ Percent +Samples +Address +Branch +BrMisp +Taken +RetMisp +Load +Store +DCmiss +L2miss +Source +DTLB1 +DTLB2 +LdLat +Tag2Ret +Cmp2Ret +Instruction$' "$TMP/ann.out" ||
	fail "--annotate titles: $(grep Percent "$TMP/ann.out")"
ok "--annotate: IBS Op columns per instruction, adding up to the function's and the row's"

# A hand-made recording whose columns are known: leaf_a has 4 branches (2
# taken, 2 mispredicted, 1 a return) and 6 loads (3 miss L1: from L2 in 20
# cycles, from DRAM in 300 and 280; 1 DTLB L1 miss), tag to retire 10,
# completion to retire 2; leaf_b 5 stores (1 misses both DTLBs), tag to
# retire 40.
python3 - "$A" "$B" "$WL" "$ID" >"$TMP/known.txt" <<'PY'
import struct, sys
A, B, wl, bid = sys.argv[1:5]
print("attr type=11 config=0 sample_type=IP|TID|TIME|CPU|PERIOD|RAW|ID period=100000 name=ibs_op// ids=5")
print("arch x86_64\ncpuid AuthenticAMD,25,17,1\npmu 11 ibs_op\npmu 12 ibs_fetch")
print("comm pid=42 comm=wl time=1")
print("mmap2 pid=42 start=0x555555554000 len=0x4000 pgoff=0 file=%s buildid=%s time=2" % (wl, bid))
t = [100]
def s(ip, data=0, data2=0, data3=0):
    t[0] += 1
    raw = struct.pack("<I7Q", 0x7, 3 << 17, int(ip, 16), data, data2, data3, 0, 0)
    print("sample pid=42 ip=%s time=%d cpu=0 raw=%s" % (ip, t[0], raw.hex()))
BR, TK, MP, RET = 1 << 37, 1 << 35, 1 << 36, 1 << 34
LD, ST, DCM, L2M, TLB1, TLB2 = 1, 2, 1 << 7, 1 << 20, 1 << 2, 1 << 3
A10 = (10 << 16) | 2
for d in (BR | TK, BR | TK | MP, BR | RET | MP, BR):
    s(A, d | A10)
s(A, A10, 0, LD | DCM | 20 << 32)
s(A, A10, 3, LD | DCM | L2M | 300 << 32)
s(A, A10, 3, LD | DCM | L2M | 280 << 32)
s(A, A10, 0, LD | TLB1)
s(A, A10, 0, LD)
s(A, A10, 0, LD)
s(B, 40 << 16, 0, ST | TLB1 | TLB2)
for i in range(4):
    s(B, 40 << 16, 0, ST)
PY
"$MK" -o "$TMP/known.data" "$TMP/known.txt" || fail "mkperfdata known"
"$PROFTOP" -i "$TMP/known.data" --batch >"$TMP/known.out" 2>/dev/null || fail "known --batch"
grep -q -E '^ +66\.67% +10 +40\.0% +50\.0% +50\.0% +100\.0% +60\.0% +0\.0% +50\.0% +33\.3% +DRAM +16\.7% +0\.0% +200\.0 +10\.0 +2\.0 +workload +\[\.\] leaf_a$' "$TMP/known.out" &&
	grep -q -E '^ +33\.33% +5 +0\.0% +- +- +- +0\.0% +100\.0% +- +- +- +20\.0% +20\.0% +- +40\.0 +0\.0 +workload +\[\.\] leaf_b$' "$TMP/known.out" || {
	sed 's/^/# /' "$TMP/known.out"
	fail "hand-made recording: the table is not the expected one"
}
ok "hand-made recording: every column of both rows is the value worked out by hand"

# Live: a one-line error and exit 1 where the kernel has no IBS PMU (this
# VM); where it has one, a load-heavy loop reports loads (missing L1) and
# a branchy loop branches (mispredicted), each far more than the other
# loop, and a period that is not a multiple of 16 is a usage error.
if [ -d /sys/bus/event_source/devices/ibs_op ]; then
	require_perf_events
	cat >"$TMP/ibsloops.c" <<'C'
/* IBS live check: loads_loop chases pointers through a 32 MiB random
 * cycle (four loads per loop branch, most missing L1); branch_loop takes
 * two branches on random bits per iteration (about half mispredicted)
 * and loads nothing.  Both run in turn for SECONDS (argv[1]). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define N (8u << 20)

__attribute__((noinline)) uint32_t loads_loop(const uint32_t *next, uint32_t i, uint64_t n)
{
	for (uint64_t k = 0; k < n; k++)
		i = next[next[next[next[i]]]];
	return i;
}

__attribute__((noinline)) uint64_t branch_loop(uint64_t x, uint64_t n)
{
	uint64_t s = 0;

	for (uint64_t k = 0; k < n; k++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (x & 1)
			s += k;
		else
			s ^= x;
		if (x & 2)
			s = s * 3;
		else
			s = s >> 1;
	}
	return s;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 3.0;
	uint32_t *next = malloc(N * sizeof(*next)), i = 0;
	uint64_t x = 88172645463325252ULL, s = 0;
	struct timespec t0, t;

	if (!next)
		return 1;
	for (uint32_t k = 0; k < N; k++)
		next[k] = k;
	for (uint32_t k = N - 1; k > 0; k--) { /* Sattolo: one cycle through all */
		uint32_t j, tmp;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		j = (uint32_t)(x % k);
		tmp = next[k];
		next[k] = next[j];
		next[j] = tmp;
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		i = loads_loop(next, i, 1u << 18);
		s += branch_loop(x + i, 1u << 25);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	return (s + i) == 0; /* uses both; never true in practice */
}
C
	${CC:-cc} -g -O1 -fno-if-conversion -fno-if-conversion2 -fno-inline -o "$TMP/ibsloops" \
		"$TMP/ibsloops.c" || fail "cannot build the IBS loops"
	wl_saved=$WORKLOAD
	WORKLOAD=$TMP/ibsloops
	start_workload 10 # it prints "ready PID" as the workload does
	WORKLOAD=$wl_saved
	timeout 30 "$PROFTOP" -e ibs_op -p "$WL_PID" --json -d 2 -n 1 \
		>"$TMP/live.json" 2>"$TMP/live.err" || fail "live -e ibs_op: $(cat "$TMP/live.err")"
	json_check "$TMP/live.json" '(lambda s, rows: s["ibs_samples"] > 0 and
(lambda L, B: L["samples"] >= 20 and B["samples"] >= 20 and
 L["loads"] >= 0.25 * L["samples"] and B["loads"] * L["samples"] * 4 < L["loads"] * B["samples"] and
 L["dc_miss"] >= 0.1 * L["loads"] and
 B["branches"] * L["samples"] > L["branches"] * B["samples"] and
 B["mispredicted"] >= 0.1 * B["branches"] and
 B["mispredicted"] * max(L["branches"], 1) > L["mispredicted"] * B["branches"])(
rows["loads_loop"], rows["branch_loop"]))(snaps[-1],
{r["symbol"]: r.get("ibs_op", {"samples": 0}) for r in snaps[-1]["rows"]})' ||
		fail "live ibs_op: loads_loop/branch_loop: $(head -c 1500 "$TMP/live.json")"
	"$PROFTOP" -e ibs_op -c 1000 --batch -d 0.2 -- true >/dev/null 2>"$TMP/c.err"
	[ $? -eq 2 ] && grep -q 'multiple of 16' "$TMP/c.err" || fail "-c 1000: $(cat "$TMP/c.err")"
	ok "live ibs_op: the load loop's samples are loads missing L1, the branchy loop's mispredicted branches; -c 1000 is a usage error"
else
	for ev in ibs_op ibs_fetch// ibs_op/cnt_ctl=1/; do
		"$PROFTOP" -e "$ev" --batch -d 0.2 -- true >"$TMP/nopmu.out" 2>"$TMP/nopmu.err"
		st=$?
		grep -v '^proftop: notice:' "$TMP/nopmu.err" >"$TMP/nopmu.msg"
		[ $st -eq 1 ] && [ "$(wc -l <"$TMP/nopmu.msg")" -eq 1 ] &&
			grep -q "no ${ev%%/*} PMU on this machine" "$TMP/nopmu.msg" ||
			fail "-e $ev without the PMU: exit $st, $(cat "$TMP/nopmu.err")"
	done
	ok "-e ibs_op, ibs_fetch//, ibs_op/cnt_ctl=1/ without the PMU: one line, exit 1"
	echo "SKIP: live IBS sampling: no /sys/bus/event_source/devices/ibs_op here (not an AMD CPU with IBS, or a VM that hides it)"
fi

# The browser: the IBS Op columns, the pane of the selected row, I and s.
if ! command -v tmux >/dev/null 2>&1; then
	echo "SKIP: tmux is not installed: the browser part"
	exit 0
fi
ABS_PROFTOP=$(cd "$(dirname "$PROFTOP")" && pwd)/$(basename "$PROFTOP")
ABS_TMP=$(cd "$TMP" && pwd)
tmux_start ibs 160 40 "$ABS_TMP" ||
	{ echo "SKIP: tmux cannot start a session here"; exit 0; }
keys "clear; $ABS_PROFTOP -i $ABS_TMP/op4.data; echo EXIT=\$?" Enter
wait_for 'Self +Samples +Branch +BrMisp +Taken +RetMisp +Load +Store +DCmiss +L2miss +Source +DTLB1 +DTLB2 +LdLat +Tag2Ret +Cmp2Ret +Command' "IBS Op titles"
wait_for '^IBS Op: \[\.\] leaf_a' "pane of the selected row"
wait_for '^ +data source of L1D-missing loads: L2 [0-9]+' "data sources in the pane"
keys j
wait_for '^IBS Op: \[\.\] leaf_b' "pane follows the selection"
keys I
wait_gone '^IBS Op: \[\.\]' "I hides the pane"
keys s s
wait_for '^Sort: Branch ' "s reaches the Branch column"
keys q
wait_for '^EXIT=0$' "q exits"
ok "browser: IBS Op columns, the selected row's pane, I, s, q"
