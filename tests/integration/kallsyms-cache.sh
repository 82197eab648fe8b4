# Live kernel symbols through the kallsyms cache: the first run reads
# /proc/kallsyms and writes $XDG_CACHE_HOME/proftop/kallsyms (0600 in a
# 0700 directory), the second reads the cache (--json says which), and both
# name kernel samples with /proc/kallsyms' names.  --no-kallsyms-cache
# bypasses it; a truncated or group-writable file is not used (and is
# rewritten); a replay neither reads nor writes it.
. tests/lib.sh
require_perf_events
[ "$(id -u)" -eq 0 ] || skip "system-wide sampling needs root"
[ "$(cat /proc/sys/kernel/kptr_restrict 2>/dev/null)" != 2 ] || skip "kptr_restrict 2"

XDG_CACHE_HOME=$(pwd)/$TMP/xdg
export XDG_CACHE_HOME
CACHE=$XDG_CACHE_HOME/proftop/kallsyms
awk '$2 ~ /^[tTwW]$/ { print $3 }' /proc/kallsyms | sort -u >"$TMP/names"

start_workload 0
# run NAME [OPTIONS]: a system-wide second, its JSON in $TMP/NAME.json
run() {
	n=$1
	shift
	"$PROFTOP" -a --json -n 1 -d 1 -s dso,sym "$@" >"$TMP/$n.json" 2>"$TMP/$n.err" ||
		fail "$n: proftop failed: $(cat "$TMP/$n.err")"
}
source_is() {
	json_check "$TMP/$1.json" "snaps[-1].get('kallsyms', {}).get('source') == '$2'" ||
		fail "$1: kallsyms from $(python3 -c "import json,sys; print([json.loads(l).get('kallsyms') for l in open(sys.argv[1])][-1])" "$TMP/$1.json"), not $2"
}
# Every named kernel row's name is a /proc/kallsyms text symbol, and
# there are some.
names_ok() {
	python3 - "$TMP/$1.json" "$TMP/names" <<'PY' || fail "$1: kernel names not from /proc/kallsyms"
import json, sys
snap = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]
names = set(open(sys.argv[2]).read().split())
k = [r for r in snap["rows"] if r["kernel"] and r.get("symbol") not in (None, "[unknown]")]
bad = [r["symbol"] for r in k if r["symbol"] not in names]
print("%d named kernel rows, %d not in kallsyms %s" % (len(k), len(bad), bad[:5]))
sys.exit(0 if k and not bad else 1)
PY
}

run cold
source_is cold /proc/kallsyms
names_ok cold
[ -f "$CACHE" ] || fail "no cache written at $CACHE"
[ "$(stat -c %a "$CACHE")" = 600 ] || fail "cache mode $(stat -c %a "$CACHE"), want 600"
[ "$(stat -c %a "$XDG_CACHE_HOME/proftop")" = 700 ] ||
	fail "cache directory mode $(stat -c %a "$XDG_CACHE_HOME/proftop"), want 700"
ok "first run: /proc/kallsyms read, cache written 0600 in a 0700 directory"

run warm
source_is warm cache
names_ok warm
ok "second run: kernel names from the cache"

SIZE=$(stat -c %s "$CACHE")
MTIME=$(stat -c %Y.%X "$CACHE")
run bypass --no-kallsyms-cache
source_is bypass /proc/kallsyms
names_ok bypass
[ "$(stat -c %Y.%X "$CACHE")" = "$MTIME" ] || fail "--no-kallsyms-cache touched the cache"
ok "--no-kallsyms-cache: /proc/kallsyms, the cache untouched"

head -c $((SIZE / 2)) "$CACHE" >"$TMP/half" && cat "$TMP/half" >"$CACHE"
run truncated
source_is truncated /proc/kallsyms
names_ok truncated
[ "$(stat -c %s "$CACHE")" = "$SIZE" ] || fail "a truncated cache not rewritten"
run again
source_is again cache
ok "a truncated cache is not used, and is rewritten"

chmod 620 "$CACHE"
run groupw
source_is groupw /proc/kallsyms
[ "$(stat -c %a "$CACHE")" = 600 ] || fail "a group-writable cache not replaced"
ok "a group-writable cache is not used, and is replaced"

# Replay: no cache read or written, no kallsyms object.
if command -v perf >/dev/null 2>&1 &&
	perf record -q -a -o "$TMP/p.data" -- sleep 0.3 >/dev/null 2>&1; then
	rm -rf "$XDG_CACHE_HOME"
	"$PROFTOP" -i "$TMP/p.data" --json -s dso,sym >"$TMP/replay.json" 2>"$TMP/replay.err" ||
		fail "replay: $(cat "$TMP/replay.err")"
	[ ! -e "$XDG_CACHE_HOME" ] || fail "a replay wrote the cache"
	json_check "$TMP/replay.json" "'kallsyms' not in snaps[-1]" || fail "a replay says kallsyms"
	ok "a replay neither writes the cache nor says where kallsyms came from"
fi
