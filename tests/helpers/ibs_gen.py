#!/usr/bin/env python3
# ibs_gen.py KIND SEED CPUID ZEN4 MODE TRUTH A B C WL BUILDID: a description on stdout, the raw
# blocks in TRUTH.  KIND op or fetch; ZEN4 1 sets the caps bit (and perf's
# zen4_ibs_extensions PMU cap); MODE 0: 500 random blocks; 1: the same with
# short blocks, blocks whose caps claim registers past the end, and blocks
# without En/Val mixed in; bits: every bit of every control and data
# register set alone (beside En/Val), then all bits set; long: whole blocks
# alternating with blocks whose caps word claims more registers than the
# payload holds (TRUTH marks those "bad").
# A, B, C: the addresses of leaf_a, leaf_b, leaf_c in the workload WL
# mapped at 0x555555554000, whose build id is BUILDID.  Used by ibs.sh and
# bigendian.sh.
import json, random, struct, sys
kind, seed, cpuid, zen4, mode, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], \
    sys.argv[4] == "1", sys.argv[5], sys.argv[6]
bad = mode == "1"
A, B, C, wl, bid = sys.argv[7:12]
rnd = random.Random(seed)
typ = 11 if kind == "op" else 12
print("attr type=%d config=0 sample_type=IP|TID|TIME|CPU|PERIOD|RAW|ID period=100000 "
      "name=ibs_%s// ids=5" % (typ, kind))
print("arch x86_64")
print("cpuid %s" % cpuid)
print("pmu 4 cpu")
print("pmu 11 ibs_op")
print("pmu 12 ibs_fetch")
if zen4:
    print("pmu_cap ibs_op zen4_ibs_extensions 1")
print("sample_time 100 10000")
print("comm pid=42 comm=wl time=1")
print("mmap2 pid=42 start=0x555555554000 len=0x4000 pgoff=0 file=%s buildid=%s time=2" % (wl, bid))
CAPS = 0x3ff | (0x800 if zen4 else 0)
if kind == "fetch":
    CAPS &= ~(1 << 10)
truth = []
def sparse():
    # each bit set with probability 1/3: every bit gets seen alone and together
    x = 0
    for b in range(64):
        if rnd.random() < 1 / 3:
            x |= 1 << b
    return x
def nregs(caps):
    if kind == "op":
        return 7 + (1 if caps & (1 << 5) else 0) + (1 if caps & (1 << 10) else 0)
    return 3 + (1 if caps & (1 << 9) else 0)
def emit(i, ip, raw, isbad=False):
    print("sample pid=42 ip=%s time=%d cpu=%d raw=%s" % (ip, 100 + i, i % 2, raw.hex()))
    truth.append({"ip": ip, "raw": raw.hex(), "bad": isbad})
if mode == "bits":
    n = nregs(CAPS)
    ones = (1 << 64) - 1
    base = [3 << 17 if kind == "op" else 3 << 48] + [0] * (n - 1)
    # the control and data registers; the addresses are printed, not decoded
    which = [0, 2, 3, 4] + ([8] if n > 8 else []) if kind == "op" else [0] + ([3] if n > 3 else [])
    blocks = []
    for r in which:
        for b in range(64):
            regs = list(base)
            regs[r] |= 1 << b
            blocks.append(regs)
    blocks.append([ones] * n)
    for i, regs in enumerate(blocks):
        ip = [A, B, C][i % 3]
        regs[1] = int(ip, 16)
        emit(i, ip, struct.pack("<I%dQ" % n, CAPS, *regs))
    json.dump(truth, open(out, "w"))
    sys.exit(0)
if mode == "long":
    n = nregs(CAPS)
    more = (1 << 10) if kind == "op" else (1 << 9)
    i = 0
    def good():
        global i
        regs = [(3 << 17) if kind == "op" else (3 << 48)] + [rnd.getrandbits(64) for _ in range(n - 1)]
        regs[1] = int(A, 16)
        emit(i, A, struct.pack("<I%dQ" % n, CAPS, *regs))
        i += 1
    regs = [(3 << 17) if kind == "op" else (3 << 48)] + [rnd.getrandbits(64) for _ in range(9)]
    regs[1] = int(B, 16)
    claims = [CAPS | more, 0xffffffff, CAPS | (1 << 5) | (1 << 9) | (1 << 10)]
    for caps in claims:
        for have in range(0, nregs(caps)):
            good()
            emit(i, B, struct.pack("<I%dQ" % have, caps, *regs[:have]), True)
            i += 1
    if kind == "op":  # without BrTarget, 7 registers; caps say 8
        for have in range(0, 8):
            emit(i, C, struct.pack("<I%dQ" % have, CAPS & ~(1 << 5), *regs[:have]), have < 7)
            i += 1
    json.dump(truth, open(out, "w"))
    sys.exit(0)
for i in range(500):
    ip = rnd.choice([A] * 5 + [B] * 3 + [C] * 2)
    caps = CAPS
    if kind == "op":
        ctl = sparse() | (3 << 17)
        regs = [ctl, int(ip, 16), sparse(), sparse(), sparse(), rnd.getrandbits(64),
                rnd.getrandbits(64), rnd.getrandbits(64) | 1]
        if caps & (1 << 10):
            regs.append(rnd.getrandbits(64))
        nreg = 7 + (1 if caps & (1 << 5) else 0) + (1 if caps & (1 << 10) else 0)
    else:
        ctl = sparse() | (3 << 48)
        regs = [ctl, int(ip, 16), rnd.getrandbits(64), rnd.getrandbits(64)]
        nreg = 3 + (1 if caps & (1 << 9) else 0)
    raw = struct.pack("<I%dQ" % nreg, caps, *regs[:nreg])
    r = rnd.random() if bad else 1
    if r < 0.05:
        raw = raw[:rnd.randrange(0, len(raw))]            # short
    elif r < 0.1:
        raw = struct.pack("<I", caps | (1 << 5) | (1 << 10) | (1 << 9)) + raw[4:]  # claims more
        if kind == "fetch" and caps & (1 << 9):
            raw = raw[:-8]
    elif r < 0.15:
        raw = raw[:4] + struct.pack("<Q", regs[0] & ~((1 << 18) if kind == "op" else (1 << 49))) + raw[12:]
    print("sample pid=42 ip=%s time=%d cpu=%d raw=%s" % (ip, 100 + i, i % 2, raw.hex()))
    truth.append({"ip": ip, "raw": raw.hex()})
json.dump(truth, open(out, "w"))
