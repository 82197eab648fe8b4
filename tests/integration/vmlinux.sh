# --vmlinux: a fake vmlinux built here (the kernel's text symbols from
# /proc/kallsyms renamed vml_NAME, each sized up to the next, in a NOBITS
# text section, with the running kernel's build ID) names the kernel rows
# of a live session; one with another build ID is refused at the start.
. tests/lib.sh
require_perf_events
[ "$(id -u)" -eq 0 ] || skip "system-wide sampling needs root"
command -v cc >/dev/null && command -v ld >/dev/null || skip "cc and ld are needed to build the fake vmlinux"
command -v python3 >/dev/null || skip "python3 is needed"

# The running kernel's build ID, from its notes.
id=$(python3 - <<'PY'
import struct
d = open("/sys/kernel/notes", "rb").read()
o = 0
while o + 12 <= len(d):
    n, s, t = struct.unpack_from("<III", d, o)
    name = d[o + 12:o + 12 + n]
    desc = o + 12 + ((n + 3) & ~3)
    if t == 3 and name[:3] == b"GNU":
        print(d[desc:desc + s].hex())
        break
    o = desc + ((s + 3) & ~3)
PY
)
[ -n "$id" ] || skip "no kernel build ID in /sys/kernel/notes"
awk '$1 != "0000000000000000" { print; exit }' /proc/kallsyms | grep -q . ||
	skip "kernel addresses hidden (kptr_restrict)"

# Text symbols of the kernel image (not modules), by address, one per address.
awk 'NF == 3 && ($2 == "T" || $2 == "t") && $3 !~ /^\$/ { print $1, $3 }' /proc/kallsyms |
	sort -u -k1,1 >"$TMP/syms"
n=$(wc -l <"$TMP/syms")
# The names differ (vml_): proftop finds the KASLR shift from _stext.
stext=$(awk '$3 == "_stext" { print $1; exit }' /proc/kallsyms)
[ -n "$stext" ] || skip "no _stext in /proc/kallsyms"
# Those in the 4 GB above _stext's high half (the image's text).
hi=$(echo "$stext" | cut -c1-8)
grep "^$hi" "$TMP/syms" >"$TMP/syms.hi" && mv "$TMP/syms.hi" "$TMP/syms"
n=$(wc -l <"$TMP/syms")
[ "$n" -gt 1000 ] || skip "too few kernel text symbols ($n)"
# Offsets from the low 32 bits: awk counts in doubles (53 bits).
awk -v stext="$stext" 'function hex(s,  i, v, c) { v = 0; s = tolower(substr(s, length(s) - 7))
	for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
	return v }
	NR == 1 { base = hex($1); printf "\t.section .ktext,\"ax\",@nobits\n" }
	NR == 1 { printf "ktext_start:\n\t.globl _stext\n\t.set _stext, ktext_start + %d\n", hex(stext) - base }
	{ a[NR] = hex($1) - base; nm[NR] = $2 }
	END {
		for (i = 1; i < NR; i++) {
			sz = a[i + 1] - a[i]; if (sz <= 0) continue
			s = "vml_" nm[i]; gsub(/[^A-Za-z0-9_.]/, "_", s)
			if (seen[s]++) s = s "__" seen[s]
			printf "\t.org %d\n\t.globl %s\n\t.type %s,@function\n%s:\n\t.size %s, %d\n", a[i], s, s, s, s, sz
		}
		printf "\t.org %d\n", a[NR] + 16
	}' "$TMP/syms" >"$TMP/vmlinux.s"
base=$(head -1 "$TMP/syms" | cut -d' ' -f1)
cc -c -o "$TMP/vmlinux.o" "$TMP/vmlinux.s" 2>"$TMP/as.err" || fail "assembling the fake vmlinux: $(head -3 "$TMP/as.err")"
ld -static -nostdlib -e 0 --build-id=0x"$id" --section-start=.ktext=0x"$base" \
	-o "$TMP/vmlinux" "$TMP/vmlinux.o" 2>"$TMP/ld.err" || fail "linking the fake vmlinux: $(head -3 "$TMP/ld.err")"
ok "fake vmlinux with the kernel's build ID ($n symbols)"

start_workload 0
"$PROFTOP" --vmlinux "$TMP/vmlinux" --json -n 2 -d 1 -s dso,sym >"$TMP/v.json" 2>"$TMP/v.err" ||
	fail "proftop --vmlinux: $(cat "$TMP/v.err")"
json_check "$TMP/v.json" 'any(r["kernel"] and r.get("dso") == "[kernel.kallsyms]" and r.get("symbol", "").startswith("vml_") for r in snaps[-1]["rows"])' ||
	fail "no kernel row named from the vmlinux: $(cat "$TMP/v.err")"
json_check "$TMP/v.json" 'any(r.get("symbol") == "leaf_a" for r in snaps[-1]["rows"])' ||
	fail "user rows lost with --vmlinux"
grep -q "kernel symbol sizes from $TMP/vmlinux" "$TMP/v.err" || fail "no notice naming the vmlinux: $(cat "$TMP/v.err")"
ok "kernel rows named from --vmlinux"

# Without it, kallsyms names (nothing vml_).
"$PROFTOP" --json -n 1 -d 1 -s dso,sym >"$TMP/k.json" 2>"$TMP/k.err" || fail "proftop: $(cat "$TMP/k.err")"
json_check "$TMP/k.json" 'not any(r.get("symbol", "").startswith("vml_") for r in snaps[-1]["rows"]) and any(r["kernel"] and r.get("symbol") != "[unknown]" for r in snaps[-1]["rows"])' ||
	fail "kallsyms names expected without --vmlinux"
ok "kallsyms names without --vmlinux"

# Another build ID: refused at once, exit status 2, a message that says so.
other=$(echo "$id" | sed 's/^\(..\)/ff/; t; s/^/ff/')
[ "$other" != "$id" ] || other=$(echo "$id" | sed 's/^../00/')
ld -static -nostdlib -e 0 --build-id=0x"$other" --section-start=.ktext=0x"$base" \
	-o "$TMP/vmlinux.other" "$TMP/vmlinux.o" 2>/dev/null || fail "linking the other vmlinux"
st=0
"$PROFTOP" --vmlinux "$TMP/vmlinux.other" --json -n 1 -d 0.3 >"$TMP/o.json" 2>"$TMP/o.err" || st=$?
[ "$st" -eq 2 ] || fail "another kernel's vmlinux: exit status $st, want 2"
grep -q "is not the running kernel's" "$TMP/o.err" || fail "message for another kernel's vmlinux: $(cat "$TMP/o.err")"
[ ! -s "$TMP/o.json" ] || fail "output despite a refused --vmlinux"
ok "another kernel's vmlinux refused"

st=0
"$PROFTOP" --vmlinux "$TMP/missing" --json -n 1 -d 0.3 >/dev/null 2>"$TMP/m.err" || st=$?
[ "$st" -eq 2 ] && grep -q "missing" "$TMP/m.err" || fail "missing --vmlinux file: status $st, $(cat "$TMP/m.err")"
ok "missing --vmlinux file refused"
rm -rf "$TMP"
