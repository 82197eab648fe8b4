# The layers' walls (README, "Hacking"): each #include "X" in a product
# folder names a header its layer may use.  The include flags of
# Makefile.in stop a folder from seeing a layer above it, but they see
# whole folders: this also holds ui/ to the snapshot's headers of src/.
#   lib/              lib/
#   symbols/          lib/, symbols/
#   src/, src/arch/   lib/, symbols/, src/, src/arch/ (src/main.c also ui/)
#   ui/               lib/, ui/, and of src/ only the snapshot: view.h and
#                     what it includes (hist.h, callchain.h, payload.h)
# config.h (configure's) is everyone's.  Prints every violation; then checks
# that a tree with planted wrong includes is caught.
. tests/lib.sh

FOLDERS="lib symbols src src/arch ui"
UI_FROM_SRC="view.h hist.h callchain.h payload.h"

# layers_allowed ROOT FILE NAME: true when FILE (ROOT-relative) may include NAME.
layers_allowed() {
	root=$1 file=$2 name=$3
	dir=${file%/*}
	case $name in
	config.h) return 0 ;;
	*/*) return 1 ;; # a path would get around the folders
	esac
	# The including file's own folder comes first, as for the compiler.
	[ -f "$root/$dir/$name" ] && return 0
	case $dir in
	lib) allowed="lib" ;;
	symbols) allowed="lib symbols" ;;
	src | src/arch) allowed="lib symbols src src/arch" ;;
	ui) allowed="lib ui" ;;
	*) return 1 ;;
	esac
	[ "$file" = src/main.c ] && allowed="$allowed ui"
	if [ "$dir" = ui ]; then
		for h in $UI_FROM_SRC; do
			[ "$name" = "$h" ] && allowed="$allowed src src/arch"
		done
	fi
	for a in $allowed; do
		[ -f "$root/$a/$name" ] && return 0
	done
	return 1
}

# layers_check ROOT: print "FILE:LINE: includes NAME" for each wrong
# include under ROOT; the count of files read goes to $TMP/files.
layers_check() {
	root=$1
	nfiles=0
	for d in $FOLDERS; do
		for f in "$root/$d"/*.c "$root/$d"/*.h "$root/$d"/*.def; do
			[ -f "$f" ] || continue
			nfiles=$((nfiles + 1))
			rel=${f#"$root"/}
			# The include lines' numbers, then their names: paired up.
			sed -n '/^[[:space:]]*#[[:space:]]*include[[:space:]]*"/=' "$f" >"$TMP/lines"
			sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" >"$TMP/names"
			paste -d ' ' "$TMP/lines" "$TMP/names" | while read -r line name; do
				layers_allowed "$root" "$rel" "$name" ||
					echo "$rel:$line: includes \"$name\", not a header its layer may use"
			done
		done
	done
	echo "$nfiles" >"$TMP/files"
}

# The tree itself.
layers_check . >"$TMP/violations"
[ "$(cat "$TMP/files")" -gt 50 ] || fail "read only $(cat "$TMP/files") product files"
if [ -s "$TMP/violations" ]; then
	cat "$TMP/violations"
	fail "$(wc -l <"$TMP/violations") wrong includes (README, \"Hacking\")"
fi
ok "every include of $(cat "$TMP/files") product files respects its layer"

# A copy with one wrong include per kind of wall must be caught, each one,
# and nothing else.
mkdir -p "$TMP/tree"
for d in $FOLDERS; do
	mkdir -p "$TMP/tree/$d"
	cp "$d"/*.c "$d"/*.h "$TMP/tree/$d/"
	cp "$d"/*.def "$TMP/tree/$d/" 2>/dev/null
done
printf '#include "elfsyms.h"\n' >>"$TMP/tree/lib/msg.c"
printf '#include "machine.h"\n' >>"$TMP/tree/symbols/symtab.c"
printf '#include "output.h"\n' >>"$TMP/tree/src/hist.c"
printf '#include "engine.h"\n' >>"$TMP/tree/ui/tui.c"
printf '#include "options.h"\n' >>"$TMP/tree/ui/tui.h"
printf '#include "../src/engine.h"\n' >>"$TMP/tree/ui/column.c"
# Allowed, and must stay so: the snapshot's headers in ui/, ui/ from
# src/main.c, src/arch/ from src/.
printf '#include "payload.h"\n#include "hist.h"\n' >>"$TMP/tree/ui/layout.c"
printf '#include "browser.h"\n' >>"$TMP/tree/src/main.c"
printf '#include "arch.h"\n' >>"$TMP/tree/src/view.c"
layers_check "$TMP/tree" >"$TMP/planted"
cat "$TMP/planted"
for want in 'lib/msg.c:[0-9]*: includes "elfsyms.h"' 'symbols/symtab.c:[0-9]*: includes "machine.h"' \
	'src/hist.c:[0-9]*: includes "output.h"' 'ui/tui.c:[0-9]*: includes "engine.h"' \
	'ui/tui.h:[0-9]*: includes "options.h"' 'ui/column.c:[0-9]*: includes "../src/engine.h"'; do
	grep -q "^$want" "$TMP/planted" || fail "a planted wrong include is not caught: $want"
done
[ "$(wc -l <"$TMP/planted")" -eq 6 ] || fail "allowed includes reported as wrong"
ok "planted wrong includes are each caught (lib, symbols, src, ui, a path), allowed ones not"
rm -rf "$TMP"
