# Symbols of every kind of code, live: C++ names demangled (and raw with
# --no-demangle), a stripped binary named from its debug file by build ID,
# and a binary replaced on disk after it started: its samples keep the old
# names (read through /proc/PID/map_files) or are [unknown], never the new
# file's names.  Fixtures are compiled here.
. tests/lib.sh
require_perf_events
command -v cc >/dev/null 2>&1 || skip "no C compiler"

# C++: a hot function in a namespace, with a template argument.
if command -v g++ >/dev/null 2>&1; then
	cat >"$TMP/cxx.cc" <<'CC'
#include <cstdint>
#include <cstdio>
#include <ctime>
namespace hot {
template <typename T> __attribute__((noinline)) T spin(T n)
{
	volatile T v = 1;
	for (T i = 0; i < n; i++)
		v = v * 3 + i;
	return v;
}
}
int main()
{
	time_t end = time(nullptr) + 3;
	uint64_t s = 0;
	while (time(nullptr) < end)
		s += hot::spin<uint64_t>(1000000);
	std::printf("%llu\n", (unsigned long long)s);
}
CC
	g++ -O1 -o "$TMP/cxx" "$TMP/cxx.cc" || fail "g++"
	# -n ends the command with SIGTERM: its status is 143, not ours.
	"$PROFTOP" --batch --json -d 1 -n 2 -- "$TMP/cxx" >"$TMP/cxx.json" 2>"$TMP/err"
	json_check "$TMP/cxx.json" \
		'any(r.get("symbol") == "hot::spin<unsigned long>" for r in snaps[-1]["rows"])' ||
		fail "C++ name demangled: $(head -c 600 "$TMP/cxx.json")"
	ok "C++ names demangled"
	"$PROFTOP" --no-demangle --batch --json -d 1 -n 2 -- "$TMP/cxx" >"$TMP/raw.json" 2>"$TMP/err"
	json_check "$TMP/raw.json" \
		'any(r.get("symbol", "").startswith("_ZN3hot4spinImEET_S1_") for r in snaps[-1]["rows"])' ||
		fail "--no-demangle keeps raw names"
	ok "--no-demangle"
fi

# Two builds of one program: same path, different code and names.
cat >"$TMP/v.c" <<'C'
#include <stdint.h>
#include <stdio.h>
#include <time.h>
__attribute__((noinline)) uint64_t NAME(uint64_t n)
{
	volatile uint64_t v = 1;
	for (uint64_t i = 0; i < n; i++)
		v = v * 3 + i;
	return v;
}
int main(int argc, char **argv)
{
	time_t end = time(NULL) + (argc > 1 ? 4 : 0);
	uint64_t s = 0;
	if (argc < 3) {         /* a third argument: quiet (stdout is JSON) */
		printf("ready\n");
		fflush(stdout);
	}
	while (time(NULL) < end)
		s += NAME(1000000);
	return (int)(s & 1);
}
C
cc -O1 -Wl,--build-id -DNAME=old_hot -o "$TMP/prog" "$TMP/v.c" || fail "cc old"
cc -O1 -Wl,--build-id -DNAME=new_and_wrong -fno-inline -Dpad=1 -o "$TMP/prog.new" "$TMP/v.c" || fail "cc new"
"$TMP/prog" 4 >"$TMP/prog.out" &
P=$!
BG_PIDS="$BG_PIDS $P"
i=0
while ! grep -q ready "$TMP/prog.out" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 500 ] || fail "program did not start"
	sleep 0.01
done
# Replace it as a package manager would: a new file renamed over the path.
mv "$TMP/prog.new" "$TMP/prog"
"$PROFTOP" -p "$P" --batch --json -d 1 -n 1 >"$TMP/rep.json" 2>"$TMP/err" ||
	fail "proftop -p on a replaced binary: $(cat "$TMP/err")"
json_check "$TMP/rep.json" \
	'not any(r.get("symbol") == "new_and_wrong" for r in snaps[-1]["rows"])' ||
	fail "a replaced binary shows the new file's names"
if json_check "$TMP/rep.json" 'any(r.get("symbol") == "old_hot" for r in snaps[-1]["rows"])'; then
	ok "replaced binary: old names through /proc/PID/map_files"
else
	json_check "$TMP/rep.json" \
		'any(r.get("symbol") == "[unknown]" and "(" in r.get("dso", "") for r in snaps[-1]["rows"])' ||
		fail "replaced binary: neither old names nor a marked [unknown]: $(head -c 600 "$TMP/rep.json")"
	ok "replaced binary: [unknown] under a marked name"
fi
kill "$P" 2>/dev/null

# A stripped binary whose debug file sits in a --symfs-style build-ID tree
# under /usr/lib/debug is found through that tree (root only: the tree is
# the system's).
if [ "$(id -u)" = 0 ] && command -v objcopy >/dev/null 2>&1; then
	cc -O1 -Wl,--build-id -DNAME=from_debug_file -o "$TMP/strip" "$TMP/v.c" || fail "cc strip"
	id=$(readelf -n "$TMP/strip" | awk '/Build ID/ { print $3 }')
	dir=/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)
	dbg=$dir/$(echo "$id" | cut -c3-).debug
	if [ -n "$id" ] && [ ! -e "$dbg" ]; then
		mkdir -p "$dir"
		objcopy --only-keep-debug "$TMP/strip" "$dbg"
		objcopy --strip-all "$TMP/strip"
		"$PROFTOP" --batch --json -d 1 -n 1 -- "$TMP/strip" 4 q >"$TMP/strip.json" 2>"$TMP/err"
		rm -f "$dbg"
		json_check "$TMP/strip.json" \
			'any(r.get("symbol") == "from_debug_file" for r in snaps[-1]["rows"])' ||
			fail "stripped binary named from its debug file"
		ok "stripped binary: names from /usr/lib/debug/.build-id"
	fi
fi
rm -rf "$TMP"
