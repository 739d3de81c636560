#!/usr/bin/env bash
# `clearsim detect` prints a machine file that loads: detected values are
# commented "# detected:", copied ones "# not measured: from <machine>", and
# `run --machine` accepts the file as it is.
source "$(dirname "$0")/common.bash"

cs detect
[[ $RC -eq 0 ]] || fail "detect: exit $RC"
cp "$OUT" "$TMPD/myhost.yaml"
grep -q '^name: myhost ' "$OUT" || fail "detect: default name is not myhost"
for key in '  vendor:' '  family:' '  model:' '  model_name:' '^isa:' '^features:'; do
    grep -E "^${key#^}" "$OUT" | grep -q '# detected: ' || fail "detect: '$key' is not marked detected"
done
grep -q '# not measured: from ' "$OUT" || fail "detect: no value is marked 'not measured'"
# the L1's size names where it was read: sysfs, else (x86-64) CPUID's cache
# leaf; a guest that shows neither (a Firecracker Zen 5 guest has no sysfs
# cache directory and hides leaf 0x8000001d) takes it from the base file
if [[ -d /sys/devices/system/cpu/cpu0/cache/index0 ]]; then
    grep -A3 '^l1:' "$OUT" | grep -q 'size: .*# detected: /sys/devices/system/cpu/cpu0/cache/index' ||
        fail "detect: l1.size does not name its sysfs source"
elif grep -A3 '^l1:' "$OUT" | grep -q 'size: .*# detected: CPUID '; then
    :
else
    grep -A3 '^l1:' "$OUT" | grep -q 'size: .*# not measured: from ' ||
        fail "detect: l1.size neither detected nor taken from the base file"
    echo "note: this host shows its caches neither in sysfs nor in CPUID's cache leaf;" \
        "l1.size comes from the base file"
fi

cs run --machine "$TMPD/myhost.yaml" -s 1MB -q
[[ $RC -eq 0 ]] || fail "run --machine <detected file>: exit $RC"
grep -q "machine 'myhost'" "$OUT" || fail "run on the detected file: wrong machine name"

# --output FILE: the name follows the file's base name
cs detect -o "$TMPD/box-1.yaml"
[[ $RC -eq 0 && ! -s "$OUT" ]] || fail "detect -o: exit $RC or printed on stdout"
cs run --machine "$TMPD/box-1.yaml" -s 64KB --format json -q
[[ $RC -eq 0 ]] || fail "run on detect -o file: exit $RC"
grep -q '"machine": "box-1"' "$OUT" || fail "detect -o: name is not the base name"

# --base: timings from a chosen machine of the same ISA
case $(uname -m) in
x86_64) base=zen3-epyc-7j13 ;;
aarch64) base=graviton3 ;;
*) base= ;;
esac
if [[ -n $base ]]; then
    cs detect --base "$base" --name based
    [[ $RC -eq 0 ]] || fail "detect --base $base: exit $RC"
    grep -q "# not measured: from $base" "$OUT" || fail "detect --base: not copied from $base"
fi

expect_error 2 "--name" detect --name 'bad name'
expect_error 2 "unrecognized option" detect --bogus
echo "PASS"
