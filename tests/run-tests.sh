#!/bin/sh
# Runs the unit-test binaries given as arguments, then every integration
# script in tests/integration/.  Exit status 77 from a script means SKIP.
# Prints one line per test program and a summary; fails if anything failed.
pass=0 fail=0 skip=0 failed=
# secs: seconds since the mark (each line says how long its test took)
mark() { t0=$(date +%s.%N); }
secs() { awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1fs", b - a }'; }
for t in "$@"; do
	mark
	if "./$t" >"$t.log" 2>&1; then
		pass=$((pass + 1))
		printf 'PASS  %s  (%s) %s\n' "$t" "$(grep -E '^[0-9]+%: Checks' "$t.log" | tail -1)" "$(secs)"
	else
		fail=$((fail + 1)) failed="$failed $t"
		printf 'FAIL  %s\n' "$t"
		cat "$t.log"
	fi
done
for s in tests/integration/*.sh; do
	[ -f "$s" ] || continue
	# SKIP_TESTS="replay-perf ...": integration tests not run this time
	# (CI's sanitizer pass leaves out the slow comparisons with perf).
	case " ${SKIP_TESTS:-} " in
	*" $(basename "$s" .sh) "*)
		skip=$((skip + 1))
		printf 'SKIP  %s: in SKIP_TESTS\n' "$s"
		continue ;;
	esac
	log=tests/tmp/$(basename "$s" .sh).log
	mkdir -p tests/tmp
	mark
	sh "$s" >"$log" 2>&1
	st=$?
	if [ $st -eq 0 ]; then
		pass=$((pass + 1))
		printf 'PASS  %s  (%s checks) %s\n' "$s" "$(grep -c '^ok ' "$log")" "$(secs)"
		grep '^SKIP' "$log" | sed 's/^/      /'
	elif [ $st -eq 77 ]; then
		skip=$((skip + 1))
		printf 'SKIP  %s: %s\n' "$s" "$(grep '^SKIP' "$log" | head -1)"
	else
		fail=$((fail + 1)) failed="$failed $s"
		printf 'FAIL  %s\n' "$s"
		cat "$log"
	fi
done
printf '\n%d passed, %d failed, %d skipped\n' "$pass" "$fail" "$skip"
[ $fail -eq 0 ] || { printf 'failed:%s\n' "$failed"; exit 1; }
