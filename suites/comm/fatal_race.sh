#!/usr/bin/env bash
# Launches fatal_race.cpp's endpoint program many times per layout: an error
# all endpoints of a process raise at once must end the job exactly as one
# MPI_Abort does (the exit status of --kind=reference), with the message
# printed whole and at most once per MPI process, and no crash.
#
#   fatal_race.sh --launcher L --exe PROGRAM --out DIR --runs N --kind split|bcast \
#                 --line REGEX LAYOUT...
# REGEX matches one whole message line; `(MPI process P,` in it tells the
# processes apart.
set -uo pipefail

launcher="" exe="" out="" runs=10 kind=split line=""
while (($#)); do
  case $1 in
    --launcher) launcher=$2; shift 2 ;;
    --exe) exe=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --kind) kind=$2; shift 2 ;;
    --line) line=$2; shift 2 ;;
    *) break ;;
  esac
done
layouts=("$@")
mkdir -p "$out"

# run LAYOUT LOG ARGS...: one launch, bounded; prints the exit status.
run() {
  local layout=$1 log=$2 np
  shift 2
  IFS=, read -ra counts <<<"$layout"
  np=${#counts[@]}
  rm -rf "$out/rank-out" && mkdir -p "$out/rank-out"
  timeout -k 10 60 "$launcher" -np "$np" "$exe" --layout "$layout" --out "$out/rank-out" \
    "$@" >"$log" 2>&1
  echo $?
}

verdict=0
for layout in "${layouts[@]}"; do
  expected=$(run "$layout" "$out/reference.log" --kind=reference --of="$kind")
  if ((expected == 0 || expected == 124 || expected == 137)); then
    echo "FAIL: layout $layout: the reference MPI_Abort exited $expected"
    cat "$out/reference.log"
    exit 1
  fi
  for ((i = 1; i <= runs; i++)); do
    log="$out/$kind-$layout-$i.log"
    status=$(run "$layout" "$log" --kind="$kind")
    problems=()
    ((status == expected)) || problems+=("exit status $status, MPI_Abort gives $expected")
    messages=$(grep -c 'libep: ep::' "$log")
    whole=$(grep -cE -- "^$line\$" "$log")
    ((messages >= 1)) || problems+=("no message")
    ((whole == messages)) || problems+=("$((messages - whole)) of $messages messages not whole")
    doubled=$(grep -oE '\(MPI process [0-9]+,' "$log" | sort | uniq -d)
    [ -z "$doubled" ] || problems+=("a process printed more than once: $doubled")
    if grep -qiE 'segmentation|signal [0-9]|core dumped|double free' "$log"; then
      problems+=("a crash")
    fi
    if ((${#problems[@]})); then
      echo "FAIL: layout $layout, run $i: ${problems[*]}"
      cat "$log"
      verdict=1
    fi
  done
  echo "layout $layout: $runs runs of --kind=$kind done (MPI_Abort exits $expected)"
done
((verdict == 0)) && echo PASS || echo FAIL
exit $verdict
