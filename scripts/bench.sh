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
# jobs; BENCH_OUT overrides the directory). A summary of the point-to-point
# medians of all jobs ends the output.
#
# BENCH_MPI=openmpi (default) or mpich picks the MPI: the build goes to
# build-bench/ or build-bench-mpich/, the results to
# build-bench[-mpich]/results/.
#
# The first run also builds libep (a minute or two). BENCH_TIMEOUT (seconds,
# default 900) bounds each MPI job; ep-bench's own --watchdog ends a job whose
# case stops making progress.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
suite=suites/quick.json
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
  suite=$1
  shift
fi
[ -f "$suite" ] || { echo "bench.sh: no suite file '$suite'" >&2; exit 2; }
mpi=${BENCH_MPI:-openmpi}
case $mpi in
  openmpi) build=build-bench ;;
  mpich) build=build-bench-mpich ;;
  *) echo "bench.sh: BENCH_MPI must be openmpi or mpich, not '$mpi'" >&2; exit 2 ;;
esac
out=${BENCH_OUT:-$build/results}
limit=${BENCH_TIMEOUT:-900}
np=${BENCH_NP:-2}
extra=("$@")
name=$(basename "$suite" .json)

scripts/setup.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DLIBEP_MPI="$mpi" >/dev/null
cmake --build "$build" -j"$(nproc)" --target ep-bench
bench=$build/tools/ep-bench/ep-bench
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
# job NP FILE-STEM [RUN-OPTIONS...]: one ep-bench run job.
job() {
  local procs=$1 stem=$2
  shift 2
  echo "== $suite under mpirun -np $procs: $out/$stem.json" >&2
  timeout --kill-after=10 "$limit" scripts/mpirun.sh -np "$procs" "$bench" run "$suite" \
    --json "$out/$stem.json" --csv "$out/$stem.csv" "$@" "${extra[@]}" || status=$?
}
job "$np" "$name" --quiet
for n in $others; do
  job "$n" "$name.np$n" --quiet --only-exact-np
done

# Point-to-point medians of every job, one row per implementation and
# placement: one-way latency (us) and bandwidth (MB/s) by message size, as
# ep-bench summary reads them.
python3 - "$out" "$name" "$bench" <<'EOF' || true
import glob, json, os, subprocess, sys
out, name, bench = sys.argv[1], sys.argv[2], sys.argv[3]
paths = [p for p in [os.path.join(out, name + ".json")] + sorted(glob.glob(os.path.join(out, name + ".np*.json")))
         if os.path.exists(p)]
summary = json.loads(subprocess.run([bench, "summary", "--json", "-", "--"] + paths, check=True,
                                    capture_output=True, text=True).stdout) if paths else {"files": []}
rows = {}
for f in summary["files"]:
    for c in f["cases"]:
        labels = c["labels"]
        if c["family"] not in ("p2p/latency", "p2p/bandwidth"):
            continue
        who = f"{labels['impl']} {labels.get('placement', '')}".strip()
        value = (c["real_time"]["median"] if c["family"] == "p2p/latency"
                 else c["bytes_per_second"]["median"] / 1e6)
        rows.setdefault(c["family"], {}).setdefault(who, {})[labels["bytes"]] = value
def size(b):
    for unit, shift in (("M", 20), ("K", 10)):
        if b >= 1 << shift and b % (1 << shift) == 0:
            return f"{b >> shift}{unit}"
    return str(b)
for family, title in (("p2p/latency", "one-way latency, us"), ("p2p/bandwidth", "bandwidth, MB/s")):
    if family not in rows:
        continue
    sizes = sorted({b for r in rows[family].values() for b in r})
    print(f"\n# Summary of medians: {title}")
    print(f"{'':22}" + "".join(f"{size(b):>9}" for b in sizes))
    for who, values in sorted(rows[family].items()):
        cells = [values.get(b) for b in sizes]
        print(f"{who:22}" + "".join(f"{c:>9.3g}" if c is not None and c < 1e3 else
                                    (f"{c:>9.0f}" if c is not None else f"{'-':>9}") for c in cells))
print(f"\nJSON and CSV results in {out}/")
EOF
exit "$status"
