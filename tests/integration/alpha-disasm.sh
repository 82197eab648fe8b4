# The Alpha decoder (src/arch/alpha-disasm.c) against binutils' objdump on
# every instruction of real Alpha code: a C program at three optimisation
# levels and CPU models, assembly covering every format (memory, branch,
# operate with literal and register, floating point with qualifiers,
# PALcode, jumps with hint bits), a sweep of every major opcode and
# function code with random words, and the Alpha libc and libm of the
# cross toolchain.  proftop's side is tests/helpers/alphadis: the file's
# bytes as annotate reads them (elfsyms_read_code), then arch_disasm_decode.
# Tools: apt-get install gcc-alpha-linux-gnu (binutils-alpha-linux-gnu).
. tests/lib.sh

CC=${ALPHA_CC:-alpha-linux-gnu-gcc}
OBJDUMP=${ALPHA_OBJDUMP:-alpha-linux-gnu-objdump}
READELF=${ALPHA_READELF:-alpha-linux-gnu-readelf}
SYSROOT=${ALPHA_SYSROOT:-/usr/alpha-linux-gnu}
DIS=tests/helpers/alphadis
for t in "$CC" "$OBJDUMP" "$READELF" python3; do
	command -v "$t" >/dev/null 2>&1 ||
		skip "$t not installed (apt-get install gcc-alpha-linux-gnu)"
done
[ -x "$DIS" ] || fail "$DIS not built (make $DIS)"

# compare NAME FILE: objdump's .text and proftop's, line by line ("ADDR:
# TEXT", objdump's tab as one space, its " <symbol+off>" dropped).
total=0
compare() {
	name=$1 f=$2
	# shellcheck disable=SC2046 # two words: address and size
	set -- $("$READELF" -SW "$f" | awk '{ for (i = 1; i < NF; i++) if ($i == ".text") { print "0x" $(i + 2), "0x" $(i + 4); exit } }')
	[ $# -eq 2 ] || fail "$name: no .text in $f"
	"$DIS" "$f" "$1" "$2" >"$TMP/$name.mine" || fail "$name: alphadis failed"
	"$OBJDUMP" -d -j .text "$f" | awk -F'\t' '/^ *[0-9a-f]+:\t/ {
		addr = $1; sub(/^ */, "", addr); txt = $3
		if (NF > 3) txt = txt " " $4
		sub(/ <[^>]*>$/, "", txt); sub(/[ \t]+$/, "", txt)
		print addr " " txt }' >"$TMP/$name.objdump"
	n=$(wc -l <"$TMP/$name.objdump")
	[ "$n" -gt 0 ] || fail "$name: objdump printed no instruction"
	diff "$TMP/$name.objdump" "$TMP/$name.mine" >"$TMP/$name.diff"
	nd=$(grep -c '^<' "$TMP/$name.diff")
	extra=$(grep -c '^>' "$TMP/$name.diff")
	if [ "$nd" -ne 0 ] || [ "$extra" -ne 0 ]; then
		head -20 "$TMP/$name.diff"
		fail "$name: $nd of $n instructions differ from objdump ($extra lines of proftop's unmatched)"
	fi
	ok "$name: $n instructions, every one as objdump prints it"
	total=$((total + n))
}

# The C program, compiled three ways.
i=0
for opts in "-O2 -mcpu=ev67" "-O0" "-Os -mcpu=ev4 -mieee"; do
	i=$((i + 1))
	# shellcheck disable=SC2086 # the options are words
	"$CC" $opts -o "$TMP/code$i" tests/helpers/alpha-code.c -lm 2>"$TMP/cc.err" ||
		{ cat "$TMP/cc.err"; fail "$CC $opts alpha-code.c"; }
	compare "alpha-code.c $opts" "$TMP/code$i"
done

# Every format, written out.
"$CC" -nostdlib -Wl,-e,formats_memory -o "$TMP/formats" tests/helpers/alpha-formats.S \
	2>"$TMP/cc.err" || { cat "$TMP/cc.err"; fail "$CC alpha-formats.S"; }
compare "alpha-formats.S" "$TMP/formats"
# ... and that it has them: hints, literals, qualifiers, PALcode, pseudo-ops.
# shellcheck disable=SC2016 # $f6 is Alpha's register, not the shell's
for want in 'jsr ra,(t12),1' 'jmp (t0)' 'ret t0,(t1),0x3fff' 'call_pal 0x1234' 'callsys' \
	'pal1e 0x3fd8000' '.long 0x4000000' 'mult/suid' 'cvttq/svc' 'negs/sui' 'fbge $f6,' \
	'mov 0x2a,s0' 'addl t0,0xff,t2' 'ldah t3,32767(t4)' 'unop' 'implver' 'ftois $f7,t7'; do
	grep -qF "$want" "$TMP/alpha-formats.S.objdump" || fail "alpha-formats.S lacks \"$want\""
done
ok "alpha-formats.S covers hints, literals, FP qualifiers, PALcode, pseudo-ops, undecodable words"

# Every major opcode with every function code (bits 15:5) and a few
# register patterns, then random words: 600,000 words.
python3 - "$TMP/sweep.S" <<'PY'
import random, sys
random.seed(16)
regs = [(0, 0, 0), (31, 31, 31), (31, 5, 7), (3, 3, 9), (4, 31, 4), (26, 26, 26), (31, 26, 3),
        (5, 6, 31), (31, 31, 2)]
words = []
for op in range(64):
    for fn in range(0x800):
        many = fn < 0x80 or op in (0x14, 0x15, 0x16, 0x17, 0x1c)
        for ra, rb, rc in (regs if many else regs[:2]):
            words.append(op << 26 | ra << 21 | rb << 16 | fn << 5 | rc)
    for hi in range(0, 0x10000, 0x400):
        for ra, rb, _ in regs:
            words.append(op << 26 | ra << 21 | rb << 16 | hi | random.getrandbits(10))
words += [random.getrandbits(32) for _ in range(200000)]
words += [0x6bfa8001, 0x6bfa8000, 0x6bfa8002, 0x47e13400]
with open(sys.argv[1], "w") as f:
    f.write("\t.text\n\t.globl sweep\nsweep:\n")
    f.writelines("\t.long 0x%08x\n" % w for w in dict.fromkeys(words))
PY
"$CC" -nostdlib -Wl,-e,sweep -o "$TMP/sweep" "$TMP/sweep.S" 2>"$TMP/cc.err" ||
	{ cat "$TMP/cc.err"; fail "$CC sweep.S"; }
compare "sweep of opcodes, functions and random words" "$TMP/sweep"

# The toolchain's own Alpha libraries, as Debian built them.
for lib in libc.so.6.1 libm.so.6.1; do
	if [ -f "$SYSROOT/lib/$lib" ]; then
		compare "$lib" "$SYSROOT/lib/$lib"
	else
		echo "SKIP: $SYSROOT/lib/$lib not there"
	fi
done

ok "agreement with $OBJDUMP: $total instructions compared, 0 differ"
rm -rf "$TMP"
