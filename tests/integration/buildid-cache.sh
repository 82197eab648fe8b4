# perf's build-id cache: a recorded binary rebuilt since is named from the
# copy perf record kept (as perf report names it), a `perf archive` bundle
# works with --buildid-dir and with --symfs, and hostile cache entries are
# refused and counted, with no hang.  Skipped without perf or a compiler.
. tests/lib.sh

command -v perf >/dev/null 2>&1 || skip "perf is not installed"
command -v cc >/dev/null 2>&1 || skip "no C compiler"
ABS=$(cd "$TMP" && pwd)
CACHE=$ABS/cache
EMPTY=$ABS/empty
mkdir -p "$ABS/a" "$ABS/b" "$EMPTY"
cat >"$ABS/a/prog.c" <<'EOF'
#include <stdlib.h>
#include <time.h>
static volatile unsigned long sink;
__attribute__((noinline)) void leaf_p(void) { for (int i = 0; i < 4000; i++) sink += i * 3; }
__attribute__((noinline)) void leaf_q(void) { for (int i = 0; i < 2000; i++) sink += i ^ 5; }
__attribute__((noinline)) void leaf_r(void) { for (int i = 0; i < 1000; i++) sink += i + 7; }
int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int k = 0; k < 100; k++) {
			leaf_p();
			leaf_q();
			leaf_r();
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	return 0;
}
EOF
cp "$ABS/a/prog.c" "$ABS/b/prog.c"
(cd "$ABS/a" && cc -g -O1 -fno-omit-frame-pointer -o prog prog.c) || fail "cannot build the workload"
# perf reads its cache directory from --buildid-dir only (PERF_BUILDID_DIR
# is what it passes to perf archive).
perf --buildid-dir "$CACHE" record -q -g -F 999 -e cpu-clock -o "$ABS/perf.data" \
	-- "$ABS/a/prog" 1.5 >/dev/null 2>"$TMP/perf.err" ||
	skip "perf record failed: $(tail -1 "$TMP/perf.err")"
[ -d "$CACHE/.build-id" ] || skip "perf record kept no build-id cache"
# Rebuild from the same source in another directory (the debug info names
# it: another build ID), over the recorded path (ld writes a new inode, as
# a build does: perf's cached copy may be a hard link to the old one).
(cd "$ABS/b" && cc -g -O1 -fno-omit-frame-pointer -o "$ABS/a/prog" prog.c) ||
	fail "cannot rebuild the workload"
old=$(perf buildid-list -i "$ABS/perf.data" 2>/dev/null | grep "$ABS/a/prog" | cut -d' ' -f1)
new=$(perf buildid-list -f 2>/dev/null -i "$ABS/a/prog" | cut -d' ' -f1)
[ -n "$old" ] && [ "$old" != "$new" ] || fail "the rebuild kept build ID $old ($new)"

perf --buildid-dir "$CACHE" report -i "$ABS/perf.data" --stdio --no-children --sort dso,sym \
	2>/dev/null >"$TMP/perf.txt" || fail "perf report failed"

# same_as_perf NAME: proftop's JSON in TMP/NAME.json names the top rows as
# perf report does, within 0.5 points.
same_as_perf() {
	python3 - "$1" "$TMP/perf.txt" "$TMP/$1.json" <<'PY' || exit 1
import json, re, sys
name, perf_out, pt_out = sys.argv[1:4]
perf = {}
for line in open(perf_out):
    m = re.match(r'^\s+([0-9.]+)%\s+(\S+)\s+\[(.)\]\s+(.*?)\s*$', line)
    if m:
        key = (m.group(2), m.group(4))
        perf[key] = perf.get(key, 0) + float(m.group(1))
snap = [json.loads(l) for l in open(pt_out) if l.strip()][-1]
ours = {}
for r in snap["rows"]:
    key = (r["dso"], r.get("symbol", "[unknown]"))
    ours[key] = ours.get(key, 0) + r["self"]
    if r["dso"] == "prog" and not r["dso_path"].endswith("/a/prog"):
        print("not ok - %s: dso_path %s is not the recorded path" % (name, r.get("dso_path")))
        sys.exit(1)
top = sorted(perf.items(), key=lambda kv: -kv[1])[:5]
for k, v in top:
    print("#   %-10s %-12s perf %6.2f%%  proftop %6.2f%%" % (k[0], k[1], v, ours.get(k, 0)))
bad = ["%s %s: perf %.2f%%, proftop %.2f%%" % (k[0], k[1], v, ours.get(k, 0))
       for k, v in top if v >= 0.5 and abs(v - ours.get(k, 0)) > 0.5]
if not any(k[1] == "leaf_p" for k, v in top):
    bad.append("perf report does not name leaf_p")
if bad:
    print("not ok - %s: %s" % (name, "; ".join(bad)))
    sys.exit(1)
print("ok - %s: the names of perf report, within 0.5 points" % name)
PY
}

# run NAME [OPTIONS...]: replay with the cache in PERF_BUILDID_DIR=$DIR.
run() {
	name=$1
	shift
	PERF_BUILDID_DIR=$DIR timeout 60 "$PROFTOP" -i "$ABS/perf.data" --json --no-children "$@" \
		>"$TMP/$name.json" 2>"$TMP/$name.err" ||
		fail "$name: exit status $? ($(cat "$TMP/$name.err"))"
}

# Before: without the cache the rebuilt file is refused, and nothing names
# the samples.
DIR=$EMPTY run nocache
grep -q '"prog (build-id mismatch)"' "$TMP/nocache.json" ||
	fail "without the cache: no build-id mismatch row"
grep -q "build-id cache" "$TMP/nocache.err" && fail "without the cache: $(cat "$TMP/nocache.err")"
ok "without the cache: prog (build-id mismatch)"

# After: the cache from PERF_BUILDID_DIR, then from --buildid-dir.
DIR=$CACHE run rebuild
same_as_perf rebuild
grep -q "notice: 1 DSO from the build-id cache" "$TMP/rebuild.err" ||
	fail "rebuild: no notice of the cache ($(cat "$TMP/rebuild.err"))"
ok "rebuild: the notice says 1 DSO came from the build-id cache"
DIR=$EMPTY run option --buildid-dir="$CACHE"
same_as_perf option

# perf archive, extracted elsewhere, with perf's cache out of the way.
PERF_BUILDID_DIR=$CACHE perf --buildid-dir "$CACHE" archive "$ABS/perf.data" >"$TMP/archive.out" 2>&1 ||
	fail "perf archive failed: $(tail -1 "$TMP/archive.out")"
mkdir -p "$ABS/bundle"
tar xf "$ABS/perf.data.tar.bz2" -C "$ABS/bundle" || fail "cannot extract the archive"
DIR=$EMPTY run archive-buildid-dir --buildid-dir="$ABS/bundle"
same_as_perf archive-buildid-dir
DIR=$EMPTY run archive-symfs --symfs="$ABS/bundle"
same_as_perf archive-symfs
# The bundle holds every DSO with samples (libc or ld.so too, when the
# run had samples there): under --symfs each of them comes from it.
grep -q -E "notice: [1-9][0-9]* DSOs? from the build-id cache" "$TMP/archive-symfs.err" ||
	fail "archive --symfs: no notice of the cache ($(cat "$TMP/archive-symfs.err"))"

# Hostile caches: copies of the real one, each broken one way.  The entry
# must be refused (the samples stay [unknown] under the mismatch name),
# counted in a notice, and the replay must end.
entry=".build-id/$(echo "$old" | cut -c1-2)/$(echo "$old" | cut -c3-)"
target=$(readlink "$CACHE/$entry")
hostile() {
	hname=$1
	how=$2
	H=$ABS/h-$hname
	cp -a "$CACHE" "$H"
	(cd "$H" && eval "$how") || fail "$hname: cannot set up"
	DIR=$H run "hostile-$hname"
	grep -q '"prog (build-id mismatch)"' "$TMP/hostile-$hname.json" ||
		fail "hostile $hname: the entry was used"
	grep -q "notice: 1 build-id cache entry refused" "$TMP/hostile-$hname.err" ||
		fail "hostile $hname: not counted ($(cat "$TMP/hostile-$hname.err"))"
	ok "hostile cache, $hname: refused and counted"
}
hostile absolute-link "ln -sfn '$CACHE/$(dirname "$entry")/$target' '$entry'"
hostile dotdot-link "ln -sfn '../../../cache/$(echo "$target" | sed 's|^\.\./\.\./||')' '$entry'"
hostile loop "ln -sfn '$(basename "$entry")' '$entry'"
hostile fifo "rm '$(dirname "$entry")/$target/elf' && mkfifo '$(dirname "$entry")/$target/elf'"
hostile other-build-id "rm '$(dirname "$entry")/$target/elf' && cp '$ABS/a/prog' '$(dirname "$entry")/$target/elf'"
hostile directory "rm '$(dirname "$entry")/$target/elf' && mkdir '$(dirname "$entry")/$target/elf'"

# Live, as a user who cannot read /proc/PID/map_files (it needs
# CAP_SYS_ADMIN): a program that deletes its own binary as it starts.  Its
# names come from /proc/PID/exe (its user may open it) or, when MMAP2s
# carry build IDs (not on every kernel), from the cache given.
[ "$(id -u)" -eq 0 ] || skip "live case: needs root to switch to an unprivileged user"
command -v setpriv >/dev/null || skip "live case: setpriv (util-linux) not installed"
asuser() { setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"; }
asuser "$PROFTOP" --version >/dev/null 2>&1 || skip "live case: user nobody cannot run $PROFTOP"
L=$ABS/live
mkdir -p "$L"
sed 's/^\tdouble secs = /\tunlink(argv[0]);\n&/; s/^#include <time.h>/&\n#include <unistd.h>/' \
	"$ABS/a/prog.c" >"$L/prog.c"
(cd "$L" && cc -g -O1 -fno-omit-frame-pointer -o prog prog.c) || fail "live: cannot build"
id=$(perf buildid-list -f -i "$L/prog" 2>/dev/null | cut -d' ' -f1)
mkdir -p "$L/cache/.build-id/$(echo "$id" | cut -c1-2)" "$L/cache$L/prog/$id"
cp "$L/prog" "$L/cache$L/prog/$id/elf"
ln -s "../..$L/prog/$id" "$L/cache/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-)"
chmod -R a+rwX "$L"
asuser timeout 60 "$PROFTOP" --json -d 1 --no-children --buildid-dir="$L/cache" \
	-- "$L/prog" 2 >"$TMP/live.json" 2>"$TMP/live.err" ||
	skip "live case: proftop as nobody: $(tail -1 "$TMP/live.err")"
[ ! -e "$L/prog" ] || fail "live: the program did not delete itself"
python3 - "$TMP/live.json" <<'PY' || fail "live: the deleted binary is not named ($(cat "$TMP/live.err"))"
import json, sys
snap = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")][-1]
names = {r.get("symbol") for r in snap["rows"] if r["dso"].startswith("prog")}
print("# live rows: %s" % sorted(n for n in names if n))
sys.exit(0 if {"leaf_p", "leaf_q"} <= names else 1)
PY
ok "live: a binary deleted while it runs, map_files unreadable: named"
