# Hostile /tmp/perf-PID.map files for a live JIT (tests/helpers/oddcode jit, which
# writes no map itself here): a symlink to /etc/shadow and to a valid map
# of ours, a FIFO, a /dev/zero symlink, a valid map owned by another user,
# a map over the 64 MiB cap (sparse), and garbage and overlong lines
# around one good line.  proftop must not hang, must not read a symlink's
# target, and may name JIT code only from the good line of a valid file.
# run-tests: alone (times or rates measured; see tests/run-tests.sh)
. tests/lib.sh
require_perf_events
ODD=tests/helpers/oddcode
[ -x "$ODD" ] || fail "$ODD not built"
[ "$(id -u)" = 0 ] || skip "needs root (a file owned by another user)"

# run_case NAME SETUP: start the JIT, let SETUP make /tmp/perf-$JPID.map
# (the first code's address is $ADDR), profile it until it exits; the
# JSON goes to $TMP/NAME.json.
run_case() {
	"$ODD" jit 2 nomap >"$TMP/$1.out" 2>"$TMP/$1.err" &
	JPID=$!
	BG_PIDS="$BG_PIDS $JPID"
	i=0
	while ! grep -q '^first' "$TMP/$1.out" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 500 ] || { grep -q "cannot make code" "$TMP/$1.err" && skip "no JIT code here"; fail "$1: oddcode did not start"; }
		sleep 0.01
	done
	ADDR=$(awk '/^first/ {sub("0x", "", $2); print $2}' "$TMP/$1.out")
	MAP=/tmp/perf-$JPID.map
	rm -f "$MAP"
	CLEAN="$CLEAN $MAP"
	$2
	start=$(date +%s)
	timeout 30 "$PROFTOP" -p "$JPID" --json -d 0.5 >"$TMP/$1.json" 2>"$TMP/$1.perr"
	st=$?
	[ $st -ne 124 ] || fail "$1: proftop hung (killed after 30 s)"
	[ $st -eq 0 ] || fail "$1: proftop exit $st: $(cat "$TMP/$1.perr")"
	echo "# $1: $(($(date +%s) - start)) s"
	wait "$JPID" 2>/dev/null
	rm -f "$MAP"
}
CLEAN=
trap 'rm -f $CLEAN; cleanup' EXIT INT TERM

# jit_names NAME: the symbols of the perf-PID.map rows, sorted, one line.
jit_names() {
	python3 - "$TMP/$1.json" "perf-$JPID.map" <<'PY'
import json, sys
names = set()
for l in open(sys.argv[1]):
    if l.startswith("{"):
        for r in json.loads(l)["rows"]:
            if r.get("dso") == sys.argv[2]:
                names.add(r.get("symbol"))
print(" ".join(sorted(names)))
PY
}

# A valid map of ours, the target of a symlink: never to be read.
SECRET=$TMP/secret.map
mk_secret() {
	printf '%s 7 secret_name\n' "$ADDR" >"$SECRET"
	touch -a -d 2000-01-01 "$SECRET"
}
secret_unread() {
	[ "$(stat -c %X "$SECRET")" -lt 1000000000 ] || fail "$1: the symlink's target was read"
}

# Control: a valid map names the code (so the cases below can fail).
good() { printf '%s 7 jit_first\n' "$ADDR" >"$MAP"; }
run_case good good
[ "$(jit_names good)" = jit_first ] || fail "control: a valid map gives '$(jit_names good)'"
ok "control: a valid map names jit_first"

shadow() { ln -s /etc/shadow "$MAP"; }
run_case shadow shadow
[ -z "$(jit_names shadow)" ] || fail "symlink to /etc/shadow: names '$(jit_names shadow)'"
ok "symlink to /etc/shadow: refused, no names"

tosecret() { mk_secret; ln -s "$(cd "$TMP" && pwd)/secret.map" "$MAP"; }
run_case symlink tosecret
[ -z "$(jit_names symlink)" ] || fail "symlink to a valid map: names '$(jit_names symlink)'"
secret_unread "symlink to a valid map"
ok "symlink to a valid map: not followed, its target not read"

fifo() { mkfifo "$MAP"; }
run_case fifo fifo
[ -z "$(jit_names fifo)" ] || fail "FIFO: names"
ok "FIFO: no hang, no names"

zero() { ln -s /dev/zero "$MAP"; }
run_case zero zero
[ -z "$(jit_names zero)" ] || fail "/dev/zero symlink: names"
ok "/dev/zero symlink: no hang, no names"

foreign() { good; chown 65534:65534 "$MAP"; }
run_case foreign foreign
[ -z "$(jit_names foreign)" ] || fail "another user's map: names '$(jit_names foreign)'"
ok "a valid map owned by another user: refused"

big() { good; truncate -s 65M "$MAP"; }
run_case big big
[ -z "$(jit_names big)" ] || fail "a map over the cap: names '$(jit_names big)'"
ok "a sparse map over the 64 MiB cap: refused"

garbage() {
	{
		head -c 3000 /dev/urandom | tr -d '\n'
		printf '\n'
		printf 'zz 10 not_hex\n%s 0 zero_size\n' "$ADDR"
		# An overlong address (100000 hex digits) and an overlong size.
		head -c 100000 /dev/zero | tr '\0' '7'
		printf ' 7 overlong_addr\n'
		printf '%s ' "$ADDR"
		head -c 100000 /dev/zero | tr '\0' 'f'
		printf ' overlong_size\n'
		printf '%s 7 jit_first\n' "$ADDR"
		printf '%s 7 bad\0nul\n' "$ADDR"
	} >"$MAP"
}
run_case garbage garbage
[ "$(jit_names garbage)" = jit_first ] || fail "garbage lines: names '$(jit_names garbage)'"
ok "garbage, NUL and overlong lines skipped, the good line used"
