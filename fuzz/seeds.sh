#!/bin/sh
# Writes the seed corpora for the fuzz targets into DIR/TARGET/, from the
# test-data writer (tests/helpers/mkperfdata), the test binaries and /proc: nothing
# binary is kept in the tree.  usage: fuzz/seeds.sh DIR
set -eu
DIR=$1
MK=${MKPERFDATA:-tests/helpers/mkperfdata}
mkdir -p "$DIR/fuzz_perfdata" "$DIR/fuzz_record" "$DIR/fuzz_profileme" "$DIR/fuzz_ibs" "$DIR/fuzz_maps" \
	"$DIR/fuzz_kallsyms" "$DIR/fuzz_elfsyms" "$DIR/fuzz_perfmap" "$DIR/fuzz_cfi" "$DIR/fuzz_disasm" \
	"$DIR/fuzz_alpha_disasm" "$DIR/fuzz_offcpu" "$DIR/fuzz_pprof"

# perf.data: each description in native, swapped, pipe and swapped pipe form.
desc_basic() {
	cat <<'D'
attr sample_type=IP|TID|TIME|CPU|PERIOD|ID|CALLCHAIN period=1000 name=cpu-clock ids=5,6
hostname fuzzhost
osrelease 6.1.0
arch x86_64
nrcpus 2 2
cmdline perf record ./workload
sample_time 1000 5000
build_id pid=42 id=0102030405060708090a0b0c0d0e0f1011121314 file=/usr/bin/workload
comm pid=42 tid=42 comm=workload time=1000
mmap2 pid=42 tid=42 start=0x400000 len=0x4000 pgoff=0 maj=8 min=1 ino=77 prot=5 flags=2 file=/usr/bin/workload time=1001
mmap2 pid=42 tid=42 start=0x7f0000000000 len=0x2000 pgoff=0x1000 prot=5 buildid=0102030405060708090a0b0c0d0e0f1011121314 file=/lib/libc.so.6 time=1002
sample pid=42 tid=42 ip=0x401000 time=3000 cpu=1 id=6 callchain=0xfffffffffffffe00,0x401000,0x401234
sample pid=42 tid=43 ip=0x401010 time=2000 cpu=0
round
sample pid=42 tid=42 ip=0xffffffff81000000 misc=1 time=4000 cpu=0
lost id=5 lost=3
round
fork pid=43 ppid=42 tid=43 ptid=42 time=4500
exit pid=43 ppid=42 tid=43 ptid=42 time=5000
D
}
desc_raw() {
	cat <<'D'
attr type=4 sample_type=IP|TID|TIME|RAW|IDENTIFIER period=1 sample_id_all=1 name=pme ids=1
arch alpha
comm pid=7 tid=7 comm=pm time=1 id=1
mmap pid=7 tid=7 start=0x120000000 len=0x10000 pgoff=0 file=/bin/pm time=2
sample pid=7 tid=7 ip=0x120001000 time=10 raw=0100000000100020010000000000000000a0c00000000000030000000000000000
sample pid=7 tid=7 ip=0x120001004 time=11 raw=01000000
D
}
desc_multi() {
	cat <<'D'
attr sample_type=IP|TID|TIME|ID|CPU|PERIOD sample_id_all=1 freq=4000 name=cycles ids=1,2
attr sample_type=IP|TID|TIME|ID|CPU|PERIOD|ADDR sample_id_all=1 period=100 name=instructions ids=3,4
comm pid=1 tid=1 comm=init time=1 id=1
sample attr=0 pid=1 tid=1 ip=0x1000 time=5 id=1 period=10
sample attr=1 pid=1 tid=1 ip=0x1004 time=4 id=3 addr=0xdead period=7
record type=3 hex=0100000001000000696e6974000000000100000001000000
finished_init
round
D
}
n=0
for d in desc_basic desc_raw desc_multi; do
	for v in native swapped pipe swappedpipe; do
		n=$((n + 1))
		case $v in
		native) pre= ;;
		swapped) pre="order swapped" ;;
		pipe) pre="pipe" ;;
		swappedpipe) pre="order swapped
pipe" ;;
		esac
		{ [ -z "$pre" ] || echo "$pre"; $d; } | "$MK" -o "$DIR/fuzz_perfdata/$d-$v.data" ||
			echo "seeds.sh: mkperfdata failed for $d $v" >&2
	done
done

# Records: a 48-byte attr prefix (see fuzz/fuzz_record.c) and one record,
# cut from the perf.data seeds' data sections by a small python script.
python3 - "$DIR" <<'PY'
import os, struct, sys
d = sys.argv[1]
out = os.path.join(d, "fuzz_record")
IP, TID, TIME, ADDR, READ, CALLCHAIN, ID, CPU, PERIOD, STREAM, RAW = (
    1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
BRANCH, REGS_USER, STACK_USER, WEIGHT, DATA_SRC, IDENT = 2048, 4096, 8192, 16384, 32768, 65536
def attr(st, rf=0, bst=0, ru=0, ri=0, sid=1, freq=0, period=1):
    return struct.pack("<6Q", st, rf, bst, ru, ri, sid | freq << 1 | period << 8)
def rec(t, misc, body):
    body += b"\0" * (-len(body) % 8)
    return struct.pack("<IHH", t, misc, 8 + len(body)) + body
seeds = {
    "sample-basic": attr(IP | TID | TIME | CPU | PERIOD | ID) +
        rec(9, 2, struct.pack("<QIIQQIIQ", 0x401000, 42, 42, 100, 6, 1, 0, 1000)),
    "sample-chain": attr(IP | TID | CALLCHAIN | RAW) +
        rec(9, 2, struct.pack("<QIIQQQQ", 0x401000, 1, 1, 3, 0xfffffffffffffe00, 1, 2) +
            struct.pack("<I", 28) + bytes(range(28))),
    "sample-all": attr(IDENT | IP | TID | TIME | ADDR | READ | ID | STREAM | CPU | PERIOD |
                       CALLCHAIN | RAW | BRANCH | REGS_USER | STACK_USER | WEIGHT | DATA_SRC,
                       rf=1 | 2 | 4 | 8, ru=0x7) +
        rec(9, 1, struct.pack("<17Q", *range(1, 18)) + struct.pack("<Q", 0) +
            struct.pack("<I", 4) + b"abcd" + struct.pack("<QQQQ", 1, 1, 2, 3) +
            struct.pack("<QQQQ", 2, 1, 2, 3) + struct.pack("<QQQ", 8, 99, 8) +
            struct.pack("<QQ", 5, 6)),
    "sample-group": attr(TID | READ, rf=8 | 4) +
        rec(9, 0, struct.pack("<IIQQQQQ", 1, 1, 2, 10, 11, 20, 21)),
    "mmap2": attr(TID | TIME) +
        rec(10, 2, struct.pack("<IIQQQIIQQII", 1, 1, 0x400000, 0x1000, 0, 8, 1, 7, 0, 5, 2) +
            b"/bin/true\0" + struct.pack("<IIQ", 1, 1, 99)),
    "mmap2-buildid": attr(TID) +
        rec(10, 2 | 0x4000, struct.pack("<IIQQQ", 1, 1, 0x400000, 0x1000, 0) +
            bytes([20, 0, 0, 0]) + bytes(range(20)) + struct.pack("<II", 5, 2) +
            b"/lib/x.so\0" + struct.pack("<II", 1, 1)),
    "mmap": attr(0, sid=0) + rec(1, 2, struct.pack("<IIQQQ", 1, 1, 0x1000, 0x1000, 0) + b"a\0"),
    "comm": attr(TID | TIME) + rec(3, 0x2000, struct.pack("<II", 5, 5) + b"bash\0" +
                                   struct.pack("<IIQ", 5, 5, 7)),
    "fork": attr(TIME | ID | CPU) + rec(7, 0, struct.pack("<IIIIQQQII", 2, 1, 2, 1, 9, 9, 1, 0, 0)),
    "exit": attr(0) + rec(4, 0, struct.pack("<IIIIQ", 2, 1, 2, 1, 9)),
    "lost": attr(IDENT) + rec(2, 0, struct.pack("<QQQ", 1, 7, 1)),
    "lost-samples": attr(0) + rec(13, 0, struct.pack("<Q", 7)),
    "throttle": attr(TIME) + rec(5, 0, struct.pack("<QQQQ", 1, 2, 3, 1)),
    "ksymbol": attr(0) + rec(17, 0, struct.pack("<QIHH", 0xffffffffc0000000, 64, 1, 0) + b"bpf_prog\0"),
    "user-type": attr(0) + struct.pack("<IHH", 81, 0, 13) + b"\x01\x02\x03\x04\x05",
}
for name, data in seeds.items():
    open(os.path.join(out, name), "wb").write(data)
# ProfileMe payloads: version, pmpc, i_stat, pctr_ctl (little endian).
pm = os.path.join(d, "fuzz_profileme")
for i, (pmpc, istat, ctl) in enumerate([
        (0x120001000, 0, 0x2), (0x8000000000000481, 1 << 39, 0x2 | 1 << 26),
        (0x120001001, (1 << 39) | (1 << 40) | (5 << 34), 0xfffffffffff),
        (0x581, 1 << 39, 0xc | 1 << 27), (0, 0xffffffffffffffff, 0xffffffffffffffff)]):
    open(os.path.join(pm, "pm%d" % i), "wb").write(struct.pack("<IQQQ", 1, pmpc, istat, ctl))
open(os.path.join(pm, "pm-long"), "wb").write(struct.pack("<IQQQI", 2, 1, 2, 3, 4))
open(os.path.join(pm, "pm-short"), "wb").write(struct.pack("<IQ", 1, 5))
# pprof profiles (profile.proto), raw and gzipped, and folded stacks.
import gzip
def varint(v):
    out = b""
    while v >= 0x80:
        out += bytes([v & 0x7f | 0x80]); v >>= 7
    return out + bytes([v])
def fld(n, v):
    if isinstance(v, bytes):
        return varint(n << 3 | 2) + varint(len(v)) + v
    return varint(n << 3) + varint(v)
strs = [b"", b"samples", b"count", b"cpu", b"nanoseconds", b"main", b"leaf", b"/usr/bin/wl",
        b"comm", b"wl", b"pid", b"inl", b"abcdef"]
prof = fld(1, fld(1, 1) + fld(2, 2)) + fld(1, fld(1, 3) + fld(2, 4))
prof += fld(2, fld(1, varint(2) + varint(1)) + fld(2, varint(5) + varint(5000)) +
            fld(3, fld(1, 8) + fld(2, 9)) + fld(3, fld(1, 10) + fld(3, 42)))
prof += fld(2, fld(1, 2) + fld(2, 3) + fld(2, 3000))
prof += fld(3, fld(1, 1) + fld(2, 0x1000) + fld(3, 0x2000) + fld(5, 7) + fld(6, 12) + fld(7, 1))
prof += fld(4, fld(1, 1) + fld(2, 1) + fld(3, 0x1010) + fld(4, fld(1, 1) + fld(2, 3)))
prof += fld(4, fld(1, 2) + fld(2, 1) + fld(3, 0x1100) + fld(4, fld(1, 3)) + fld(4, fld(1, 2)))
prof += fld(5, fld(1, 1) + fld(2, 5) + fld(3, 5)) + fld(5, fld(1, 2) + fld(2, 6))
prof += fld(5, fld(1, 3) + fld(2, 11))
prof += b"".join(fld(6, x) for x in strs)
prof += fld(9, 1700000000000000000) + fld(10, 2000000000) + fld(11, fld(1, 3) + fld(2, 4))
prof += fld(12, 1000000) + fld(14, 3)
pp = os.path.join(d, "fuzz_pprof")
open(os.path.join(pp, "profile.pb"), "wb").write(prof)
open(os.path.join(pp, "profile.pb.gz"), "wb").write(gzip.compress(prof))
open(os.path.join(pp, "folded"), "w").write("wl;main;leaf 30\nwl;main;inl_[k] 5\n\nwl;[libc.so.6] 2\n")
# IBS blocks: caps, then Op (7 registers, +BrTarget, +OpData4) or Fetch
# (3, +FetchExtd) registers, valid and with every bit set.
ibs = os.path.join(d, "fuzz_ibs")
ones = 0xffffffffffffffff
for i, (caps, regs) in enumerate([
        (0x7, [3 << 17, 0x401000, 1 << 37, 3, 0x100081 | 200 << 32, 0x7f0000, 0x1000]),
        (0xbff, [ones] * 9), (0x27, [ones] * 8),
        (0x207, [3 << 48 | 1 << 50, 0x401000, 0x2000, 12]), (0x3, [3 << 48, 1, 2])]):
    open(os.path.join(ibs, "ibs%d" % i), "wb").write(struct.pack("<I%dQ" % len(regs), caps, *regs))
open(os.path.join(ibs, "ibs-claims"), "wb").write(struct.pack("<I7Q", 0x627, *([3 << 17] * 7)))
PY

# /proc/PID/maps and stat text.
cat /proc/self/maps >"$DIR/fuzz_maps/self-maps"
cat /proc/1/maps >"$DIR/fuzz_maps/init-maps" 2>/dev/null || true
cat /proc/self/stat >"$DIR/fuzz_maps/self-stat"
cat >"$DIR/fuzz_maps/synthetic" <<'M'
00400000-00452000 r-xp 00000000 08:02 173521      /usr/bin/dbus-daemon
7f1c2a000000-7f1c2a021000 r-xp 00001000 fd:01 1234  /tmp/a dir/with spaces (deleted)
7ffd5e9f0000-7ffd5e9f2000 r-xp 00000000 00:00 0                          [vdso]
ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]
7f0000000000-7f0000001000 r-xp 00000000 00:00 0 
M
printf '1234 (a) b) c) R 1 1 1 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 3 0 5 0\n' >"$DIR/fuzz_maps/stat-parens"

# kallsyms, with /proc/modules after a "%%modules" line (fuzz_kallsyms.c).
{
	head -n 3000 /proc/kallsyms
	grep '\[' /proc/kallsyms | head -n 500 || true
	printf '\n%%%%modules\n'
	cat /proc/modules 2>/dev/null || true
} >"$DIR/fuzz_kallsyms/proc"
cat >"$DIR/fuzz_kallsyms/synthetic" <<'K'
ffffffff81000000 T _stext
ffffffff81000000 T startup_64
ffffffff81001000 t do_one
ffffffff81002000 W weak_one
ffffffff81003000 T _etext
ffffffffc0001000 t ext4_fill_super	[ext4]
ffffffffc0002000 T ext4_mount	[ext4]
ffffffffc0100000 t bpf_prog_6deef7357e7b4530_x	[bpf]

%%modules
ext4 1000000 1 - Live 0xffffffffc0000000
jbd2 200000 1 ext4, Live 0xffffffffc0200000 (E)
K
printf '0000000000000000 T _stext\n0000000000000000 t x\n' >"$DIR/fuzz_kallsyms/restricted"

# sched_switch's format (this kernel's, when readable, and a fixed one),
# then "%%raw" and a payload that also drives the tracker (fuzz_offcpu.c).
offcpu_format() {
	cat /sys/kernel/tracing/events/sched/sched_switch/format 2>/dev/null || cat <<'F'
name: sched_switch
ID: 316
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;
	field:char prev_comm[16];	offset:8;	size:16;	signed:0;
	field:pid_t prev_pid;	offset:24;	size:4;	signed:1;
	field:int prev_prio;	offset:28;	size:4;	signed:1;
	field:long prev_state;	offset:32;	size:8;	signed:1;
	field:char next_comm[16];	offset:40;	size:16;	signed:0;
	field:pid_t next_pid;	offset:56;	size:4;	signed:1;
	field:int next_prio;	offset:60;	size:4;	signed:1;

print fmt: "prev_comm=%s prev_pid=%d", REC->prev_comm, REC->prev_pid
F
}
offcpu_format >"$DIR/fuzz_offcpu/format"
{
	offcpu_format
	printf '\n%%%%raw\n'
	# 64 bytes of payload: out, in, out twice, an exit, a refresh, backwards.
	printf '\000\001\020\000\000\001\002\000\001\001\040\000\000\000\000\000'
	printf '\000\002\010\000\000\000\003\000\000\002\010\000\000\000\001\000'
	printf '\002\002\020\000\000\000\000\000\003\000\100\000\000\000\000\000'
	printf '\001\003\077\000\001\000\000\000\003\000\001\000\001\000\000\000'
} >"$DIR/fuzz_offcpu/format-raw"
printf 'name: sched_switch\nformat:\n\tfield:pid_t prev_pid;\toffset:24;\tsize:4;' \
	>"$DIR/fuzz_offcpu/truncated"

# ELF: the test binaries (small, with .symtab, build IDs and a .so).
for f in tests/helpers/workload tests/helpers/libworkload.so tests/helpers/callers; do
	[ ! -f "$f" ] || cp "$f" "$DIR/fuzz_elfsyms/$(basename "$f")"
	# Stripped: its static functions are known from CFI only (cfi.c).
	[ ! -f "$f" ] || strip --strip-all -o "$DIR/fuzz_elfsyms/$(basename "$f").stripped" "$f" ||
		true
	# fuzz_cfi: a flags byte (0: .eh_frame, little-endian, 64-bit), the
	# section's address (8 bytes; 0 here), the section's bytes.
	[ ! -f "$f" ] || {
		objcopy -O binary --only-section=.eh_frame "$f" "$DIR/fuzz_cfi/eh.tmp" &&
			{ printf '\000\000\000\000\000\000\000\000\000'; cat "$DIR/fuzz_cfi/eh.tmp"; } \
				>"$DIR/fuzz_cfi/$(basename "$f")" || true
		rm -f "$DIR/fuzz_cfi/eh.tmp"
	}
done

# perf-PID.map (JIT symbol maps): "START SIZE name" in hex.
cat >"$DIR/fuzz_perfmap/basic" <<'P'
7f0000001000 40 jitted_a
7f0000001040 100 LazyCompile:~foo /tmp/x.js:1
0x7f0000002000 0x10 with_prefix
7f0000003000 0 zero_size
bad line
P
cat >"$DIR/fuzz_perfmap/overlaps" <<'P'
1000 100 old
1040 40 new
1040 40 newer
2000 20 left
2010 20 right
3010 20 late_right
3000 20 late_left
1000 1000 big_last
P
printf '1000 10 crlf\r\n2000 10 tab\tname\r\n\n\n3000 10 no_newline' >"$DIR/fuzz_perfmap/crlf"
printf 'ffffffffffffffff 1 wraps\nfffffffffffffff0 10 top\n0 1 zero\n12345678901234567 1 long\n' \
	>"$DIR/fuzz_perfmap/edges"
awk 'BEGIN { for (i = 0; i < 300; i++) printf "%x %x f%d\n", 4096 + (i * 37 % 200) * 16, 16 + i % 5 * 16, i }' \
	>"$DIR/fuzz_perfmap/many"

# Code for the disassembler: the workload's .text, the first byte picking
# the machine (fuzz_disasm.c: 0 x86-64 AT&T, 0x80 x86-64 Intel, 2 AArch64).
if objcopy -O binary --only-section=.text tests/helpers/workload "$DIR/fuzz_disasm/text.tmp" 2>/dev/null; then
	for m in 000 200 002; do
		{ printf "\\$m"; head -c 4096 "$DIR/fuzz_disasm/text.tmp"; } >"$DIR/fuzz_disasm/text-$m"
	done
	rm -f "$DIR/fuzz_disasm/text.tmp"
fi
printf '\000\017\377\006\304' >"$DIR/fuzz_disasm/bad"

# Alpha code: the C helper built by the cross compiler when there is one,
# and a few words of every format (ldq, ble, addq literal, addt, callsys,
# jsr with a hint, ret) with a tail of 3 bytes.
if alpha-linux-gnu-gcc -O2 -c -o "$DIR/fuzz_alpha_disasm/code.o" tests/helpers/alpha-code.c 2>/dev/null &&
	alpha-linux-gnu-objcopy -O binary --only-section=.text "$DIR/fuzz_alpha_disasm/code.o" \
		"$DIR/fuzz_alpha_disasm/text" 2>/dev/null; then
	:
fi
rm -f "$DIR/fuzz_alpha_disasm/code.o"
printf '\370\377\120\244\013\000\040\356\001\024\040\100\003\024\042\130\203\000\000\000\001\100\133\153\001\200\372\153\252\273\314' \
	>"$DIR/fuzz_alpha_disasm/formats"
