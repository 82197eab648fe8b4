#!/bin/sh
# Runs one test for run-tests.sh: a unit-test binary (tests/unit/check_NAME) or an
# integration script (tests/integration/NAME.sh).  Its output goes to LOG,
# its exit status to LOG.status and its seconds to LOG.secs.
t=$1
case $t in
*.sh) log=tests/tmp/$(basename "$t" .sh).log ;;
*) log=$t.log ;;
esac
mkdir -p tests/tmp
t0=$(date +%s.%N)
case $t in
*.sh) sh "$t" >"$log" 2>&1 ;;
*) "./$t" >"$log" 2>&1 ;;
esac
echo $? >"$log.status"
awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1fs\n", b - a }' >"$log.secs"
