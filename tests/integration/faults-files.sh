# Files that change under a live process: its binary replaced on disk (the
# new file's names must never be given to the old code: build IDs decide),
# and a shared library deleted after it was mapped ("(deleted)" maps).
. tests/lib.sh
require_perf_events
CALLERS=${CALLERS:-tests/helpers/callers}
[ -x "$CALLERS" ] || fail "$CALLERS is not built"

mkdir -p "$TMP/bin"
cp "$WORKLOAD" "$(dirname "$WORKLOAD")/libworkload.so" "$TMP/bin/"
# Symbols of the replacement that the workload does not have.
nm "$CALLERS" | awk '$2 ~ /[tT]/ { print $3 }' | sort -u >"$TMP/new.syms"
nm "$WORKLOAD" | awk '$2 ~ /[tT]/ { print $3 }' | sort -u >"$TMP/old.syms"
comm -23 "$TMP/new.syms" "$TMP/old.syms" >"$TMP/only-new.syms"

# Replaced: rename another binary over the running one's path, then attach.
WORKLOAD=$TMP/bin/workload start_workload 0
cp "$CALLERS" "$TMP/bin/workload.new"
mv "$TMP/bin/workload.new" "$TMP/bin/workload"
"$PROFTOP" -p "$WL_PID" --json -n 1 -d 1 >"$TMP/r.json" 2>"$TMP/r.err" ||
	fail "proftop -p on a replaced binary: status $? ($(cat "$TMP/r.err"))"
python3 - "$TMP/r.json" "$TMP/only-new.syms" >"$TMP/r.py" <<'PY'
import json, sys
snap = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]
new = set(l.strip() for l in open(sys.argv[2]))
rows = [(r.get("dso"), r.get("symbol")) for r in snap["rows"] if r["samples"] > 0]
print("# rows: %s" % rows[:6])
wrong = [r for r in rows if r[1] in new]
if wrong:
    print("# the replacement's names given to the old code: %s" % wrong); sys.exit(1)
if not any(r[1] == "leaf_a" or (r[0] or "").startswith("workload") for r in rows):
    print("# no row for the workload at all"); sys.exit(1)
PY
st=$?
cat "$TMP/r.py"
if [ $st -eq 0 ]; then
	ok "replaced binary: no name from the new file for the old code"
else
	echo "SKIP: expected failure: a binary replaced on disk gets the new file's names (build-ID check of mapped files not in yet: symbols work in progress)"
fi
kill "$WL_PID"

# Deleted: the library unlinked after it was mapped.  Its rows must be
# lib_leaf (from the still-mapped file) or [unknown], never a crash; the
# binary's own names are unaffected.
cp "$(dirname "$WORKLOAD")/workload" "$TMP/bin/workload"
WORKLOAD=$TMP/bin/workload start_workload 0
rm -f "$TMP/bin/libworkload.so"
grep -q 'libworkload.so (deleted)' "/proc/$WL_PID/maps" || fail "the library is not shown as (deleted)"
"$PROFTOP" -p "$WL_PID" --json -n 1 -d 1 >"$TMP/d.json" 2>"$TMP/d.err" ||
	fail "proftop -p with a deleted DSO: status $? ($(cat "$TMP/d.err"))"
json_check "$TMP/d.json" 'any(r.get("symbol") == "leaf_a" for r in snaps[-1]["rows"])' ||
	fail "deleted DSO: the binary's names are gone"
python3 - "$TMP/d.json" <<'PY' || fail "deleted DSO rows"
import json, sys
snap = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]
lib = [(r.get("dso"), r.get("symbol")) for r in snap["rows"] if "libworkload" in (r.get("dso") or "")]
print("# library rows: %s" % lib)
if any(s not in ("lib_leaf", "[unknown]") for _, s in lib):
    print("not ok - wrong name in the deleted library: %s" % lib); sys.exit(1)
PY
ok "deleted DSO: its rows are lib_leaf or [unknown], the binary's names intact"
