# Usage errors: one clear line on stderr and exit status 2 (no sampling needed).
. tests/lib.sh

expect_usage_error() {
	what=$1
	shift
	"$PROFTOP" "$@" >"$TMP/out" 2>"$TMP/err"
	st=$?
	[ $st -eq 2 ] || fail "$what: exit status $st, expected 2 ($(cat "$TMP/err"))"
	[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "$what: expected one line on stderr, got: $(cat "$TMP/err")"
	ok "$what: $(cat "$TMP/err")"
}

expect_usage_error "unknown option" --frobnicate
expect_usage_error "bad CPU list" -C 3-1
expect_usage_error "bad CPU list syntax" -C 0,,1
expect_usage_error "offline CPU" -C 4095 --batch -n 1
expect_usage_error "bad event" -e no-such-event --batch -n 1
expect_usage_error "bad raw event" -e rXYZ --batch -n 1
expect_usage_error "unknown pid" -p 999999999 --batch -n 1
expect_usage_error "pid list syntax" -p 12,abc
expect_usage_error "bad sort key" -s dso,bogus
expect_usage_error "duplicate sort key" -s sym,sym
expect_usage_error "bad frequency" -F 0
expect_usage_error "-F with -c" -F 100 -c 1000
expect_usage_error "bad delay" -d 0
expect_usage_error "two targets" -p 1 -t 1
expect_usage_error "missing argument" -e
expect_usage_error "-m not a power of 2" -m 3

# The unknown pid must be named.
"$PROFTOP" -p 999999999 --batch -n 1 2>"$TMP/err"
grep -q 999999999 "$TMP/err" || fail "unknown pid not named: $(cat "$TMP/err")"
ok "unknown pid is named"

"$PROFTOP" --help >"$TMP/help" || fail "--help exit status"
grep -q -- "--percent-limit" "$TMP/help" || fail "--help lacks --percent-limit"
ok "--help"
"$PROFTOP" --version | grep -q '^proftop [0-9]' || fail "--version"
ok "--version"
