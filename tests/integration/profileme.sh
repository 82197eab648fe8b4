# Alpha ProfileMe from recordings: perf.data files written by
# tests/helpers/mkperfdata with an "alpha" ARCH feature and random payloads (fixed
# seeds).  -D prints perf's three lines for every ProfileMe sample, checked
# against a decoder written here in python from the reference (not
# proftop's); --json per-row counters match the same decoder and add up to
# the totals; the batch table and the browser (tmux) show the columns; an
# x86_64 recording with the same payloads shows and counts nothing.
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

# gen.py SEED ARCH: a description on stdout, and what each sample is (for
# the checks) in $TMP/truth.SEED.ARCH.json.  Most payloads are 28 bytes of
# version 1, some version 2 with 8 more bytes, some not ProfileMe (version
# 0, 20 bytes); PMPC sometimes points at a redirect trap's PALcode entry;
# SL1 is mostly 1 (retire delay) so that the PCTR1 column says RetDly.
cat >"$TMP/gen.py" <<'PY'
import json, random, struct, sys
seed, arch, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
rnd = random.Random(seed)
A, B, C = sys.argv[4:7]
print("attr type=0 config=0 sample_type=IP|TID|TIME|CPU|PERIOD|RAW|ID period=1000 name=cycles ids=5")
print("arch %s" % arch)
print("sample_time 100 10000")
print("comm pid=42 comm=wl time=1")
print("mmap2 pid=42 start=0x555555554000 len=0x4000 pgoff=0 file=%s buildid=%s time=2" %
      (sys.argv[7], sys.argv[8]))
truth = []
for i in range(400):
    ip = rnd.choice([A] * 5 + [B] * 3 + [C] * 2)
    pmpc = rnd.getrandbits(64)
    if rnd.random() < 0.15:
        pmpc = (pmpc & ~0x7fff) | rnd.choice([0x481, 0x581, 0x681])
    i_stat = rnd.getrandbits(64)
    ctl = rnd.getrandbits(64)
    if rnd.random() < 0.8:
        ctl = (ctl & ~0xc) | (1 << 2)
    kind = rnd.random()
    if kind < 0.1:
        raw = struct.pack("<IQQQ", 0, pmpc, i_stat, ctl)
    elif kind < 0.15:
        raw = struct.pack("<IQQ", 1, pmpc, i_stat)
    elif kind < 0.3:
        raw = struct.pack("<IQQQQ", 2, pmpc, i_stat, ctl, rnd.getrandbits(64))
    else:
        raw = struct.pack("<IQQQ", 1, pmpc, i_stat, ctl)
    print("sample pid=42 ip=%s time=%d cpu=%d raw=%s" % (ip, 100 + i, i % 2, raw.hex()))
    truth.append({"ip": ip, "raw": raw.hex()})
json.dump(truth, open(out, "w"))
PY

# decode.py: the reference's facts (alpha-profileme.md and the kernel
# patch), written again for the test.
cat >"$TMP/decode.py" <<'PY'
import struct
TRAPS = {0: "replay", 2: "DTB double miss (3 level)", 3: "DTB double miss (4 level)",
         4: "FP disabled", 5: "unaligned", 6: "DTB single miss", 7: "Dstream fault",
         8: "OPCDEC", 10: "machine check", 12: "arithmetic", 14: "MT_FPCR", 15: "reset"}
PAL = {0x481: "Istream access violation", 0x581: "ITB miss", 0x681: "interrupt"}
PCTR1 = ["cycles", "retire delay", "bcache misses", "mbox replays"]
ALL_TRAPS = ["none"] + [TRAPS[k] for k in sorted(TRAPS)] + \
    ["Istream access violation", "ITB miss", "interrupt", "other (see PMPC)"]

def bits(x, lo, n):
    return (x >> lo) & ((1 << n) - 1)

def decode(raw, arch="alpha", attr_type=0):
    """None unless ProfileMe; else a dict of fields and the three -D lines."""
    if arch != "alpha" or attr_type not in (0, 4) or len(raw) < 28:
        return None
    ver, pmpc, i_stat, ctl = struct.unpack("<IQQQ", raw[:28])
    if ver < 1:
        return None
    d = dict(pmpc=pmpc, i_stat=i_stat, ctl=ctl,
             ovr=bits(i_stat, 30, 3), icm=bits(i_stat, 33, 1), tt=bits(i_stat, 34, 4),
             lso=bits(i_stat, 38, 1), trp=bits(i_stat, 39, 1), mis=bits(i_stat, 40, 1),
             tak=bits(ctl, 0, 1), val=bits(ctl, 1, 1), sl1=bits(ctl, 2, 2), sl0=bits(ctl, 4, 1),
             pctr1=bits(ctl, 6, 20), killed=bits(ctl, 26, 1), stalled=bits(ctl, 27, 1),
             pctr0=bits(ctl, 28, 20))
    trapped = d["trp"] and not d["killed"]
    d["mispredicted"] = 1 if trapped and d["mis"] else 0
    name = None
    if pmpc & 1:
        name = PAL.get(pmpc & 0x7fff)
    if name is None:
        if not trapped or d["mis"]:
            name = "none"
        else:
            name = TRAPS.get(d["tt"], "other (see PMPC)")
    d["trap"] = name
    d["mode"] = "PAL" if pmpc & 1 else "kernel" if pmpc >> 63 else "user"
    d["lines"] = [
        "ProfileMe PMPC:\t%016x %s trap %s%s" % (pmpc, d["mode"], name,
                                                " mispredicted" if d["mispredicted"] else ""),
        "ProfileMe I_STAT:\t%016x TRP %d MIS %d LSO %d TrapType %d ICM %d OVR %d" % (
            i_stat, d["trp"], d["mis"], d["lso"], d["tt"], d["icm"], d["ovr"]),
        "ProfileMe PCTR_CTL:\t%016x VAL %d TAK %d Stalled %d Killed %d SL0 %d SL1 %d "
        "PCTR0 %d PCTR1 %d (%s)" % (ctl, d["val"], d["tak"], d["stalled"], d["killed"],
                                     d["sl0"], d["sl1"], d["pctr0"], d["pctr1"],
                                     PCTR1[d["sl1"]]),
    ]
    return d
PY

for seed in 1 2 3; do
	python3 "$TMP/gen.py" $seed alpha "$TMP/truth.$seed.json" "$A" "$B" "$C" "$WL" "$ID" \
		>"$TMP/a$seed.txt" || fail "gen.py $seed"
	"$MK" -o "$TMP/a$seed.data" "$TMP/a$seed.txt" || fail "mkperfdata alpha $seed"
done
python3 "$TMP/gen.py" 1 x86_64 "$TMP/truth.x.json" "$A" "$B" "$C" "$WL" "$ID" >"$TMP/x.txt" &&
	"$MK" -o "$TMP/x.data" "$TMP/x.txt" || fail "mkperfdata x86_64"
{ echo "order swapped"; cat "$TMP/a1.txt"; } >"$TMP/s1.txt"
"$MK" -o "$TMP/s1.data" "$TMP/s1.txt" || fail "mkperfdata swapped"
ok "mkperfdata wrote alpha (3 seeds, one swapped too) and x86_64 recordings"

# -D: the three lines of every ProfileMe sample, in file order, as the
# python decoder prints them.
for f in a1 a2 a3 s1; do
	seed=${f#?}
	"$PROFTOP" -i "$TMP/$f.data" -D >"$TMP/$f.dump" 2>"$TMP/$f.err" ||
		fail "-D $f: exit status ($(cat "$TMP/$f.err"))"
	grep '^ProfileMe ' "$TMP/$f.dump" >"$TMP/$f.pm"
	python3 - "$TMP/truth.$seed.json" "$TMP/decode.py" >"$TMP/$f.want" <<'PY' || fail "decoder $f"
import json, sys
exec(open(sys.argv[2]).read())
for s in json.load(open(sys.argv[1])):
    d = decode(bytes.fromhex(s["raw"]))
    if d:
        print("\n".join(d["lines"]))
PY
	[ -s "$TMP/$f.want" ] || fail "$f: no ProfileMe samples generated"
	cmp -s "$TMP/$f.pm" "$TMP/$f.want" || {
		diff "$TMP/$f.want" "$TMP/$f.pm" | head -20 | sed 's/^/# /'
		fail "-D $f: ProfileMe lines differ from the independent decoding"
	}
done
ok "-D: $(wc -l <"$TMP/a1.want") ProfileMe lines (seed 1) match an independent decoding, for 3 seeds and a swapped file"

# Byte for byte: the tabs and the 16-digit registers.
head -3 "$TMP/a1.pm" | od -c | grep -q 'P   M   P   C   :  \\t' || fail "-D: no tab after 'PMPC:'"
grep -q -E '^ProfileMe PCTR_CTL:	[0-9a-f]{16} VAL [01] TAK [01] Stalled [01] Killed [01] SL0 [01] SL1 [0-3] PCTR0 [0-9]+ PCTR1 [0-9]+ \((cycles|retire delay|bcache misses|mbox replays)\)$' "$TMP/a1.pm" ||
	fail "-D: PCTR_CTL line format"
ok "-D lines keep perf's tabs and widths"

# --json: every row's counters are the python decoder's for the samples of
# its function; they add up to the table's totals and to the counts.
for seed in 1 2 3; do
	"$PROFTOP" -i "$TMP/a$seed.data" --json >"$TMP/a$seed.json" 2>"$TMP/a$seed.jerr" ||
		fail "--json $seed: $(cat "$TMP/a$seed.jerr")"
	python3 - "$TMP/a$seed.json" "$TMP/truth.$seed.json" "$TMP/decode.py" "$A" "$B" "$C" <<'PY' || fail "--json seed $seed"
import json, sys
exec(open(sys.argv[3]).read())
snap = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]
truth = json.load(open(sys.argv[2]))
names = dict(zip(sys.argv[4:7], ["leaf_a", "leaf_b", "leaf_c"]))
KEYS = ["samples", "retired", "taken", "killed", "stalled", "mispredicted", "icache_miss",
        "ldst_order", "pctr0_sum"]
want, npm, nnot = {}, 0, 0
for s in truth:
    d = decode(bytes.fromhex(s["raw"]))
    w = want.setdefault(names[s["ip"]], {k: 0 for k in KEYS})
    w.setdefault("traps", {t: 0 for t in ALL_TRAPS})
    w.setdefault("pctr1_sum", {p: 0 for p in PCTR1})
    w.setdefault("not_profileme", 0)
    if not d:
        nnot += 1
        w["not_profileme"] += 1
        continue
    npm += 1
    w["samples"] += 1
    for k, f in [("retired", "val"), ("taken", "tak"), ("killed", "killed"),
                 ("stalled", "stalled"), ("mispredicted", "mispredicted"),
                 ("icache_miss", "icm"), ("ldst_order", "lso"), ("pctr0_sum", "pctr0")]:
        w[k] += d[f]
    w["traps"][d["trap"]] += 1
    w["pctr1_sum"][PCTR1[d["sl1"]]] += d["pctr1"]
def bad(msg):
    print("not ok - " + msg); sys.exit(1)
if snap.get("profileme_samples") != npm or snap.get("not_profileme") != nnot:
    bad("counts %s/%s, want %d/%d" % (snap.get("profileme_samples"), snap.get("not_profileme"), npm, nnot))
rows = {r["symbol"]: r for r in snap["rows"]}
total = snap["profileme"]
sums = {k: 0 for k in KEYS}
for name, w in want.items():
    pm = rows[name].get("profileme")
    if pm is None:
        bad("row %s has no profileme object" % name)
    for k in KEYS + ["traps", "pctr1_sum", "not_profileme"]:
        if pm[k] != w[k]:
            bad("%s: %s is %r, want %r" % (name, k, pm[k], w[k]))
    if sum(pm["traps"].values()) != pm["samples"]:
        bad("%s: traps do not add up to its samples" % name)
    for k in KEYS:
        sums[k] += pm[k]
for k in KEYS:
    if sums[k] != total[k]:
        bad("rows' %s add up to %d, total %d" % (k, sums[k], total[k]))
if total["samples"] != snap["profileme_samples"]:
    bad("total samples %d != profileme_samples" % total["samples"])
if set(total["traps"]) != set(ALL_TRAPS):
    bad("trap names %s" % sorted(total["traps"]))
print("# seed %s: %d ProfileMe samples, %d not" % (sys.argv[2][-6], npm, nnot))
PY
done
ok "--json: per-row ProfileMe counters match the decoder and add up to the totals"

# The batch table: the columns, the PCTR1 label, the first row's detail.
"$PROFTOP" -i "$TMP/a1.data" --batch >"$TMP/a1.out" 2>/dev/null || fail "--batch exit status"
grep -q -E '^Overhead +Samples +Retired +Killed +Stalled +Mispred +Traps +Trap +ICmiss +LdSt +RetDly +Shared Object +Symbol$' "$TMP/a1.out" ||
	fail "batch titles: $(grep Overhead "$TMP/a1.out")"
grep -q -E '^ +[0-9.]+% +[0-9]+ +[0-9.]+% +[0-9.]+% +[0-9.]+% +[0-9.]+% +[0-9.]+% +[A-Za-z].* +[0-9.]+% +[0-9.]+% +[0-9.]+ +workload +\[\.\] leaf_a$' "$TMP/a1.out" ||
	fail "batch leaf_a row: $(grep leaf_a "$TMP/a1.out")"
grep -q '^samples: 400 .*ProfileMe: [0-9]*  not ProfileMe: [0-9]*' "$TMP/a1.out" || fail "batch header counts"
grep -q '^ProfileMe: \[\.\] leaf_a  workload$' "$TMP/a1.out" || fail "batch detail block"
grep -q '^  traps: none [0-9]*  replay [0-9]*' "$TMP/a1.out" || fail "detail trap counts"
ok "batch table: ProfileMe columns, RetDly, the first row's detail"

# --order: rows by a ProfileMe share, highest first.
"$PROFTOP" -i "$TMP/a1.data" --json --order killed >"$TMP/k.json" 2>/dev/null || fail "--order exit"
json_check "$TMP/k.json" '(
[r["profileme"]["killed"] / r["profileme"]["samples"] for r in snaps[0]["rows"]] ==
sorted([r["profileme"]["killed"] / r["profileme"]["samples"] for r in snaps[0]["rows"]], reverse=True)
and snaps[0]["order"] == "killed")' || fail "--order killed: $(cat "$TMP/k.json")"
"$PROFTOP" -i "$TMP/a1.data" --order nosuch --batch >/dev/null 2>"$TMP/order.err"
[ $? -eq 2 ] && grep -q 'known orders: overhead, retired' "$TMP/order.err" || fail "--order nosuch"
ok "--order killed sorts by the killed share; a bad key is a usage error"

# x86_64 with the same payloads: no columns, no counts, no -D lines.
"$PROFTOP" -i "$TMP/x.data" --json >"$TMP/x.json" 2>/dev/null || fail "x86 --json"
grep -q -i "\"profileme\|not_profileme" "$TMP/x.json" && fail "x86 JSON mentions ProfileMe: $(cat "$TMP/x.json")"
"$PROFTOP" -i "$TMP/x.data" --batch >"$TMP/x.out" 2>/dev/null || fail "x86 --batch"
grep -q -E 'Retired|ProfileMe' "$TMP/x.out" && fail "x86 table has ProfileMe: $(cat "$TMP/x.out")"
"$PROFTOP" -i "$TMP/x.data" -D 2>/dev/null | grep -q '^ProfileMe' && fail "x86 -D decodes ProfileMe"
ok "x86_64 recording: no columns, no counts, no -D lines"

# Alpha, but no payload is ProfileMe (a software event; short payloads):
# counted as not ProfileMe, no columns.
sed -e 's/^attr type=0 config=0 /attr type=1 config=0 /' -e 's/name=cycles/name=cpu-clock/' \
	"$TMP/a1.txt" >"$TMP/sw.txt"
"$MK" -o "$TMP/sw.data" "$TMP/sw.txt" || fail "mkperfdata software"
"$PROFTOP" -i "$TMP/sw.data" --json >"$TMP/sw.json" 2>/dev/null || fail "software --json"
json_check "$TMP/sw.json" '(snaps[0]["profileme_samples"] == 0 and
snaps[0]["not_profileme"] == 400 and "profileme" not in snaps[0] and
all("profileme" not in r for r in snaps[0]["rows"]))' || fail "software event: $(cat "$TMP/sw.json")"
"$PROFTOP" -i "$TMP/sw.data" -D 2>/dev/null | grep -q '^ProfileMe' && fail "software -D decodes"
ok "alpha software event: 400 not ProfileMe, no columns, no -D lines"

# The browser: columns, the pane of the selected row, I and s.
if ! command -v tmux >/dev/null 2>&1; then
	echo "SKIP: tmux is not installed: the browser part"
	exit 0
fi
ABS_PROFTOP=$(cd "$(dirname "$PROFTOP")" && pwd)/$(basename "$PROFTOP")
ABS_TMP=$(cd "$TMP" && pwd)
tmux_start pm 160 40 "$ABS_TMP" ||
	{ echo "SKIP: tmux cannot start a session here"; exit 0; }
keys "clear; $ABS_PROFTOP -i $ABS_TMP/a1.data; echo EXIT=\$?" Enter
wait_for 'Self +Samples +Retired +Killed +Stalled +Mispred +Traps +Trap +ICmiss +LdSt +RetDly +Command' "ProfileMe titles"
wait_for '[0-9.]+% +[0-9.]+% +[0-9.]+% .*\[\.\] leaf_a$' "leaf_a row with shares"
wait_for '^ProfileMe: \[\.\] leaf_a' "pane of the selected row"
wait_for '^ +traps: none [0-9]+' "trap counts in the pane"
ok "browser: ProfileMe columns and the selected row's pane"
keys j
wait_for '^ProfileMe: \[\.\] leaf_b' "pane follows the selection"
keys I
wait_gone '^ProfileMe: \[\.\]' "I hides the pane"
keys I
wait_for '^ProfileMe: \[\.\]' "I shows it again"
ok "the pane follows the selection; I hides and shows it"
keys s s
wait_for '^Sort: Retired ' "s reaches the Retired column"
keys q
wait_for '^EXIT=0$' "q exits"
ok "s sorts by the ProfileMe columns; q exits 0"
