# Stripped binaries named from separate debug files, live and with -i:
# .gnu_debuglink (the file beside the binary, in .debug/, accepted by build
# ID or CRC; another build's file under the same name refused), and
# .gnu_debugdata (MiniDebugInfo, xz) when built with liblzma.  The -i run
# is checked against perf report's names for the same recording.
# Fixtures are compiled here.
. tests/lib.sh
require_perf_events
command -v cc >/dev/null 2>&1 || skip "no C compiler"
command -v objcopy >/dev/null 2>&1 || skip "no objcopy (binutils)"

cat >"$TMP/v.c" <<'C'
#include <stdint.h>
#include <time.h>
static __attribute__((noinline)) uint64_t NAME(uint64_t n)
{
	volatile uint64_t v = 1;
	for (uint64_t i = 0; i < n; i++)
		v = v * 3 + i;
	return v;
}
int main(int argc, char **argv)
{
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 2);
	uint64_t s = 0;
	(void)argv;
	while (time(NULL) < end)
		s += NAME(1000000);
	return s == 1;  /* 0, for perf record's status */
}
C
sed -i 's/#include <time.h>/#include <time.h>\n#include <stdlib.h>/' "$TMP/v.c"

# build NAME FLAGS: $TMP/NAME (stripped, debug link to NAME.debug) and the
# debug file $TMP/NAME.debug, with hot function NAME.
build() {
	cc -O1 -g $2 -DNAME="$1" -o "$TMP/$1.full" "$TMP/v.c" || fail "cc $1"
	objcopy --only-keep-debug "$TMP/$1.full" "$TMP/$1.debug" || fail "objcopy $1"
	strip -o "$TMP/$1.s" "$TMP/$1.full" || fail "strip $1"
	objcopy --add-gnu-debuglink="$TMP/$1.debug" "$TMP/$1.s" "$TMP/$1" || fail "debuglink $1"
	rm -f "$TMP/$1.s"
}

# has FILE SYMBOL: a snapshot of FILE has a row for SYMBOL (symbols load
# on a thread: the first snapshots may not have them yet).
has() {
	json_check "$1" "any(r.get('symbol') == '$2' for s in snaps for r in s['rows'])"
}

# Beside the binary, accepted by build ID.
build hot_linked_bid -Wl,--build-id
"$PROFTOP" --batch --json -d 0.5 -n 2 -- "$TMP/hot_linked_bid" 5 >"$TMP/a.json" 2>"$TMP/err"
has "$TMP/a.json" hot_linked_bid ||
	fail "debug link beside the binary (build ID): $(head -c 600 "$TMP/a.json") $(cat "$TMP/err")"
ok "live: .gnu_debuglink beside the binary, build ID checked"

# In .debug/, no build IDs: accepted by CRC.
build hot_linked_crc -Wl,--build-id=none
mkdir -p "$TMP/.debug"
mv "$TMP/hot_linked_crc.debug" "$TMP/.debug/"
"$PROFTOP" --batch --json -d 0.5 -n 2 -- "$TMP/hot_linked_crc" 5 >"$TMP/b.json" 2>"$TMP/err"
has "$TMP/b.json" hot_linked_crc ||
	fail "debug link in .debug/ (CRC): $(head -c 600 "$TMP/b.json") $(cat "$TMP/err")"
ok "live: .gnu_debuglink in .debug/, CRC checked"

# Another build's debug file under the linked name: its names never show.
cc -O1 -g -Wl,--build-id=none -DNAME=wrong_debug_file -o "$TMP/wrong.full" "$TMP/v.c" ||
	fail "cc wrong"
objcopy --only-keep-debug "$TMP/wrong.full" "$TMP/.debug/hot_linked_crc.debug"
"$PROFTOP" --batch --json -d 0.5 -n 2 -- "$TMP/hot_linked_crc" 5 >"$TMP/c.json" 2>"$TMP/err"
! has "$TMP/c.json" wrong_debug_file || fail "a debug file with the wrong CRC was used"
! has "$TMP/c.json" hot_linked_crc || fail "names without their debug file?"
ok "live: a debug file with the wrong CRC is refused"

# --symfs live: a stripped binary with no debug link whose debug file sits
# only under DIR/usr/lib/debug/.build-id/xx/rest.debug (a debug tree kept
# outside /usr/lib/debug).
build hot_symfs -Wl,--build-id
strip -o "$TMP/hot_symfs" "$TMP/hot_symfs.full" || fail "strip hot_symfs"
bid=$(readelf -n "$TMP/hot_symfs.full" | sed -n 's/.*Build ID: *//p')
[ -n "$bid" ] || fail "no build ID in hot_symfs"
dbg="$TMP/symfs/usr/lib/debug/.build-id/$(echo "$bid" | cut -c1-2)"
mkdir -p "$dbg"
mv "$TMP/hot_symfs.debug" "$dbg/$(echo "$bid" | cut -c3-).debug"
"$PROFTOP" --batch --json -d 0.5 -n 2 -- "$TMP/hot_symfs" 5 >"$TMP/sf0.json" 2>"$TMP/err"
! has "$TMP/sf0.json" hot_symfs || fail "hot_symfs named without --symfs?"
"$PROFTOP" --symfs "$TMP/symfs" --batch --json -d 0.5 -n 2 -- "$TMP/hot_symfs" 5 \
	>"$TMP/sf.json" 2>"$TMP/err"
has "$TMP/sf.json" hot_symfs ||
	fail "live --symfs debug file: $(head -c 600 "$TMP/sf.json") $(cat "$TMP/err")"
ok "live: --symfs DIR/usr/lib/debug/.build-id/ names a stripped binary"

# A static binary: stripped, it has no .dynsym either.
if cc -static -O1 -g -DNAME=hot_static -o "$TMP/st.full" "$TMP/v.c" 2>/dev/null; then
	objcopy --only-keep-debug "$TMP/st.full" "$TMP/hot_static.debug"
	strip -o "$TMP/st.s" "$TMP/st.full"
	objcopy --add-gnu-debuglink="$TMP/hot_static.debug" "$TMP/st.s" "$TMP/hot_static"
	"$PROFTOP" --batch --json -d 0.5 -n 2 -- "$TMP/hot_static" 5 >"$TMP/st.json" 2>"$TMP/err"
	has "$TMP/st.json" hot_static ||
		fail "static binary's debug link: $(head -c 600 "$TMP/st.json") $(cat "$TMP/err")"
	ok "live: .gnu_debuglink of a static binary (no .dynsym)"
else
	echo "# no static libc: static binary not checked"
fi

# -i: a perf record of the build-ID case, and perf report's names for it.
if perf record -q --no-buildid-cache -o "$TMP/perf.data" -e cpu-clock -F 999 -- \
	"$TMP/hot_linked_bid" 2 >/dev/null 2>"$TMP/rec"; then
	"$PROFTOP" -i "$TMP/perf.data" --batch --json >"$TMP/i.json" 2>"$TMP/err" ||
		fail "proftop -i: $(cat "$TMP/err")"
	has "$TMP/i.json" hot_linked_bid ||
		fail "-i: debug link: $(head -c 600 "$TMP/i.json") $(cat "$TMP/err")"
	perf report -i "$TMP/perf.data" --stdio --sort sym 2>/dev/null | grep -q hot_linked_bid ||
		fail "perf report does not name hot_linked_bid either"
	ok "-i: .gnu_debuglink, as perf report names it"
else
	echo "# perf record failed ($(tail -1 "$TMP/rec")): -i not checked"
fi

# MiniDebugInfo: the functions .dynsym lacks, xz-compressed in .gnu_debugdata.
if grep -q 'HAVE_LIBLZMA' config.h 2>/dev/null && command -v xz >/dev/null 2>&1; then
	cc -O1 -g -Wl,--build-id -DNAME=hot_minidebug -o "$TMP/m.full" "$TMP/v.c" || fail "cc m"
	nm -D --format=posix --defined-only "$TMP/m.full" | awk '{print $1}' | sort >"$TMP/dyn"
	nm --format=posix --defined-only "$TMP/m.full" | awk '$2 ~ /^[Tt]$/ {print $1}' |
		sort >"$TMP/funcs"
	comm -13 "$TMP/dyn" "$TMP/funcs" >"$TMP/keep"
	objcopy --only-keep-debug "$TMP/m.full" "$TMP/m.dbg"
	objcopy -S --remove-section .gdb_index --remove-section .comment \
		--keep-symbols="$TMP/keep" "$TMP/m.dbg" "$TMP/mini"
	xz -f "$TMP/mini"
	strip -o "$TMP/hot_minidebug" "$TMP/m.full"
	objcopy --add-section .gnu_debugdata="$TMP/mini.xz" "$TMP/hot_minidebug" ||
		fail "objcopy --add-section"
	"$PROFTOP" --batch --json -d 0.5 -n 2 -- "$TMP/hot_minidebug" 5 >"$TMP/m.json" 2>"$TMP/err"
	has "$TMP/m.json" hot_minidebug ||
		fail ".gnu_debugdata: $(head -c 600 "$TMP/m.json") $(cat "$TMP/err")"
	ok "live: .gnu_debugdata (MiniDebugInfo)"
	if perf record -q --no-buildid-cache -o "$TMP/m.data" -e cpu-clock -F 999 -- \
		"$TMP/hot_minidebug" 2 >/dev/null 2>&1; then
		"$PROFTOP" -i "$TMP/m.data" --batch --json >"$TMP/mi.json" 2>"$TMP/err" ||
			fail "proftop -i: $(cat "$TMP/err")"
		has "$TMP/mi.json" hot_minidebug || fail "-i: .gnu_debugdata"
		ok "-i: .gnu_debugdata"
	else
		fail "perf record of the MiniDebugInfo binary failed"
	fi
else
	echo "# built without liblzma or no xz: .gnu_debugdata not checked"
fi
rm -rf "$TMP"
