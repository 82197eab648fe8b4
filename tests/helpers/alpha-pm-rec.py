# An Alpha ProfileMe recording for mkperfdata: 600 samples (fixed seed),
# most in alpha_hot's loop, some in alpha_float, one payload in ten not
# ProfileMe (version 0, the first sample among them), at the addresses
# objdump lists; with what each instruction must show, decoded here from
# the reference (not proftop's code), into TRUTH.
# Usage: python3 alpha-pm-rec.py OBJDUMP_OUTPUT BINARY BUILD_ID TRUTH >REC.txt
# (tests/integration/annotate-alpha.sh, annotate-alpha-tui.sh)
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
