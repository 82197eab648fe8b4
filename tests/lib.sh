# Shared helpers for the integration tests (sourced; POSIX sh).
# Each check prints "ok - what" or "not ok - what"; a script exits 1 at the
# first failure, 77 to skip.
PROFTOP=${PROFTOP:-./proftop}
WORKLOAD=${WORKLOAD:-tests/helpers/workload}
TMP=tests/tmp/$(basename "$0" .sh).$$
mkdir -p "$TMP"
BG_PIDS=
T=

cleanup() {
	[ -z "$T" ] || $T kill-server 2>/dev/null
	for p in $BG_PIDS; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
}
trap cleanup EXIT INT TERM

ok() { echo "ok - $*"; }
fail() {
	echo "not ok - $*"
	exit 1
}
skip() {
	echo "SKIP: $*"
	exit 77
}

# Whether perf_event_open works for us here (a command of our own): 0 when
# it does, 1 where proftop says why it cannot sample (exit 1, no sanitizer
# report; the reason is in PERF_EVENTS_WHY).  A crash or a sanitizer's
# report is a failure, never "unavailable".
perf_events_usable() {
	out=$(timeout 30 "$PROFTOP" --json -d 0.2 -- true 2>&1)
	st=$?
	[ $st -eq 0 ] && return 0
	case $out in
	*"runtime error:"*|*Sanitizer*|*"==ERROR"*)
		fail "proftop --json -d 0.2 -- true: a sanitizer report: $(echo "$out" | head -5)" ;;
	esac
	[ $st -eq 1 ] || fail "proftop --json -d 0.2 -- true: status $st: $(echo "$out" | tail -3)"
	PERF_EVENTS_WHY=$(echo "$out" | tail -1)
	return 1
}

# Skip unless perf_event_open works for us here.
require_perf_events() {
	perf_events_usable || skip "perf_event_open unavailable: $PERF_EVENTS_WHY"
}

# Start the workload in the background for SECS (0 = until killed); sets WL_PID.
start_workload() {
	"$WORKLOAD" "$1" >"$TMP/wl.out" &
	WL_PID=$!
	BG_PIDS="$BG_PIDS $WL_PID"
	i=0
	while ! grep -q ready "$TMP/wl.out" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 500 ] || fail "workload did not start"
		sleep 0.01
	done
}

# check_shares FILE [PID]: the last JSON snapshot in FILE must rank the
# workload's leaves a > b > lib > c with shares within 5 points of 50, 25,
# 16.7 and 8.3 (of the four leaves' total, which must be >= 80% of the
# workload's samples).
check_shares() {
	python3 - "$@" <<'PY' || exit 1
import json, sys
lines = [l for l in open(sys.argv[1]) if l.strip()]
if not lines:
    print("not ok - no JSON output"); sys.exit(1)
snaps = [json.loads(l) for l in lines]
snap = snaps[-1]
want = {"leaf_a": 50.0, "leaf_b": 25.0, "lib_leaf": 100 * 2 / 12, "leaf_c": 100 / 12}
dso = {"leaf_a": "workload", "leaf_b": "workload", "leaf_c": "workload", "lib_leaf": "libworkload.so"}
got = {}
for r in snap["rows"]:
    s = r.get("symbol")
    if s in want:
        if r.get("dso") != dso[s]:
            print("not ok - %s in dso %r, expected %r" % (s, r.get("dso"), dso[s])); sys.exit(1)
        got[s] = got.get(s, 0) + r["self"]
missing = [s for s in want if s not in got]
if missing:
    print("not ok - missing %s in %s" % (missing, [r.get("symbol") for r in snap["rows"][:10]])); sys.exit(1)
total = sum(got.values())
order = sorted(got, key=lambda s: -got[s])
print("# shares (of the leaves): " + ", ".join("%s %.1f%% (want %.1f)" % (s, 100 * got[s] / total, want[s]) for s in order))
print("# leaves are %.1f%% of all samples in the last snapshot (%d samples)" % (total, snap["samples"]))
if order != ["leaf_a", "leaf_b", "lib_leaf", "leaf_c"]:
    print("not ok - order %s" % order); sys.exit(1)
for s in want:
    share = 100 * got[s] / total
    if abs(share - want[s]) > 5:
        print("not ok - %s share %.1f, expected %.1f +- 5" % (s, share, want[s])); sys.exit(1)
if total < 80:
    print("not ok - leaves only %.1f%% of the samples" % total); sys.exit(1)
print("ok - leaf order and shares")
PY
}

# json_check FILE PYTHON-EXPR: evaluate EXPR with `snaps` (list of objects).
json_check() {
	python3 - "$1" "$2" <<'PY'
import json, sys
snaps = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
ok = eval(sys.argv[2])
sys.exit(0 if ok else 1)
PY
}

# ---- evidence of a hang: hang_evidence PID FILE (tests/evidence.sh) ----
. tests/evidence.sh

# show_evidence FILE...: print them as comments (the test's log keeps them).
show_evidence() {
	for f; do
		[ -s "$f" ] || continue
		echo "# $f:"
		sed 's/^/# | /' "$f"
	done
}

# run_bounded SECS NAME CMD...: run CMD; past SECS seconds (wall clock),
# write the stacks of its threads to $TMP/NAME.hang, end it (TERM, then
# KILL) and return 124, like timeout(1).  Otherwise CMD's status.
run_bounded() {
	rb_limit=$1 rb_name=$2
	shift 2
	"$@" &
	rb_pid=$!
	rb_t0=$(date +%s)
	while kill -0 "$rb_pid" 2>/dev/null; do
		if [ $(($(date +%s) - rb_t0)) -ge "$rb_limit" ]; then
			hang_evidence "$rb_pid" "$TMP/$rb_name.hang"
			kill "$rb_pid" 2>/dev/null
			sleep 2
			kill -9 "$rb_pid" 2>/dev/null
			wait "$rb_pid" 2>/dev/null
			return 124
		fi
		sleep 0.1
	done
	wait "$rb_pid"
}

# ---- the browser in tmux ----
# tmux_start SESSION COLS ROWS [DIR]: a shell (prompt "$ ") in a new
# COLSxROWS pane of a private tmux server, in DIR; screen, keys, wait_for
# and wait_gone then act on that pane, and cleanup ends the server.
tmux_start() {
	TMUX_SESSION=$1
	T="tmux -L proftop-$(basename "$0" .sh)-$$ -f /dev/null"
	if [ -n "$4" ]; then
		$T new-session -d -s "$1" -x "$2" -y "$3" -c "$4" "env PS1='$ ' sh"
	else
		$T new-session -d -s "$1" -x "$2" -y "$3" "env PS1='$ ' sh"
	fi
}

screen() { $T capture-pane -p -t "$TMUX_SESSION"; }
keys() { $T send-keys -t "$TMUX_SESSION" "$@"; }

# pane_evidence WHAT: the pane, and the stacks of every proftop running
# under it, as comments; kept in $TMP/pane.txt and $TMP/pane-PID.hang.
pane_evidence() {
	screen >"$TMP/pane.txt" 2>&1
	echo "# screen ($1):"
	sed 's/^/# | /' "$TMP/pane.txt"
	pe_all=$($T list-panes -t "$TMUX_SESSION" -F '#{pane_pid}' 2>/dev/null)
	pe_all="$pe_all $(descendants "$pe_all")"
	for pe_p in $pe_all; do
		[ "$(cat "/proc/$pe_p/comm" 2>/dev/null)" = proftop ] || continue
		hang_evidence "$pe_p" "$TMP/pane-$pe_p.hang"
		show_evidence "$TMP/pane-$pe_p.hang"
	done
}

# wait_for REGEX WHAT [TENTHS]: poll the pane (every 0.1 s, 150 times by
# default) until a line matches; else fail with the evidence.
wait_for() {
	wf_i=0
	while ! screen | grep -q -E -- "$1"; do
		wf_i=$((wf_i + 1))
		if [ $wf_i -ge "${3:-150}" ]; then
			pane_evidence "$2"
			fail "$2: no line matching '$1'"
		fi
		sleep 0.1
	done
}

# wait_gone REGEX WHAT [TENTHS]: poll until no line matches.
wait_gone() {
	wf_i=0
	while screen | grep -q -E -- "$1"; do
		wf_i=$((wf_i + 1))
		if [ $wf_i -ge "${3:-150}" ]; then
			pane_evidence "$2"
			fail "$2: '$1' still on screen"
		fi
		sleep 0.1
	done
}
