# Alpha ProfileMe per instruction: a recording written by mkperfdata with
# ProfileMe payloads (fixed seed) at the addresses of alpha_hot's
# instructions in a real Alpha binary (tests/helpers/alpha-code.c, built
# with alpha-linux-gnu-gcc), annotated with --annotate=alpha_hot.  Checks
# that the instructions are objdump's; that each instruction's "profileme"
# object has the counts a decoder written here in python (from the
# reference, not proftop's) gives for the samples at that address; that
# they add up, key by key, to the function's row; and the batch columns.
# Tools: apt-get install gcc-alpha-linux-gnu.
. tests/lib.sh

CC=${ALPHA_CC:-alpha-linux-gnu-gcc}
OBJDUMP=${ALPHA_OBJDUMP:-alpha-linux-gnu-objdump}
MK=${MKPERFDATA:-tests/helpers/mkperfdata}
for t in "$CC" "$OBJDUMP" python3; do
	command -v "$t" >/dev/null 2>&1 ||
		skip "$t not installed (apt-get install gcc-alpha-linux-gnu)"
done
[ -x "$MK" ] || fail "$MK is not built (make tests/helpers/mkperfdata)"

BIN=$(pwd)/$TMP/alpha-code
"$CC" -O2 -mcpu=ev67 -o "$BIN" tests/helpers/alpha-code.c -lm 2>"$TMP/cc.err" ||
	{ cat "$TMP/cc.err"; fail "$CC alpha-code.c"; }
ID=$(readelf -n "$BIN" | awk '/Build ID/ { print $3 }')
"$OBJDUMP" -d "$BIN" >"$TMP/objdump" || fail "$OBJDUMP"

# The recording: 600 samples, most in alpha_hot's loop, some in
# alpha_float; one payload in ten not ProfileMe (version 0), the first
# sample among them; what each instruction must show in truth.json.
python3 - "$TMP/objdump" "$BIN" "$ID" "$TMP/truth.json" >"$TMP/rec.txt" <<'PY' || fail "gen"
import json, random, re, struct, sys
objdump, path, bid, out = sys.argv[1:5]
funcs, cur = {}, None
for line in open(objdump):
    m = re.match(r"^([0-9a-f]+) <(\w+)>:", line)
    if m:
        cur = funcs.setdefault(m.group(2), [])
        continue
    m = re.match(r"^ +([0-9a-f]+):\t(?:[0-9a-f]{2} ){4}\t(\S+)\t?(.*)$", line)
    if m and cur is not None:
        text = (m.group(2) + " " + m.group(3)).strip()
        cur.append((int(m.group(1), 16), re.sub(r" <[^>]*>$", "", text)))
TRAPS = {0: "replay", 2: "DTB double miss (3 level)", 3: "DTB double miss (4 level)",
         4: "FP disabled", 5: "unaligned", 6: "DTB single miss", 7: "Dstream fault",
         8: "OPCDEC", 10: "machine check", 12: "arithmetic", 14: "MT_FPCR", 15: "reset"}
PAL = {0x481: "Istream access violation", 0x581: "ITB miss", 0x681: "interrupt"}
PCTR1 = ["cycles", "retire delay", "bcache misses", "mbox replays"]
def bit(x, lo, n=1):
    return (x >> lo) & ((1 << n) - 1)
rnd = random.Random(16)
hot = [a for a, _ in funcs["alpha_hot"]]
cold = [a for a, _ in funcs["alpha_float"]]
print("attr type=0 config=0 sample_type=IP|TID|TIME|CPU|PERIOD|RAW|ID period=1000 name=cycles ids=5")
print("arch alpha")
print("sample_time 100 10000")
print("comm pid=42 comm=alpha-code time=1")
print("mmap2 pid=42 start=0x120000000 len=0x10000 pgoff=0 file=%s buildid=%s time=2" % (path, bid))
truth = {}
for i in range(600):
    ip = rnd.choice(hot[3:13] * 4 + hot + cold) if i else hot[4]
    pmpc = rnd.getrandbits(64) & ~1
    if rnd.random() < 0.1:
        pmpc = (pmpc & ~0x7fff) | rnd.choice([0x481, 0x581, 0x681])
    i_stat, ctl = rnd.getrandbits(64), rnd.getrandbits(64)
    if rnd.random() < 0.8:
        ctl = (ctl & ~0xc) | (1 << 2)
    ver = 0 if i == 0 or rnd.random() < 0.1 else 1
    raw = struct.pack("<IQQQ", ver, pmpc, i_stat, ctl)
    print("sample pid=42 ip=0x%x time=%d cpu=0 raw=%s" % (ip, 100 + i, raw.hex()))
    t = truth.setdefault("%d" % ip, {"samples": 0, "retired": 0, "killed": 0, "stalled": 0,
                                     "mispredicted": 0, "icache_miss": 0, "ldst_order": 0,
                                     "taken": 0, "traps": {}, "pctr0_sum": 0, "pctr1_sum": {},
                                     "modes": {},
                                     "pctr1_samples": {}, "not_profileme": 0, "n": 0})
    t["n"] += 1
    if ver == 0:
        # counted from the first sample, as the table counts (the first
        # sample, not ProfileMe, comes before any that is)
        t["not_profileme"] += 1
        continue
    killed, trp, mis = bit(ctl, 26), bit(i_stat, 39), bit(i_stat, 40)
    trapped = trp and not killed
    name = PAL.get(pmpc & 0x7fff) if pmpc & 1 else None
    if name is None:
        name = "none" if not trapped or mis else TRAPS.get(bit(i_stat, 34, 4), "other (see PMPC)")
    t["samples"] += 1
    t["retired"] += bit(ctl, 1)
    t["taken"] += bit(ctl, 0)
    t["killed"] += killed
    t["stalled"] += bit(ctl, 27)
    t["mispredicted"] += 1 if trapped and mis else 0
    t["icache_miss"] += bit(i_stat, 33)
    t["ldst_order"] += bit(i_stat, 38)
    t["traps"][name] = t["traps"].get(name, 0) + 1
    mode = "PAL" if pmpc & 1 else "kernel" if pmpc >> 63 else "user"
    t["modes"][mode] = t["modes"].get(mode, 0) + 1
    t["pctr0_sum"] += bit(ctl, 28, 20)
    sl1 = PCTR1[bit(ctl, 2, 2)]
    t["pctr1_sum"][sl1] = t["pctr1_sum"].get(sl1, 0) + bit(ctl, 6, 20)
    t["pctr1_samples"][sl1] = t["pctr1_samples"].get(sl1, 0) + 1
json.dump({"truth": truth, "hot": funcs["alpha_hot"]}, open(out, "w"))
PY
"$MK" -o "$TMP/rec.data" "$TMP/rec.txt" || fail "mkperfdata"
ok "an Alpha ProfileMe recording of $(grep -c '^sample ' "$TMP/rec.txt") samples at alpha_hot's and alpha_float's instructions"

"$PROFTOP" -i "$TMP/rec.data" --json --annotate=alpha_hot >"$TMP/out.json" 2>"$TMP/err" ||
	fail "--json --annotate: status $? ($(tail -1 "$TMP/err"))"
python3 - "$TMP/out.json" "$TMP/truth.json" <<'PY' || exit 1
import json, sys
snap = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")][-1]
want = json.load(open(sys.argv[2]))
def bad(msg):
    print("not ok - " + msg); sys.exit(1)
fns = snap.get("annotate", [])
if len(fns) != 1 or fns[0]["symbol"] != "alpha_hot":
    bad("annotate: %s" % [f["symbol"] for f in fns])
f = fns[0]
# objdump goes on to the next symbol (alignment padding); the function
# ends at its symbol's size.
got = [(i["addr"], i["text"]) for i in f["instructions"]]
if got != [tuple(x) for x in want["hot"][:len(got)]] or len(got) * 4 != f["size"]:
    bad("instructions differ from objdump's: %s, %d for %d bytes" %
        ([g for g, w in zip(got, want["hot"]) if g != tuple(w)][:3], len(got), f["size"]))
print("ok - alpha_hot's %d instructions are objdump's" % len(got))
truth = want["truth"]
def flat(d, pre=""):
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(flat(v, pre + k + "."))
        else:
            out[pre + k] = v
    return out
n = 0
for i in f["instructions"]:
    t = truth.get(str(i["addr"]))
    if not t:
        if i["samples"] or "profileme" in i:
            bad("%x: samples where the recording has none" % i["addr"])
        continue
    if i["samples"] != t["n"]:
        bad("%x: %d samples, want %d" % (i["addr"], i["samples"], t["n"]))
    pm = flat(i["profileme"])
    for k, v in flat({k: v for k, v in t.items() if k != "n"}).items():
        if pm.get(k, 0) != v:
            bad("%x: profileme %s = %s, want %s" % (i["addr"], k, pm.get(k), v))
    for k, v in pm.items():
        if v and k not in flat(t):
            bad("%x: profileme %s = %s, want 0" % (i["addr"], k, v))
    n += 1
print("ok - each of %d sampled instructions has the ProfileMe counts of its samples" % n)
row = [r for r in snap["rows"] if r.get("symbol") == "alpha_hot"]
if len(row) != 1:
    bad("%d rows for alpha_hot" % len(row))
row = row[0]
sums = {}
for i in f["instructions"]:
    for k, v in flat(i.get("profileme", {})).items():
        sums[k] = sums.get(k, 0) + v
rowpm = flat(row["profileme"])
if sums != rowpm or flat(f["profileme"]) != rowpm:
    bad("instructions' ProfileMe sums differ from the row's: %s" %
        {k: (sums.get(k), v) for k, v in rowpm.items() if sums.get(k) != v})
if sum(i["samples"] for i in f["instructions"]) != row["samples"]:
    bad("samples do not add up to the row's")
print("ok - the instructions' ProfileMe counts add up to the row's, all %d keys" % len(rowpm))
PY

# Jump and call targets: where objdump prints " <SYM+OFF>" after an
# instruction (branches, and jsr's hint), the JSON has the same target,
# its address, and call for bsr and jsr only; elsewhere none.
"$PROFTOP" -i "$TMP/rec.data" --json --annotate=alpha_hot --annotate=alpha_float \
	>"$TMP/targets.json" 2>"$TMP/err" || fail "--json, two --annotate: status $?"
python3 - "$TMP/targets.json" "$TMP/objdump" <<'PY' || exit 1
import json, re, sys
snap = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")][-1]
want = {}
for line in open(sys.argv[2]):
    m = re.match(r"^ +([0-9a-f]+):\t(?:[0-9a-f]{2} ){4}\t(\S+)\t?.*?([0-9a-f]+) <([^>]*)>$", line)
    if m:
        want[int(m.group(1), 16)] = (m.group(4), int(m.group(3), 16), m.group(2) in ("bsr", "jsr"))
n = calls = 0
for f in snap.get("annotate", []):
    for i in f["instructions"]:
        got = (i["target"], i["target_addr"], i["call"]) if "target" in i else None
        if got != want.get(i["addr"]):
            print("not ok - %s %x %s: target %s, objdump %s" % (f["symbol"], i["addr"], i["text"],
                                                              got, want.get(i["addr"])))
            sys.exit(1)
        n += got is not None
        calls += bool(got and got[2])
if n < 5 or not calls:
    print("not ok - only %d targets (%d calls) in %s" %
          (n, calls, [f["symbol"] for f in snap.get("annotate", [])]))
    sys.exit(1)
print("ok - %d jump/call targets (%d calls) are objdump's, in %d functions" %
      (n, calls, len(snap["annotate"])))
PY

"$PROFTOP" -i "$TMP/rec.data" --batch --annotate=alpha_hot >"$TMP/out.txt" 2>"$TMP/err" ||
	fail "--batch --annotate: status $?"
sed -n '/^Annotate alpha_hot/,$p' "$TMP/out.txt" >"$TMP/ann.txt"
head -2 "$TMP/ann.txt" | tail -1 | grep -q 'Address  *Retired  *Killed  *Stalled  *Mispred  *Traps  *Trap  *ICmiss  *LdSt  *RetDly  *Instruction' ||
	{ head -3 "$TMP/ann.txt"; fail "batch: no ProfileMe columns in the annotate header"; }
# The hottest line: its Retired cell is the python count's share.
python3 - "$TMP/ann.txt" "$TMP/truth.json" <<'PY' || exit 1
import json, sys
lines = open(sys.argv[1]).read().splitlines()[2:]
truth = json.load(open(sys.argv[2]))["truth"]
rows = [l.split() for l in lines if l.strip()]
top = max(rows, key=lambda r: int(r[1]))
t = truth[str(int(top[2], 16))]
want = "%.1f%%" % (100.0 * t["retired"] / t["samples"])
if top[3] != want:
    print("not ok - batch: Retired of %s is %s, want %s" % (top[2], top[3], want)); sys.exit(1)
print("ok - batch: the hottest instruction (%s) shows Retired %s" % (top[2], want))
PY
rm -rf "$TMP"
