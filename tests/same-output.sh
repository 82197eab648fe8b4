#!/bin/sh
# Two builds of proftop give the same bytes on the same recordings: for a
# change that must not change behaviour (a refactor), run the build from
# before and the build from after over every recording the tests made, in
# every output mode, and compare.
#
#   sh tests/same-output.sh --collect DIR
#       copy every recording under tests/tmp/ (left there by make check)
#       into DIR, one file each (perf.data files are found by their magic)
#   sh tests/same-output.sh OLD NEW DIR
#       replay each recording in DIR with both binaries: --batch, --json,
#       --json -g with more sort keys, --folded, -D, --inline, and the
#       browser in a 200x60 tmux pane (when tmux is here).  OLD runs twice:
#       a mode whose two OLD runs differ is reported "unstable" (the
#       program is not deterministic there) and not compared.
#
# Prints one line per recording and mode that differs, and a summary;
# exits 1 if any output differs.  Keeps the outputs in a new directory
# (mktemp: several runs at once do not mix), named in the summary.
set -u

if [ "${1:-}" = --collect ]; then
	dir=${2:?usage: same-output.sh --collect DIR}
	mkdir -p "$dir"
	n=0
	find tests/tmp -type f -size +100c 2>/dev/null | sort | while read -r f; do
		head -c 8 "$f" 2>/dev/null | grep -q 'PERFILE2\|2ELIFREP' || continue
		n=$((n + 1))
		name=$(echo "$f" | sed 's#^tests/tmp/##; s#[^A-Za-z0-9.]#_#g; s#\.[0-9][0-9]*_#_#')
		cp "$f" "$dir/$name"
	done
	echo "$(ls "$dir" | wc -l) recordings in $dir"
	exit 0
fi

old=${1:?usage: same-output.sh OLD NEW DIR}
new=${2:?usage: same-output.sh OLD NEW DIR}
dir=${3:?usage: same-output.sh OLD NEW DIR}
out=$(mktemp -d "${TMPDIR:-/tmp}/same-output.XXXXXX") || exit 1

MODES="batch json json-g folded dump inline"
command -v tmux >/dev/null 2>&1 && MODES="$MODES tui"

# run BIN MODE FILE OUT: one replay, stdout and stderr in OUT.
run() {
	case $2 in
	batch) timeout 120 "$1" -i "$3" --batch >"$4" 2>&1 ;;
	json) timeout 120 "$1" -i "$3" --json >"$4" 2>&1 ;;
	json-g) timeout 120 "$1" -i "$3" --json -g -s comm,pid,dso,sym --accumulate >"$4" 2>&1 ;;
	folded) timeout 120 "$1" -i "$3" --folded >"$4" 2>&1 ;;
	dump) timeout 120 "$1" -i "$3" -D >"$4" 2>&1 ;;
	inline) timeout 120 "$1" -i "$3" --batch --inline -s dso,sym,srcline >"$4" 2>&1 ;;
	tui) run_tui "$1" "$3" "$4" ;;
	esac
	echo "exit $?" >>"$4"
}

# The browser on a replay: the screen once two captures 0.5 s apart agree
# (the replay is over), at most 20 s.
TUI_N=0
run_tui() {
	TUI_N=$((TUI_N + 1))
	t="tmux -L same-output-$$-$TUI_N -f /dev/null"
	$t new-session -d -s s -x 200 -y 60 "$1 -i '$2' --tui; sleep 60"
	prev= i=0
	while [ $i -lt 40 ]; do
		sleep 0.5
		cur=$($t capture-pane -p -t s 2>/dev/null)
		[ -n "$cur" ] && [ "$cur" = "$prev" ] && break
		prev=$cur i=$((i + 1))
	done
	printf '%s\n' "$cur" >"$3"
	$t kill-server 2>/dev/null
	return 0
}

same=0 diff=0 unstable=0
for f in "$dir"/*; do
	[ -f "$f" ] || continue
	b=$(basename "$f")
	for m in $MODES; do
		run "$old" "$m" "$f" "$out/$b.$m.old1"
		run "$old" "$m" "$f" "$out/$b.$m.old2"
		run "$new" "$m" "$f" "$out/$b.$m.new"
		if ! cmp -s "$out/$b.$m.old1" "$out/$b.$m.old2"; then
			unstable=$((unstable + 1))
			echo "unstable $b $m (two runs of OLD differ)"
		elif cmp -s "$out/$b.$m.old1" "$out/$b.$m.new"; then
			same=$((same + 1))
		else
			diff=$((diff + 1))
			echo "DIFF $b $m: diff $out/$b.$m.old1 $out/$b.$m.new"
		fi
	done
done
echo "$same same, $diff differ, $unstable unstable (outputs in $out)"
[ "$diff" -eq 0 ]
