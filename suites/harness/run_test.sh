#!/usr/bin/env bash
# Runs one multi-rank test under one endpoint layout; CTest calls it once per
# (test, layout) through ep_add_mpi_test.
#
#   run_test.sh --launcher scripts/mpirun.sh --layout 1,3,2 --out DIR --timeout 60 \
#               --ep test_ep [--mpi test_mpi | --reference REFDIR] [--mode diff|check|ep] \
#               [--expect-fatal REGEX ...] [-- test arguments]
#   run_test.sh --launcher scripts/mpirun.sh --mode reference --ranks 6 --out REFDIR \
#               --timeout 60 --mpi test_mpi [-- test arguments]
#
# The endpoint program runs with one MPI process per layout entry. In mode
# `diff` (the default) the plain-MPI program then runs with one process per
# endpoint, and the per-rank outputs of both, concatenated in rank order, must
# be identical. In mode `check` both must pass but their outputs may differ
# (e.g. the tag upper bound); in mode `ep` only the endpoint program runs.
# With --expect-fatal the endpoint program must instead die, and its output
# must match every REGEX (the default error handler's message).
#
# The plain-MPI run depends only on the program, its arguments and the number
# of ranks, not on the layout, so layouts with as many endpoints in all can
# share one: mode `reference` runs it alone into REFDIR (it must pass, and
# then leaves REFDIR/mpi.txt and REFDIR/passed), and a test given
# --reference REFDIR compares with that run instead of launching its own
# (ep_add_mpi_test makes the reference a CTest fixture of the tests using it).
# Every launch is bounded by --timeout seconds; its whole process group is
# killed when that runs out, so no rank is left spinning on the machine.
set -uo pipefail

launcher="" layout="" out="" timeout_s=120 ep_exe="" mpi_exe="" mode=diff reference="" ranks=""
fatal_patterns=() test_args=()
while (($#)); do
  case $1 in
    --launcher) launcher=$2; shift 2 ;;
    --layout) layout=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --ep) ep_exe=$2; shift 2 ;;
    --mpi) mpi_exe=$2; shift 2 ;;
    --mode) mode=$2; shift 2 ;;
    --reference) reference=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    --expect-fatal) fatal_patterns+=("$2"); shift 2 ;;
    --) shift; test_args=("$@"); break ;;
    *) echo "run_test.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
required=(launcher out)
case $mode in
  reference) required+=(mpi_exe ranks) ;;
  diff | check | ep) required+=(layout ep_exe) ;;
  *) echo "run_test.sh: unknown mode '$mode' (diff, check, ep, reference)" >&2; exit 2 ;;
esac
for name in "${required[@]}"; do
  [ -n "${!name}" ] || { echo "run_test.sh: --${name%_exe} is required" >&2; exit 2; }
done
if [[ $mode == diff || $mode == check ]] && [ -z "$mpi_exe$reference" ]; then
  echo "run_test.sh: mode $mode needs --mpi or --reference" >&2; exit 2
fi

if [ "$mode" != reference ]; then
  IFS=, read -ra counts <<<"$layout"
  processes=${#counts[@]}
  ranks=0
  for c in "${counts[@]}"; do ranks=$((ranks + c)); done
fi

# launch NAME NP PROGRAM ARGS...: runs under the launcher with a time limit,
# output kept in $out/NAME.log and shown (CTest prints it on failure).
launch() {
  local name=$1 np=$2
  shift 2
  rm -rf "${out:?}/$name" && mkdir -p "$out/$name"
  echo "== $name: -np $np $*"
  local start=$SECONDS
  # timeout puts the launcher in its own process group and signals the whole
  # group, which includes the ranks the launcher forked.
  timeout -k 10 "$timeout_s" "$launcher" -np "$np" "$@" --out "$out/$name" "${test_args[@]}" \
    >"$out/$name.log" 2>&1
  local rc=$?
  cat "$out/$name.log"
  if ((rc == 124 || rc == 137)); then
    echo "== $name: TIMEOUT after ${timeout_s}s"
  else
    echo "== $name: exit $rc after $((SECONDS - start))s"
  fi
  return $rc
}

# Concatenates the per-rank files of run NAME in rank order into $out/NAME.txt.
collect() {
  local name=$1 r missing=0
  : >"$out/$name.txt"
  for ((r = 0; r < ranks; r++)); do
    if [ -f "$out/$name/rank-$r.txt" ]; then
      cat "$out/$name/rank-$r.txt" >>"$out/$name.txt"
    else
      echo "== $name: no output from rank $r"
      missing=1
    fi
  done
  return $missing
}

mkdir -p "$out"
verdict=0

if [ "$mode" = reference ]; then
  rm -f "$out/passed"
  launch mpi "$ranks" "$mpi_exe" || verdict=1
  collect mpi || verdict=1
  if ((verdict == 0)); then
    touch "$out/passed"
    echo "PASS: the plain-MPI reference on $ranks processes"
  else
    echo "FAIL"
  fi
  exit $verdict
fi

if ((${#fatal_patterns[@]})); then
  launch ep "$processes" "$ep_exe" --layout "$layout"
  rc=$?
  if ((rc == 0 || rc == 124 || rc == 137)); then
    echo "FAIL: expected the default error handler to end the program (exit $rc)"
    exit 1
  fi
  for pattern in "${fatal_patterns[@]}"; do
    if ! grep -Eq -- "$pattern" "$out/ep.log"; then
      echo "FAIL: the fatal error message does not match /$pattern/"
      verdict=1
    fi
  done
  ((verdict == 0)) && echo "PASS: fatal, with the expected message"
  exit $verdict
fi

launch ep "$processes" "$ep_exe" --layout "$layout" || verdict=1
expected=$out/mpi.txt
if [ "$mode" != ep ]; then
  if [ -n "$reference" ]; then
    expected=$reference/mpi.txt
    if [ -f "$reference/passed" ]; then
      echo "== mpi: the reference run in $reference"
    else
      echo "== mpi: the reference run in $reference did not pass (or did not run)"
      verdict=1
    fi
  else
    launch mpi "$ranks" "$mpi_exe" || verdict=1
  fi
fi

if [ "$mode" = diff ]; then
  collect ep || verdict=1
  if [ -z "$reference" ]; then
    collect mpi || verdict=1
  fi
  if ! diff -u --label "plain MPI, $ranks processes" --label "endpoints, layout $layout" \
    "$expected" "$out/ep.txt" >"$out/diff.txt"; then
    echo "== outputs differ (first 60 lines of the diff):"
    head -n 60 "$out/diff.txt"
    verdict=1
  else
    echo "== outputs identical ($(wc -l <"$out/ep.txt") lines)"
  fi
fi

if ((verdict == 0)); then echo "PASS"; else echo "FAIL"; fi
exit $verdict
