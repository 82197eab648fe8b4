# --annotate on code that is hard to annotate (tests/helpers/badcode.S,
# from a recording written by mkperfdata): bytes that decode to no
# instruction (".byte 0xNN", one each, decoding going on after them), a
# function over the 1 MiB bound (cut, a note, a sample past the bound on a
# line of its own), a symbol whose size runs past its section and the file
# (the bytes there are, and a note).  Every address proftop lists is an
# instruction start, or an undecodable byte, in objdump -d; the lines'
# samples add up to the function's.  An Alpha function with words objdump
# does not decode either (".long"), when the cross compiler is there.
. tests/lib.sh

MK=${MKPERFDATA:-tests/helpers/mkperfdata}
[ -x "$MK" ] || fail "$MK is not built (make tests/helpers/mkperfdata)"
for t in gcc objdump readelf python3; do
	command -v $t >/dev/null 2>&1 || skip "$t is not installed"
done
grep -q 'define HAVE_CAPSTONE 1' config.h 2>/dev/null ||
	skip "built without Capstone: --annotate shows raw bytes"

BIN=$(pwd)/$TMP/badcode
gcc -nostdlib -static -no-pie -Wl,--build-id -o "$BIN" tests/helpers/badcode.S 2>"$TMP/cc.err" ||
	{ cat "$TMP/cc.err"; fail "gcc badcode.S"; }
ID=$(readelf -n "$BIN" | awk '/Build ID/ { print $3 }')
sym() { nm "$BIN" | awk -v s="$1" '$3 == s { print "0x" $1 }'; }
U=$(sym undecodable) H=$(sym huge) P=$(sym past_section)
# The executable segment: where it is mapped and from which offset.
# shellcheck disable=SC2046 # three words
set -- $(readelf -lW "$BIN" | awk '$1 == "LOAD" && / R E / { print $2, $3, $5; exit }')
OFF=$1 VADDR=$2 FILESZ=$3
cat >"$TMP/rec.txt" <<REC
attr sample_type=IP|TID|TIME|CPU|PERIOD period=1000 name=cycles ids=5
comm pid=77 tid=77 comm=badcode time=1
mmap2 pid=77 tid=77 start=$VADDR len=$(printf '0x%x' $((FILESZ + 0x1000))) pgoff=$OFF prot=5 flags=2 buildid=$ID file=$BIN time=2
sample pid=77 tid=77 ip=$U time=10 cpu=0
sample pid=77 tid=77 ip=$(printf '0x%x' $((U + 1))) time=11 cpu=0
sample pid=77 tid=77 ip=$(printf '0x%x' $((U + 1))) time=12 cpu=0
sample pid=77 tid=77 ip=$(printf '0x%x' $((U + 3))) time=13 cpu=0
sample pid=77 tid=77 ip=$H time=14 cpu=0
sample pid=77 tid=77 ip=$(printf '0x%x' $((H + 0x80003))) time=15 cpu=0
sample pid=77 tid=77 ip=$(printf '0x%x' $((H + 0x120000))) time=16 cpu=0
sample pid=77 tid=77 ip=$P time=17 cpu=0
sample pid=77 tid=77 ip=$(printf '0x%x' $((P + 2))) time=18 cpu=0
REC
"$MK" -o "$TMP/rec.data" "$TMP/rec.txt" || fail "mkperfdata"
"$PROFTOP" -i "$TMP/rec.data" --batch --annotate=undecodable --annotate=huge \
	--annotate=past_section >"$TMP/out.txt" 2>"$TMP/err" ||
	fail "proftop: status $? ($(tail -1 "$TMP/err"))"
objdump -d "$BIN" >"$TMP/objdump" || fail "objdump"

python3 - "$TMP/out.txt" "$TMP/objdump" "$U" "$H" "$P" <<'PY' || exit 1
import re, sys
text = open(sys.argv[1]).read()
U, H, P = (int(x, 16) for x in sys.argv[3:6])
def bad(msg):
    print("not ok - " + msg); sys.exit(1)
starts = set()
for line in open(sys.argv[2]):
    m = re.match(r"^ +([0-9a-f]+):\t", line)
    if m:
        starts.add(int(m.group(1), 16))
fns = {}
for block in text.split("\nAnnotate ")[1:]:
    lines = block.rstrip("\n").split("\n")
    title = lines[0]
    note = lines[1][3:-1] if lines[1].startswith("  (") else None
    body = [l for l in lines[1:] if re.match(r"^ +[0-9.]+% ", l)]
    rows = []
    for l in body:
        f = l.split(None, 3)
        rows.append((int(f[2], 16), int(f[1]), f[3]))
    m = re.match(r"(\S+) \[\S+\] 0x([0-9a-f]+), (\d+) bytes: (\d+) samples", title)
    fns[m.group(1)] = dict(start=int(m.group(2), 16), size=int(m.group(3)),
                           samples=int(m.group(4)), note=note, rows=rows)
if set(fns) != {"undecodable", "huge", "past_section"}:
    bad("annotated: %s" % sorted(fns))
for name, f in fns.items():
    if sum(r[1] for r in f["rows"]) != f["samples"]:
        bad("%s: lines' samples do not add up to %d" % (name, f["samples"]))
    for a, n, t in f["rows"]:
        if t != "(not an instruction start)" and a not in starts:
            bad("%s: %x is no instruction start in objdump -d" % (name, a))
print("ok - three functions annotated; every listed address is an objdump instruction start; samples add up")

u = fns["undecodable"]
texts = [t for _, _, t in u["rows"]]
if texts != ["pushq %rbp", ".byte 0x06", ".byte 0x07", "ud2", "popq %rbp", "retq"] or u["note"]:
    bad("undecodable: %s, note %s" % (texts, u["note"]))
if [n for _, n, _ in u["rows"]][:4] != [1, 2, 0, 1]:
    bad("undecodable: samples %s" % [n for _, n, _ in u["rows"]])
print("ok - undecodable bytes are one .byte line each, decoding goes on after them")

h = fns["huge"]
if h["note"] != "cut: 1048576 of %d bytes in the file (1 MiB bound)" % h["size"]:
    bad("huge: note %s" % h["note"])
insns = [r for r in h["rows"] if r[2] != "(not an instruction start)"]
stray = [r for r in h["rows"] if r[2] == "(not an instruction start)"]
if len(insns) != 0x100000 // 8 or insns[-1][0] + 8 != H + 0x100000:
    bad("huge: %d instructions up to %x" % (len(insns), insns[-1][0]))
if [(a, n) for a, n, _ in stray] != [(H + 0x120000, 1)]:
    bad("huge: past the bound %s" % stray)
if [n for a, n, _ in insns if a == H + 0x80000] != [1]:
    bad("huge: a sample inside an instruction is not on it")
print("ok - a function over the bound: 1 MiB decoded, a note, the sample past it on a line of its own")

p = fns["past_section"]
if p["note"] != "cut: 3 of 1048576 bytes in the file" or [t for _, _, t in p["rows"]] != ["nop", "nop", "retq"]:
    bad("past_section: %s, note %s" % (p["rows"], p["note"]))
print("ok - a symbol past its section and the file: the 3 bytes there are, and a note")
PY

# Alpha: words objdump does not decode are ".long 0x...", 4 bytes each.
ACC=${ALPHA_CC:-alpha-linux-gnu-gcc}
if command -v "$ACC" >/dev/null 2>&1; then
	ABIN=$(pwd)/$TMP/formats
	"$ACC" -nostdlib -Wl,-e,formats_memory -Wl,--build-id -o "$ABIN" tests/helpers/alpha-formats.S ||
		fail "$ACC alpha-formats.S"
	AID=$(readelf -n "$ABIN" | awk '/Build ID/ { print $3 }')
	AOBJDUMP=${ALPHA_OBJDUMP:-alpha-linux-gnu-objdump}
	"$AOBJDUMP" -d "$ABIN" >"$TMP/a.objdump" || fail "$AOBJDUMP"
	PAL=$(awk '/<formats_pal>:$/ { print "0x" $1; exit }' "$TMP/a.objdump")
	LONG=$(awk '/\.long 0x4000000/ { sub(/:$/, "", $1); print "0x" $1; exit }' "$TMP/a.objdump")
	if [ -z "$PAL" ] || [ -z "$LONG" ]; then
		fail "no formats_pal or .long in $ABIN"
	fi
	cat >"$TMP/a.txt" <<REC
attr sample_type=IP|TID|TIME|CPU|PERIOD period=1000 name=cycles ids=5
arch alpha
comm pid=78 tid=78 comm=formats time=1
mmap2 pid=78 tid=78 start=0x120000000 len=0x10000 pgoff=0 prot=5 flags=2 buildid=$AID file=$ABIN time=2
sample pid=78 tid=78 ip=$LONG time=10 cpu=0
sample pid=78 tid=78 ip=$PAL time=11 cpu=0
REC
	"$MK" -o "$TMP/a.data" "$TMP/a.txt" || fail "mkperfdata alpha"
	"$PROFTOP" -i "$TMP/a.data" --batch --annotate=formats_pal >"$TMP/a.out" 2>"$TMP/err" ||
		fail "proftop alpha: status $?"
	grep -q "^ *50.00% *1 *${LONG#0x}  .long 0x4000000$" "$TMP/a.out" ||
		{ sed -n '/^Annotate/,$p' "$TMP/a.out"; fail "alpha: no sampled .long line"; }
	ok "alpha: an undecodable word is one .long line of 4 bytes, with its sample"
else
	echo "SKIP: alpha: $ACC not installed"
fi
rm -rf "$TMP"
