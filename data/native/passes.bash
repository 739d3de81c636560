# passes.bash - sourced by the study scripts here (folio_gains.sh, write_link.sh): run the
# cases natively in interleaved passes, each pass's order rotated by one so that no case
# always follows the same one, and print a CSV row per pass and case after a header naming
# the host (CPU, family, model, guest or not, kernel, date).
# usage: native_passes CLEARSIM PASSES CPU REPEAT "name|clearsim native options" ...
native_passes() {
  local cs=$1 passes=$2 cpu=$3 repeat=$4
  shift 4
  local cases=("$@") n=$#
  echo "# host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), family $(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' '), model $(grep -m1 '^model\s' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')$(grep -qw hypervisor /proc/cpuinfo && echo ', a guest'); kernel $(uname -r); $(date -u +%FT%TZ)"
  echo "pass,case,utc,gib_per_s,ci95_gib_per_s,clock_ghz"
  local p i c name args
  for ((p = 0; p < passes; p++)); do
    for ((i = 0; i < n; i++)); do
      c=${cases[$(((i + p) % n))]}
      name=${c%%|*}
      args=${c#*|}
      # shellcheck disable=SC2086
      "$cs" native $args --repeat "$repeat" --cpu "$cpu" -q --format json | python3 -c '
import json, sys
r = json.load(sys.stdin)
nat = r["native"]
b = nat["bytes_per_sec"]
clk = nat["clock_ghz"]
print("%d,%s,%s,%.3f,%.3f,%.2f-%.2f" % (int(sys.argv[1]), sys.argv[2], nat["date_utc"], b["mean"] / 2**30,
      b["ci95"] / 2**30, clk["before"], clk["after"]))
' "$p" "$name"
    done
  done
}
