#!/bin/bash
# Count user-page clears per clear size on anonymous page faults, per workload and THP setting.
#
# usage:  bash measure.sh [CONFIG...]        (default CONFIGS: madvise always)
#   CONFIG is one of
#     madvise      top-level THP enabled=madvise, per-size mTHP knobs as found
#     always       top-level THP enabled=always,  per-size mTHP knobs as found
#     always-mthp  (supplementary) enabled=always and every mTHP size (16K..1M) set to 'inherit'
#   env: REPS (default 2), WORKLOADS (default "cbuild python sort xz")
#
# Method: perf stat (counting only, inherited by the workload's whole process tree) on the
# kmem:mm_page_alloc tracepoint with one in-kernel filter per folio order:
#   order 0   : gfp has __GFP_ZERO(0x100) + __GFP_HARDWALL(0x100000) + __GFP_HIGHMEM(0x2), page != NULL
#               = vma_alloc_zeroed_movable_folio() (GFP_HIGHUSER_MOVABLE|__GFP_ZERO): the 4 KiB
#               anon fault / zero-page-CoW allocation that the page allocator clears.
#   order 1..9: gfp has __GFP_NOMEMALLOC(0x80000) + __GFP_COMP(0x40000) + __GFP_MOVABLE(0x8) +
#               __GFP_HARDWALL, page != NULL = vma_thp_gfp_mask() allocations (anon mTHP/PMD THP
#               fault), each followed by folio_zero_user().
# plus system-wide deltas of /proc/vmstat thp_* and hugepages-*/stats/anon_fault_* as a cross-check.
# Results: raw/<config>/<workload>.r<N>.{perf,delta,info}; then analyze.py builds the tables/CSVs.
set -euo pipefail
# OUT: where raw/ and the scratch data go (default: a directory under /tmp); analyze.py
# reads OUT/raw. SRC: the repository the C build workload clones (default: this one).
OUT=${OUT:-/tmp/clearsim-fault-sizes}
SRC=${SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)}
THP=/sys/kernel/mm/transparent_hugepage
REPS=${REPS:-2}
WORKLOADS=${WORKLOADS:-"cbuild python sort xz"}
CONFIGS=("$@"); [ ${#CONFIGS[@]} -gt 0 ] || CONFIGS=(madvise always)
mkdir -p "$OUT/raw" "$OUT/data"

# ---- tracefs (perf needs it for tracepoint events) ----
[ -e /sys/kernel/tracing/events/kmem/mm_page_alloc ] || mount -t tracefs nodev /sys/kernel/tracing

# ---- save and always restore every THP knob this script may touch ----
SAVED="$OUT/raw/thp-settings.saved.$$"
save_settings() {
  : > "$SAVED"
  for f in "$THP/enabled" "$THP/defrag" "$THP"/hugepages-*/enabled; do
    [ -e "$f" ] || continue
    printf '%s %s\n' "$f" "$(sed -E 's/.*\[([a-z+]+)\].*/\1/' "$f")" >> "$SAVED"
  done
}
restore_settings() {
  [ -s "$SAVED" ] || return 0
  # per-size knobs first, then the top-level ones
  grep -- '/hugepages-' "$SAVED" | while read -r f v; do echo "$v" > "$f"; done
  grep -v -- '/hugepages-' "$SAVED" | while read -r f v; do echo "$v" > "$f"; done
  echo "restored THP settings:"; cat "$SAVED"
  rm -f "$SAVED"
}
save_settings
cp "$SAVED" "$OUT/raw/thp-settings.orig"
trap restore_settings EXIT INT TERM

set_config() {   # $1 = config name
  restore_from_saved() { grep -- '/hugepages-' "$SAVED" | while read -r f v; do echo "$v" > "$f"; done; }
  restore_from_saved
  case "$1" in
    madvise) echo madvise > "$THP/enabled" ;;
    always)  echo always  > "$THP/enabled" ;;
    always-mthp)
      echo always > "$THP/enabled"
      for f in "$THP"/hugepages-*/enabled; do
        case "$f" in *hugepages-2048kB*) ;; *) echo inherit > "$f" ;; esac
      done ;;
    *) echo "unknown config $1" >&2; exit 2 ;;
  esac
}
show_settings() {
  echo "enabled: $(cat $THP/enabled)"; echo "defrag: $(cat $THP/defrag)"
  for f in "$THP"/hugepages-*/enabled; do [ -e "$f" ] && echo "$(basename "$(dirname "$f")"): $(cat "$f")"; done
  return 0
}

# ---- counters ----
snap() {   # key value lines, system-wide
  local s d k
  grep -E '^(thp_|pgfault|pgmajfault|pgalloc_normal|pgalloc_movable)' /proc/vmstat
  for d in "$THP"/hugepages-*/stats; do
    s=$(basename "$(dirname "$d")")
    for k in anon_fault_alloc anon_fault_fallback anon_fault_fallback_charge; do
      [ -e "$d/$k" ] && echo "$s/$k $(cat "$d/$k")"
    done
  done
  return 0
}
delta() { awk 'NR==FNR{a[$1]=$2;next}{print $1, $2-a[$1]}' "$1" "$2"; }

HUSER='gfp_flags & 0x100000 && gfp_flags & 0x2 && pfn != 0xffffffffffffffff'
PERF_EV=(-e kmem:mm_page_alloc --filter "order == 0 && gfp_flags & 0x100 && $HUSER")
for o in 1 2 3 4 5 6 7 8 9; do
  PERF_EV+=(-e kmem:mm_page_alloc --filter "order == $o && gfp_flags & 0x80000 && gfp_flags & 0x40000 && gfp_flags & 0x8 && $HUSER")
done
PERF_EV+=(-e page-faults -e minor-faults -e major-faults)

# ---- workloads: setup (not measured) and the measured command ----
setup() {
  case "$1" in
    cbuild) rm -rf "$OUT/src" "$OUT/build"; git clone -q "$SRC" "$OUT/src" ;;
    sort)   [ -s "$OUT/data/sort.in" ] || python3 -c "
import random,sys
r=random.Random(42); w=sys.stdout.write
for i in range(15_000_000): w('%016x %d\n'%(r.getrandbits(64), i))
" > "$OUT/data/sort.in" ;;
    xz)     [ -s "$OUT/data/xz.in" ] || { tar cf - -C /usr lib/x86_64-linux-gnu 2>/dev/null | head -c 80M > "$OUT/data/xz.in"; } ;;
    python) ;;
  esac
  sync; echo 1 > /proc/sys/vm/compact_memory 2>/dev/null || true   # same starting fragmentation state
}
cmd_of() {
  case "$1" in
    cbuild) echo "cmake -S $OUT/src -B $OUT/build -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build $OUT/build -j2 >/dev/null" ;;
    python) echo "python3 $OUT/tools/bigdict.py 5000000 >/dev/null" ;;
    sort)   echo "LC_ALL=C sort --parallel=2 -o /dev/null $OUT/data/sort.in" ;;
    xz)     echo "xz -T2 -6 -c $OUT/data/xz.in >/dev/null" ;;
  esac
}

for cfg in "${CONFIGS[@]}"; do
  set_config "$cfg"
  mkdir -p "$OUT/raw/$cfg"
  show_settings > "$OUT/raw/$cfg/settings.txt"
  for rep in $(seq 1 "$REPS"); do
    for w in $WORKLOADS; do
      base="$OUT/raw/$cfg/$w.r$rep"
      setup "$w"
      wcmd=$(cmd_of "$w")
      snap > "$base.before"
      t0=$(date +%s.%N)
      perf stat -x, -o "$base.perf" "${PERF_EV[@]}" -- sh -c "$wcmd"
      t1=$(date +%s.%N)
      snap > "$base.after"
      delta "$base.before" "$base.after" > "$base.delta"
      { echo "config=$cfg workload=$w rep=$rep"; echo "cmd=$wcmd"; echo "wall_s=$(awk "BEGIN{printf \"%.1f\", $t1 - $t0}")"; } > "$base.info"
      echo "[$cfg] $w rep $rep: $(grep wall_s "$base.info")"
    done
  done
done
[ "$(basename "$0")" = measure.sh ] && python3 "$OUT/analyze.py" || true
