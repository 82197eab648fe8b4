# A process in another mount namespace resolves to its own files: inside
# `unshare -m`, a DIFFERENT binary (tests/helpers/callers) is bind-mounted over the
# path of a copy of tests/helpers/workload and run there; proftop -p and -a must
# name callers' functions (cc_leaf, parent_x), never the host file's
# (leaf_a...).  The host file at that path is another inode: proftop has
# to go through /proc/PID/root (or /proc/PID/map_files).
. tests/lib.sh
require_perf_events
command -v unshare >/dev/null || skip "unshare (util-linux) not installed"
unshare -m --propagation private true 2>/dev/null || skip "unshare -m refused here"

cp tests/helpers/workload "$TMP/wl" && cp tests/helpers/callers "$TMP/other" || fail "copy binaries"
# Absolute paths: the namespace's view is checked, not our cwd's.
WL=$(cd "$TMP" && pwd)/wl
OTHER=$(cd "$TMP" && pwd)/other

# start_ns: run "$WL 0" inside a private mount namespace where $WL is
# really $OTHER; sets NS_PID.
start_ns() {
	unshare -m --propagation private sh -c \
		"mount --bind '$OTHER' '$WL' && exec '$WL' 0" >"$TMP/ns.out" 2>"$TMP/ns.err" &
	NS_PID=$!
	BG_PIDS="$BG_PIDS $NS_PID"
	i=0
	while ! grep -q ready "$TMP/ns.out" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 500 ] || skip "bind mount in the namespace failed: $(cat "$TMP/ns.err")"
		sleep 0.01
	done
	# The pid the program prints is its own: exec kept unshare's.
	[ "$(awk '/ready/ {print $2}' "$TMP/ns.out")" = "$NS_PID" ] || fail "namespace pid"
	# Sanity: the namespace really sees the other binary at $WL.
	if command -v nsenter >/dev/null; then
		nsenter -t "$NS_PID" -m cmp -s "$OTHER" "$WL" || fail "bind mount not visible inside"
	fi
	cmp -s tests/helpers/workload "$WL" || fail "the host's $WL changed"
}

# check_ns FILE WHAT: the namespace's process (its pid: other tests may
# run tests/helpers/workload meanwhile) has callers' code named in dso "wl".
check_ns() {
	python3 - "$1" "$2" "$NS_PID" <<'PY' || exit 1
import json, sys
snaps = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
pid = int(sys.argv[3])
rows = [(r.get("dso"), r.get("symbol"), r["samples"]) for s in snaps for r in s["rows"]
        if r.get("pid") == pid and not r.get("kernel")]
print("# %s: wl rows %s" % (sys.argv[2], sorted(set((d, s) for d, s, _ in rows))))
if any(s in ("leaf_a", "leaf_b", "leaf_c") or d == "wl (replaced)" for d, s, _ in rows):
    print("not ok - %s: the host file's names for the namespace's binary" % sys.argv[2]); sys.exit(1)
own = sum(n for d, s, n in rows if d == "wl" and s in ("cc_leaf", "parent_x", "parent_y"))
total = sum(n for d, _, n in rows if d.startswith("wl"))
if total == 0 or own < 0.8 * total:
    print("not ok - %s: callers' names on %d of %d samples in wl" % (sys.argv[2], own, total)); sys.exit(1)
print("ok - %s: the namespace's binary is named from its own file (%d of %d samples)" % (sys.argv[2], own, total))
PY
}

start_ns
"$PROFTOP" -p "$NS_PID" -s pid,dso,sym --json -n 2 -d 1 >"$TMP/p.json" 2>"$TMP/err" ||
	fail "proftop -p: $(cat "$TMP/err")"
check_ns "$TMP/p.json" "-p"
"$PROFTOP" -a -s pid,dso,sym --json -n 2 -d 1 >"$TMP/a.json" 2>"$TMP/err" ||
	fail "proftop -a: $(cat "$TMP/err")"
check_ns "$TMP/a.json" "-a"
kill "$NS_PID"
