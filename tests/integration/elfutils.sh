# proftop's symbol loader against elfutils: for a few hundred addresses
# spread over .text of libc, libstdc++, the test workload and its library,
# and stripped fixtures with a .gnu_debuglink or .gnu_debugdata, the name
# tests/helpers/symlookup gives (proftop's loader and debug-file search) must be the
# ELF symbol `eu-addr2line -S` gives, or another name of the same address
# (an alias: proftop keeps one name per address).  Both "no symbol" counts
# as agreement.  Symbol versions (@GLIBC_2.34) are ignored: the two pick
# different aliases of a versioned symbol.  eu-addr2line -f is not used for
# the verdict: with DWARF it names the innermost inlined function, which is
# --inline's business, not the symbol table's.  No sampling: runs anywhere.
. tests/lib.sh
command -v eu-addr2line >/dev/null 2>&1 || skip "no eu-addr2line (Debian package elfutils)"
command -v python3 >/dev/null 2>&1 || skip "no python3"
command -v readelf >/dev/null 2>&1 || skip "no readelf (binutils)"
[ -x tests/helpers/symlookup ] || fail "tests/helpers/symlookup not built (make tests/helpers/symlookup)"

files="tests/helpers/workload tests/helpers/libworkload.so"
for f in /lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/libstdc++.so.6 \
	/lib64/libc.so.6 /usr/lib64/libstdc++.so.6; do
	[ -r "$f" ] && files="$files $f"
done

# Stripped fixtures: a debug link beside the binary, and MiniDebugInfo.
if command -v cc >/dev/null 2>&1 && command -v objcopy >/dev/null 2>&1; then
	printf '%s\n' '#include <stdio.h>' \
		'static __attribute__((noinline)) int local_one(int x) { return x * 3 + 1; }' \
		'static __attribute__((noinline)) int local_two(int x) { return local_one(x) ^ 5; }' \
		'__attribute__((noinline)) int global_one(int x) { return local_two(x) + 2; }' \
		'int main(int argc, char **argv) { printf("%d\n", global_one(argc)); return 0; }' \
		>"$TMP/f.c"
	cc -O1 -g -Wl,--build-id -o "$TMP/full" "$TMP/f.c" || fail "cc"
	objcopy --only-keep-debug "$TMP/full" "$TMP/linked.debug"
	strip -o "$TMP/s" "$TMP/full"
	objcopy --add-gnu-debuglink="$TMP/linked.debug" "$TMP/s" "$TMP/linked"
	files="$files $TMP/linked"
	if grep -q HAVE_LIBLZMA config.h 2>/dev/null && command -v xz >/dev/null 2>&1; then
		nm -D --format=posix --defined-only "$TMP/full" | awk '{print $1}' | sort >"$TMP/dyn"
		nm --format=posix --defined-only "$TMP/full" | awk '$2 ~ /^[Tt]$/ {print $1}' |
			sort >"$TMP/funcs"
		comm -13 "$TMP/dyn" "$TMP/funcs" >"$TMP/keep"
		objcopy -S --remove-section .gdb_index --remove-section .comment \
			--keep-symbols="$TMP/keep" "$TMP/linked.debug" "$TMP/mini"
		xz -f "$TMP/mini"
		cp "$TMP/s" "$TMP/minidebug"
		objcopy --add-section .gnu_debugdata="$TMP/mini.xz" "$TMP/minidebug"
		files="$files $TMP/minidebug"
	fi
fi

python3 - $files <<'PY' || exit 1
import re, subprocess, sys

def run(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True).stdout

bad = 0
total = 0
for f in sys.argv[1:]:
    m = re.search(r"\.text\s+PROGBITS\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", run("readelf", "-SW", f))
    if not m:
        print("not ok - %s: no .text" % f); sys.exit(1)
    lo, size = int(m.group(1), 16), int(m.group(2), 16)
    n = min(300, max(60, size // 8))
    addrs = ["0x%x" % (lo + (size * i) // n) for i in range(n)]
    pr = subprocess.run(["tests/helpers/symlookup", "--no-demangle", "--debug-path", f] + addrs,
                        capture_output=True, text=True)
    ours = pr.stdout.split("\n")[:n]
    dbg = pr.stderr.strip().split("debug: ")[-1]
    eu = run("eu-addr2line", "-S", "-e", f, *addrs).split("\n")
    if len(ours) != n or len(eu) < 2 * n:
        print("not ok - %s: %d names from symlookup, %d lines from eu-addr2line" % (f, len(ours), len(eu)))
        sys.exit(1)
    theirs = [re.sub(r"\+0x[0-9a-f]+$", "", l) for l in eu[0::2][:n]]
    # Alias sets: the function symbols of each address, in the file and
    # its debug file.
    at = {}
    for src in [f] + ([dbg] if dbg not in ("(none)", "") else []):
        for l in run("readelf", "-sW", src).split("\n"):
            p = l.split()
            if len(p) >= 8 and p[3] in ("FUNC", "IFUNC") and p[6] != "UND":
                at.setdefault(p[7].split("@")[0], set()).add(int(p[1], 16))
    # Code no symbol covers is sub_<hex> (cfi.c): the FDE containing it.
    fdes = [tuple(int(x, 16) for x in m.groups()) for m in
            re.finditer(r" FDE .*pc=([0-9a-f]+)\.\.([0-9a-f]+)", run("readelf", "--debug-dump=frames", f))]
    none = same = alias = 0
    for a, o, t in zip(addrs, ours, theirs):
        o, t = o.split("@")[0], t.split("@")[0]
        if o == "??" and t in ("??", "()", ""):
            none += 1
        elif o.startswith("sub_") and t in ("??", "()", "") and \
                any(s == int(o[4:], 16) and s <= int(a, 16) < e for s, e in fdes):
            none += 1
        elif o == t:
            same += 1
        elif at.get(o, set()) & at.get(t, set()):
            alias += 1
        else:
            bad += 1
            print("# %s %s: proftop %s, eu-addr2line %s" % (f, a, o, t))
    total += n
    print("# %s: %d addresses: %d same, %d aliases, %d without a symbol (sub_<hex> from CFI or none; debug file: %s)"
          % (f, n, same, alias, none, dbg))
if bad:
    print("not ok - %d of %d addresses named differently from eu-addr2line" % (bad, total))
    sys.exit(1)
print("ok - %d addresses in %d files named as eu-addr2line -S names them" % (total, len(sys.argv) - 1))
PY
rm -rf "$TMP"
