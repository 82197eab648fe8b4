# Address -> function lookups on libc's debug file (else libc): proftop's
# sorted table (symtab_lookup) against libdwfl (dwfl_module_addrname): load
# time up to the first answer, and lookups/s over 1M random text addresses
# (libdwfl over the first 20K of them: it scans), best of 3
# (bench/symlookup.c).  Ratios: load proftop/dwfl (lower is better for
# proftop), lookups proftop/dwfl (higher is better for proftop).
[ -x bench/symlookup ] || { echo "SKIP: bench/symlookup not built (make bench/symlookup)"; exit 77; }
out=$(bench/symlookup -n "${SYMLOOKUP_N:-1000000}" -r 3) || exit 1
echo "$out" | sed 's/^/# /'
echo "$out" | tr -d ',' | awk '
/^load:/ { printf "symlookup-load: proftop %s ms, dwfl %s ms, ratio %s\n", $3, $6, $9 }
/^lookups\/s:/ { printf "symlookup-lookups: proftop %s/s, dwfl %s/s, ratio %s\n", $3, $5, $7 }'
