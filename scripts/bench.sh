#!/usr/bin/env bash
# The benchmark command: sets up the machine, builds ep-bench (Release, in
# build-bench/, incrementally on later runs) and runs a suite file with
# `ep-bench run` under scripts/mpirun.sh. The default, suites/quick.json,
# compares libep endpoints side by side with plain MPI processes and with
# threads sharing an MPI rank (point-to-point latency, bandwidth and message
# rate, communicator creation, broadcast, allreduce, and one-sided put, get
# and fetch-and-op with window creation) in a minute or two.
#
#   scripts/bench.sh                                  # suites/quick.json
#   scripts/bench.sh suites/standard.json             # the suite kept in results/
#   scripts/bench.sh suites/quick.json --noise-threshold 0.5   # options for ep-bench run
#
# The main job has BENCH_NP processes (default 2) and runs every case that
# asks for that many or for none in particular; the cases that need another
# number of processes (e.g. both ends of a pair in one process: -np 1) run
# in one more job per process count. Each job prints its tables and writes
# build-bench/results/SUITE.json and .csv (SUITE.npN.json for the extra
# jobs; BENCH_OUT overrides the directory). A relative suite path and
# BENCH_OUT are taken from the directory the script is started in. A job's
# files of an earlier run are removed before it runs, so that the tables are
# this run's only; a job that writes none is named.
#
# The suite and the BENCH_* variables are checked before the set-up and the
# build (exit status 2, naming what is wrong); once ep-bench is built, `run
# --dry-run` checks every case before any job starts. Ctrl-C, SIGTERM and
# SIGHUP stop the running job too (exit status 130, 143, 129).
#
# The output ends with libep against plain MPI, like for like (`ep-bench
# summary --ratios` over the files of all jobs): every libep case of the
# suite has a plain-MPI twin with the same family, parameters and number of
# ranks (bcast on 2 processes x 2 endpoints against bcast on 4 processes, run
# in the -np 4 job), and each row gives both medians (us) and the ratio ep
# time / mpi time, below 1 libep is faster; bandwidth and message rate rows
# time the same messages, so 0.5 there is twice the rate. One table per
# family (p2p latency, bandwidth and message rate; split, intercomm and merge
# create and free, cold and warm; bcast, allreduce; one-sided operations and
# window creation), each with the geometric mean of its ratios.
#
# BENCH_MPI=openmpi (default) or mpich picks the MPI: the build goes to
# build-bench/ or build-bench-mpich/, the results to
# build-bench[-mpich]/results/.
#
# The first run also builds libep (a minute or two). BENCH_TIMEOUT (seconds,
# default 900) bounds each MPI job; ep-bench's own --watchdog ends a job whose
# case stops making progress.
set -euo pipefail

# Paths given (the suite, BENCH_OUT) are the caller's, relative to where the
# script was started; the defaults are the repository's.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
absolute() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
suite=$root/suites/quick.json
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
  suite=$(absolute "$1")
  shift
fi
mpi=${BENCH_MPI:-openmpi}
case $mpi in
  openmpi) build=build-bench ;;
  mpich) build=build-bench-mpich ;;
  *) echo "bench.sh: BENCH_MPI must be openmpi or mpich, not '$mpi'" >&2; exit 2 ;;
esac
out=$root/$build/results
[ -z "${BENCH_OUT:-}" ] || out=$(absolute "$BENCH_OUT")
limit=${BENCH_TIMEOUT:-900}
np=${BENCH_NP:-2}
extra=("$@")
name=$(basename "$suite" .json)

# Everything the caller gave is checked before setup and build take minutes.
[[ $np =~ ^[1-9][0-9]{0,5}$ ]] ||
  { echo "bench.sh: BENCH_NP must be a number of processes (a positive integer), not '$np'" >&2; exit 2; }
[[ $limit =~ ^[0-9]+(\.[0-9]+)?$ ]] && [[ $limit =~ [1-9] ]] ||
  { echo "bench.sh: BENCH_TIMEOUT must be a positive number of seconds, not '$limit'" >&2; exit 2; }
[ ! -e "$out" ] || [ -d "$out" ] ||
  { echo "bench.sh: BENCH_OUT must be a directory, and '$out' is not one" >&2; exit 2; }
[ -f "$suite" ] && [ -r "$suite" ] ||
  { echo "bench.sh: no suite file '$suite' (expected a readable JSON file)" >&2; exit 2; }
# What this script reads of the suite (the process counts of its cases);
# `ep-bench run --dry-run` checks the rest once it is built. python3 comes
# with scripts/setup.sh, so on a fresh machine this waits for it.
check_suite() {
  python3 - "$suite" <<'EOF'
import json, sys
path = sys.argv[1]
def fail(what):
    print(f"bench.sh: suite file '{path}': {what}", file=sys.stderr)
    sys.exit(2)
try:
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
except (OSError, UnicodeDecodeError) as e:
    fail(f"cannot be read: {e}")
except ValueError as e:
    fail(f"not JSON: {e}")
if not isinstance(doc, dict):
    fail(f'expected an object with "cases", not {type(doc).__name__}')
cases = doc.get("cases", [])
if not isinstance(cases, list):
    fail(f'"cases": expected a list of cases, not {type(cases).__name__}')
for i, c in enumerate(cases):
    p = c.get("processes") if isinstance(c, dict) else None
    if p is not None and (type(p) is not int or not 1 <= p <= 100000):
        fail(f'/cases/{i}/processes: expected a positive integer (mpirun -np), not {json.dumps(p)}')
EOF
}
suite_checked=0
if command -v python3 >/dev/null; then
  check_suite
  suite_checked=1
fi

cd "$root"
scripts/setup.sh
[ "$suite_checked" = 1 ] || check_suite
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DLIBEP_MPI="$mpi" >/dev/null
cmake --build "$build" -j"$(nproc)" --target ep-bench
bench=$build/tools/ep-bench/ep-bench
# ep-bench's own check of every case and of the options for `run`, before
# any job: a wrong suite stops here with its message and exit status 2.
"$bench" run "$suite" --dry-run "${extra[@]}" >/dev/null || exit $?
mkdir -p "$out"

# The process counts the suite's cases ask for, besides the main job's.
others=$(python3 - "$suite" "$np" <<'EOF'
import json, sys
cases = json.load(open(sys.argv[1])).get("cases", [])
counts = {c["processes"] for c in cases if isinstance(c, dict) and isinstance(c.get("processes"), int)}
print(" ".join(str(n) for n in sorted(counts - {int(sys.argv[2])})))
EOF
)

status=0
# Ctrl-C, SIGTERM and SIGHUP (the terminal closed) stop the running job:
# `timeout` puts the job in a process group of its own, which the terminal's
# signals do not reach, and passes on to that group what it is sent.
job_pid=""
stop() {
  trap - INT TERM HUP
  if [ -n "$job_pid" ]; then
    kill -TERM "$job_pid" 2>/dev/null || true
    wait "$job_pid" 2>/dev/null || true
  fi
  echo "bench.sh: stopped by SIG$1" >&2
  exit "$2"
}
trap 'stop INT 130' INT
trap 'stop TERM 143' TERM
trap 'stop HUP 129' HUP

# job NP FILE-STEM [RUN-OPTIONS...]: one ep-bench run job. Its outputs from
# an earlier run are removed first, so that what is left is this run's.
job() {
  local procs=$1 stem=$2 code=0
  shift 2
  echo "== $suite under mpirun -np $procs: $out/$stem.json" >&2
  rm -f -- "$out/$stem.json" "$out/$stem.csv"
  timeout --kill-after=10 "$limit" scripts/mpirun.sh -np "$procs" "$bench" run "$suite" \
    --json "$out/$stem.json" --csv "$out/$stem.csv" "$@" "${extra[@]}" &
  job_pid=$!
  wait "$job_pid" || code=$?
  job_pid=""
  if [ "$code" = 124 ]; then
    echo "bench.sh: the -np $procs job did not end within BENCH_TIMEOUT=$limit s" >&2
  fi
  [ "$code" = 0 ] || [ "$status" != 0 ] || status=$code
}
job "$np" "$name" --quiet
for n in $others; do
  job "$n" "$name.np$n" --quiet --only-exact-np
done

# The end: each libep case beside its plain-MPI twin with as many ranks,
# whichever job ran it, and the ratio of their medians (ep-bench summary
# --ratios). Only this run's files, not those an earlier run left.
files=()
for stem in "$name" $(for n in $others; do echo "$name.np$n"; done); do
  if [ -f "$out/$stem.json" ]; then
    files+=("$out/$stem.json")
  else
    echo "bench.sh: no results from the job of $out/$stem.json; its cases are missing below" >&2
  fi
done
if [ ${#files[@]} -gt 0 ]; then
  echo
  if ! "$bench" summary --ratios -- "${files[@]}"; then
    [ "$status" -ne 0 ] || status=1
  fi
fi
echo
echo "JSON and CSV results in $out/"
exit "$status"
