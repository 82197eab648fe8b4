# The Alpha decoders (ProfileMe, the disassembler) and AMD IBS off x86:
# cross-compiled with their self-contained driver
# (tests/helpers/profileme-cross.c) for s390x (big endian, static) and for
# alpha (the real target, dynamic: a static alpha binary crashed under
# qemu 7.2), each run under qemu-user.
# A target whose tools are missing is skipped; exit 77 when both are.  Tools (Debian):
#	apt-get install gcc-s390x-linux-gnu gcc-alpha-linux-gnu qemu-user
# Overrides: S390X_CC, QEMU_S390X, ALPHA_CC, QEMU_ALPHA, ALPHA_SYSROOT.
. tests/lib.sh

S390X_CC=${S390X_CC:-s390x-linux-gnu-gcc}
QEMU_S390X=${QEMU_S390X:-qemu-s390x}
ALPHA_CC=${ALPHA_CC:-alpha-linux-gnu-gcc}
QEMU_ALPHA=${QEMU_ALPHA:-qemu-alpha}
ALPHA_SYSROOT=${ALPHA_SYSROOT:-/usr/alpha-linux-gnu}

SRCS="tests/helpers/profileme-cross.c src/arch/alpha-profileme.c src/arch/alpha-disasm.c src/arch/amd-ibs.c src/arch/arch.c src/arch/payload.c
	lib/textfmt.c lib/strbuf.c lib/alloc.c lib/msg.c"
# The decoder includes config.h; the host's (from ./configure) is not for
# the target, so the cross build gets its own.
printf '#define _GNU_SOURCE 1\n' >"$TMP/config.h"

ran=0

# cross_run NAME CC QEMU EXPECT LDFLAGS [QEMU ARGS...]: build, run, and check
# that the driver passed and saw the expected host ("big endian", "alpha").
cross_run() {
	name=$1 cc=$2 qemu=$3 expect=$4 ldflags=$5
	shift 5
	missing=
	command -v "$cc" >/dev/null 2>&1 || missing="$missing $cc"
	command -v "$qemu" >/dev/null 2>&1 || missing="$missing $qemu"
	if [ -n "$missing" ]; then
		echo "SKIP: $name: not installed:$missing (apt-get install gcc-$name-linux-gnu qemu-user)"
		return 0
	fi
	bin=$TMP/profileme-cross-$name
	# shellcheck disable=SC2086 # word lists on purpose
	if ! "$cc" -std=gnu11 -O2 -Wall -Wextra -I"$TMP" -Ilib -Isrc/arch -Itests/unit $ldflags \
		-o "$bin" $SRCS -lm >"$TMP/$name.build" 2>&1; then
		cat "$TMP/$name.build"
		fail "$name: cross build with $cc"
	fi
	ok "$name: built with $cc${ldflags:+ $ldflags}"
	"$qemu" "$@" "$bin" >"$TMP/$name.out" 2>&1
	st=$?
	sed 's/^/    /' "$TMP/$name.out"
	[ $st -eq 0 ] || fail "$name: driver under $qemu exited with $st"
	grep -q "^# host: .*$expect" "$TMP/$name.out" ||
		fail "$name: driver did not run as $expect: $(head -1 "$TMP/$name.out")"
	ok "$name: decoder passes under $qemu ($(grep '^# .* passed' "$TMP/$name.out" | sed 's/^# //'))"
	ran=$((ran + 1))
}

cross_run s390x "$S390X_CC" "$QEMU_S390X" "big endian" "-static"

# IBS: every sample of generated little-endian recordings
# (tests/helpers/ibs_gen.py: random blocks, bad ones, each bit alone and
# all bits, caps words claiming registers past the end), decoded by the
# driver built for s390x and for this host: the same -D text, not-IBS
# verdicts and counters, byte for byte; on this host, the same -D lines as
# proftop -D on the recording mkperfdata writes from the description.
MK=${MKPERFDATA:-tests/helpers/mkperfdata}
if [ -x "$TMP/profileme-cross-s390x" ]; then
	host=$TMP/profileme-cross-host
	# shellcheck disable=SC2086 # word lists on purpose
	${CC:-cc} -std=gnu11 -O2 -Wall -Wextra -I"$TMP" -Ilib -Isrc/arch -Itests/unit -o "$host" \
		$SRCS -lm >"$TMP/host.build" 2>&1 || { cat "$TMP/host.build"; fail "host build of the driver"; }
	WL=$(cd "$(dirname "$WORKLOAD")" && pwd)/$(basename "$WORKLOAD")
	ID=$(readelf -n "$WL" 2>/dev/null | awk '/Build ID/ { print $3 }')
	n=0 blocks=0
	for spec in "op 1 AuthenticAMD,25,17,1 1 0" "op 2 AuthenticAMD,23,49,0 0 0" \
		"op 3 AuthenticAMD,25,1,1 0 0" "fetch 4 AuthenticAMD,25,17,1 1 0" \
		"fetch 5 AuthenticAMD,25,1,1 0 0" "op 6 AuthenticAMD,25,17,1 1 1" \
		"fetch 7 AuthenticAMD,23,49,0 0 1" "op 8 AuthenticAMD,25,17,1 1 bits" \
		"op 8 AuthenticAMD,25,17,1 0 bits" "op 8 AuthenticAMD,23,49,0 0 bits" \
		"fetch 8 AuthenticAMD,25,17,1 1 bits" "fetch 8 AuthenticAMD,25,17,1 0 bits" \
		"op 9 AuthenticAMD,25,17,1 1 long" "fetch 10 AuthenticAMD,23,49,0 0 long"; do
		n=$((n + 1))
		f=$TMP/ibs$n
		# shellcheck disable=SC2086 # the spec's words
		python3 tests/helpers/ibs_gen.py $spec "$f.truth" 0x555555555000 0x555555556000 \
			0x555555557000 "$WL" "${ID:-00}" >"$f.txt" || fail "ibs_gen.py $spec"
		"$host" ibs "$f.txt" >"$f.host" || fail "host driver: $spec"
		"$QEMU_S390X" "$TMP/profileme-cross-s390x" ibs "$f.txt" >"$f.s390x" ||
			fail "s390x driver: $spec"
		cmp -s "$f.host" "$f.s390x" || {
			diff "$f.host" "$f.s390x" | head -10 | sed 's/^/# /'
			fail "IBS $spec: s390x decodes differently from this host"
		}
		blocks=$((blocks + $(grep -c ' raw=' "$f.txt")))
		[ "$(grep -c ' raw=' "$f.txt")" -eq "$(grep -c '^ibs_op_ctl:\|^ibs_fetch_ctl:\|: not IBS$' "$f.host")" ] ||
			fail "IBS $spec: a sample is neither decoded nor refused"
		if [ -x "$MK" ] && [ -x "$PROFTOP" ]; then
			"$MK" -o "$f.data" "$f.txt" || fail "mkperfdata $spec"
			"$PROFTOP" -i "$f.data" -D 2>/dev/null | grep -E '^(ibs_|Ibs|ic_ibs_)' >"$f.pt"
			grep -E '^(ibs_|Ibs|ic_ibs_)' "$f.host" | cmp -s - "$f.pt" ||
				fail "IBS $spec: the driver's -D lines are not proftop -D's"
		fi
	done
	ok "s390x: $blocks IBS samples of $n generated little-endian recordings decode as on this host (-D text, not-IBS, JSON counters)"
fi
if [ -d "$ALPHA_SYSROOT" ] || ! command -v "$ALPHA_CC" >/dev/null 2>&1; then
	cross_run alpha "$ALPHA_CC" "$QEMU_ALPHA" "(alpha)" "" -L "$ALPHA_SYSROOT"
else
	echo "SKIP: alpha: no target libraries in $ALPHA_SYSROOT (set ALPHA_SYSROOT)"
fi

[ $ran -gt 0 ] || skip "no cross compiler and qemu-user for s390x or alpha (apt-get install gcc-s390x-linux-gnu gcc-alpha-linux-gnu qemu-user)"
