# --debuginfod: a stripped binary's debug file fetched by build ID from a
# local fake server (tests/helpers/fake-debuginfod.py), live and with -i; without
# the option no request reaches the server even with DEBUGINFOD_URLS set;
# a server that hangs is given up after --debuginfod-timeout, with
# "debuginfod: 1" in the header meanwhile.
# run-tests: alone (times or rates measured; see tests/run-tests.sh)
. tests/lib.sh
require_perf_events
command -v cc >/dev/null 2>&1 || skip "no C compiler"
command -v objcopy >/dev/null 2>&1 || skip "no objcopy (binutils)"
command -v python3 >/dev/null 2>&1 || skip "no python3"
[ -e /usr/lib/x86_64-linux-gnu/libdebuginfod.so.1 ] || [ -e /usr/lib64/libdebuginfod.so.1 ] ||
	ldconfig -p 2>/dev/null | grep -q 'libdebuginfod\.so\.1' ||
	skip "libdebuginfod.so.1 not installed (Debian package libdebuginfod1)"

cat >"$TMP/v.c" <<'C'
#include <stdint.h>
#include <stdlib.h>
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
	while (time(NULL) < end)
		s += NAME(1000000);
	return s == 1;
}
C
# stripped NAME: $TMP/NAME, its debug file served as $TMP/srv/BUILDID.debug.
mkdir -p "$TMP/srv"
stripped() {
	cc -O1 -g -Wl,--build-id -DNAME="$1" -o "$TMP/$1.full" "$TMP/v.c" || fail "cc $1"
	id=$(readelf -n "$TMP/$1.full" | awk '/Build ID/ { print $3 }')
	[ -n "$id" ] || fail "no build ID in $1"
	objcopy --only-keep-debug "$TMP/$1.full" "$TMP/srv/$id.debug" || fail "objcopy $1"
	strip -o "$TMP/$1" "$TMP/$1.full" || fail "strip $1"
}
stripped hot_from_server
stripped hot_slow_server

# server NAME [DELAY]: start a server; sets URL.
server() {
	rm -f "$TMP/$1.port"
	: >"$TMP/$1.log"
	python3 tests/helpers/fake-debuginfod.py "$TMP/srv" "$TMP/$1.port" "$TMP/$1.log" ${2:-0} &
	BG_PIDS="$BG_PIDS $!"
	i=0
	while [ ! -s "$TMP/$1.port" ]; do
		i=$((i + 1))
		[ $i -lt 500 ] || fail "fake debuginfod server did not start"
		sleep 0.01
	done
	URL=http://127.0.0.1:$(cat "$TMP/$1.port")
}
has() {
	json_check "$1" "any(r.get('symbol') == '$2' for s in snaps for r in s['rows'])"
}
export DEBUGINFOD_CACHE_PATH="$TMP/cache"

server fast
# Without --debuginfod: DEBUGINFOD_URLS alone never reaches the network.
DEBUGINFOD_URLS=$URL "$PROFTOP" --batch --json -d 1 -n 3 -- "$TMP/hot_from_server" 5 \
	>"$TMP/off.json" 2>"$TMP/err"
[ ! -s "$TMP/fast.log" ] || fail "requests without --debuginfod: $(cat "$TMP/fast.log")"
! has "$TMP/off.json" hot_from_server || fail "a name without its debug file?"
ok "no --debuginfod: no request, even with DEBUGINFOD_URLS set"

DEBUGINFOD_URLS=$URL "$PROFTOP" --debuginfod --batch --json -d 1 -n 3 -- \
	"$TMP/hot_from_server" 5 >"$TMP/on.json" 2>"$TMP/err"
grep -q '^/buildid/[0-9a-f]*/debuginfo$' "$TMP/fast.log" || fail "no request: $(cat "$TMP/err")"
has "$TMP/on.json" hot_from_server ||
	fail "--debuginfod: $(head -c 600 "$TMP/on.json") $(cat "$TMP/err")"
ok "--debuginfod: names from the fetched debug file"

# -i, from an empty cache.
if perf record -q --no-buildid-cache -o "$TMP/perf.data" -e cpu-clock -F 999 -- \
	"$TMP/hot_from_server" 2 >/dev/null 2>"$TMP/rec"; then
	rm -rf "$TMP/cache"
	: >"$TMP/fast.log"
	DEBUGINFOD_URLS=$URL "$PROFTOP" -i "$TMP/perf.data" --json >"$TMP/i0.json" 2>"$TMP/err" ||
		fail "proftop -i: $(cat "$TMP/err")"
	[ ! -s "$TMP/fast.log" ] || fail "-i: requests without --debuginfod"
	! has "$TMP/i0.json" hot_from_server || fail "-i: a name without its debug file?"
	DEBUGINFOD_URLS=$URL "$PROFTOP" --debuginfod -i "$TMP/perf.data" --json \
		>"$TMP/i.json" 2>"$TMP/err" || fail "proftop -i --debuginfod: $(cat "$TMP/err")"
	has "$TMP/i.json" hot_from_server || fail "-i --debuginfod: $(head -c 600 "$TMP/i.json")"
	ok "-i: --debuginfod fetches, nothing without it"
else
	fail "perf record: $(cat "$TMP/rec")"
fi

# A server that answers after 60 s: given up after the timeout, and the
# header says a fetch is in progress meanwhile.
server slow 60
start=$(date +%s)
DEBUGINFOD_URLS=$URL "$PROFTOP" --debuginfod --debuginfod-timeout 3 --batch -d 1 -n 2 -- \
	"$TMP/hot_slow_server" 6 >"$TMP/slow.txt" 2>"$TMP/err"
took=$(($(date +%s) - start))
[ -s "$TMP/slow.log" ] || fail "slow server: no request"
grep -q 'debuginfod: 1' "$TMP/slow.txt" ||
	fail "no \"debuginfod: 1\" in the header: $(head -5 "$TMP/slow.txt")"
[ "$took" -lt 30 ] || fail "--debuginfod-timeout 3: proftop took ${took}s"
ok "a hanging server: \"debuginfod: 1\" shown, given up (run took ${took}s)"
# The last table (at 2 s) has no next one: it waits (5 s at most) for
# what is still loading, here the program given up on after 3 s, so its
# samples are in it (under its name, its symbols [unknown]: stripped).
awk '/^proftop: [0-9]/{ t = "" } { t = t $0 "\n" } END { printf "%s", t }' "$TMP/slow.txt" |
	grep -q ' hot_slow_server  ' || fail "the last table left out the program's samples: $(tail -8 "$TMP/slow.txt")"
ok "the last table waits for the symbols still loading"

# While a fetch hangs (60 s, --debuginfod-timeout 30), other DSOs load: the
# program runs a second in a stripped library of its own (its debug file
# asked from the server first), then in its own binary, whose names must
# show within seconds; and proftop exits without waiting for the fetch.
cat >"$TMP/lib.c" <<'C'
#include <stdint.h>
#include <time.h>
uint64_t lib_spin(double secs)
{
	struct timespec a, b;
	volatile uint64_t v = 1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (int i = 0; i < 100000; i++)
			v = v * 3 + (uint64_t)i;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while (b.tv_sec - a.tv_sec + (b.tv_nsec - a.tv_nsec) / 1e9 < secs);
	return v;
}
C
cat >"$TMP/main.c" <<'C'
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
uint64_t lib_spin(double secs);
static __attribute__((noinline)) uint64_t main_binary_spin(uint64_t n)
{
	volatile uint64_t v = 1;
	for (uint64_t i = 0; i < n; i++)
		v = v * 5 + i;
	return v;
}
int main(int argc, char **argv)
{
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 2);
	uint64_t s = lib_spin(1.0);
	while (time(NULL) < end)
		s += main_binary_spin(1000000);
	return s == 1;
}
C
cc -O1 -g -fPIC -shared -Wl,--build-id -o "$TMP/libspin.full.so" "$TMP/lib.c" || fail "cc lib"
id=$(readelf -n "$TMP/libspin.full.so" | awk '/Build ID/ { print $3 }')
objcopy --only-keep-debug "$TMP/libspin.full.so" "$TMP/srv/$id.debug" || fail "objcopy lib"
strip -o "$TMP/libspin.so" "$TMP/libspin.full.so" || fail "strip lib"
cc -O1 -g -o "$TMP/spin_main" "$TMP/main.c" -L"$TMP" -lspin -Wl,-rpath,"$(cd "$TMP" && pwd)" ||
	fail "cc main"
server hang 60
start=$(date +%s)
DEBUGINFOD_URLS=$URL "$PROFTOP" --debuginfod --debuginfod-timeout 30 --batch --json -d 1 -n 6 \
	-- "$TMP/spin_main" 8 >"$TMP/hang.json" 2>"$TMP/err"
took=$(($(date +%s) - start))
grep -q "/buildid/$id/debuginfo" "$TMP/hang.log" || fail "no request for libspin.so: $(cat "$TMP/hang.log")"
python3 - "$TMP/hang.json" "$took" <<'PY' || exit 1
import json, sys
snaps = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
took = int(sys.argv[2])
named = [s["time"] for s in snaps
         if any(r.get("symbol") == "main_binary_spin" and r.get("dso") == "spin_main" for r in s["rows"])]
print("# %d refreshes at %s s; main_binary_spin named from %s s; run took %d s" %
      (len(snaps), [s["time"] for s in snaps], named[0] if named else None, took))
if not named or named[0] > 4.5:
    print("not ok - the program's own binary waited for a hanging fetch"); sys.exit(1)
if took >= 20:
    print("not ok - proftop waited for the hanging fetch at exit (%d s)" % took); sys.exit(1)
print("ok - a hanging fetch holds only its DSO: the binary named at %.1f s, exit after %d s" %
      (named[0], took))
PY
rm -rf "$TMP"
