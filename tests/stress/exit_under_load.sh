#!/usr/bin/env bash
# Runs the short-lived stream programs many times, two at a time, each pair with a fresh kernel
# cache, so that processes exit while CPU tier-up compiles, stream workers and the simulator's
# stream threads are still busy (the rare SIGSEGV after PASS of sample-streams). Half of the
# pairs start from an empty cache, half from one a single earlier run filled (whatever it wrote
# before it exited: the quick O1 compile, perhaps the optimised one), so the exits happen at
# different points of the tier-up compiles.
# usage: exit_under_load.sh <bin dir> [pairs]
set -euo pipefail
bin=$1
pairs=${2:-30}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
run() {  # run <log> <program> <args...>: the program must print PASS and exit 0
  local log=$1
  shift
  if ! "$@" >"$log" 2>&1 || ! grep -q '^PASS$' "$log"; then
    echo "FAILED (exit or output): $*" >&2
    cat "$log" >&2
    return 1
  fi
}
for ((i = 0; i < pairs; ++i)); do
  cache="$work/cache-$i"
  mkdir -p "$cache"
  if ((i % 2 == 1)); then
    ROCJIT_CACHE_DIR="$cache" run "$work/seed-$i.log" "$bin/sample-streams" --device=cpu --size=1001 --repeat=1 ||
      failures=$((failures + 1))
  fi
  case $((i % 3)) in
    0) second=("$bin/sample-streams" --device=cpu --size=1001 --repeat=1) ;;
    1) second=("$bin/sample-saxpy" --device=cpu --size=1000 --repeat=2) ;;
    2) second=("$bin/sample-streams" --device=sim:gfx942 --size=1001 --repeat=1) ;;
  esac
  ROCJIT_CACHE_DIR="$cache" run "$work/a-$i.log" "$bin/sample-streams" --device=cpu --size=1001 --repeat=1 &
  a=$!
  ROCJIT_CACHE_DIR="$cache" run "$work/b-$i.log" "${second[@]}" &
  b=$!
  wait "$a" || failures=$((failures + 1))
  wait "$b" || failures=$((failures + 1))
done
echo "exit_under_load: $((2 * pairs)) runs, $failures failed"
((failures == 0))
