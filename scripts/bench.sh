#!/usr/bin/env bash
# The benchmark command: sets up the machine, builds ep-bench (Release, in
# build-bench/, incrementally on later runs) and compares point-to-point
# performance side by side:
#   ep intra     two libep endpoints in one process
#   ep inter     two libep endpoints in two processes
#   mpi          two plain MPI processes
#   mpi-threads  threads that share their process's MPI rank (one MPI_Comm_dup
#                per pair), in two processes
# for latency and bandwidth at a handful of sizes, then the message rate of
# two pairs talking at once. Prints each run's table and a summary of
# medians; the JSON results go to build-bench/results/ (BENCH_OUT overrides).
#
#   scripts/bench.sh                        # ~20 s on 2 cores once built
#   scripts/bench.sh --repetitions 20 --validate   # methodology options for every run
#
# The first run also builds libep (a minute or two); later runs rebuild only
# what changed. Extra options go to every ep-bench p2p run, so pass only
# methodology options (--repetitions, --min-time, --warmup, --validate).
# BENCH_TIMEOUT (seconds, default 300) bounds each MPI job.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
out=${BENCH_OUT:-build-bench/results}
limit=${BENCH_TIMEOUT:-300}
extra=("$@")

scripts/setup.sh
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-bench -j"$(nproc)" --target ep-bench
bench=build-bench/tools/ep-bench/ep-bench
mkdir -p "$out"

# run NAME MPIRUN-OPTIONS... -- P2P-OPTIONS...: one ep-bench p2p job, its JSON
# in $out/NAME.json.
run() {
  local name=$1 launch=()
  shift
  while [ "$1" != -- ]; do
    launch+=("$1")
    shift
  done
  shift
  timeout --kill-after=10 "$limit" scripts/mpirun.sh "${launch[@]}" "$bench" p2p --quiet \
    --json "$out/$name.json" "$@" "${extra[@]}"
}

# Open MPI binds each process to one core by default. That suits processes
# with one busy thread; a process that drives several endpoints or threads
# would have them take turns on that one core, so those run unbound
# (scripts/mpirun.sh's default) and one-thread processes are bound.
unbound=(--bind-to none)
bound=(--bind-to core)

sizes=(--tests latency,bandwidth --sizes 8,1K,64K,1M,4M)
run ep-intra -np 1 "${unbound[@]}" -- --impl ep --placement intra "${sizes[@]}"
run ep-inter -np 2 "${bound[@]}" -- --impl ep --placement inter "${sizes[@]}"
run mpi -np 2 "${bound[@]}" -- --impl mpi "${sizes[@]}"
run mpi-threads -np 2 "${bound[@]}" -- --impl mpi-threads --placement inter "${sizes[@]}"

rate=(--tests msgrate --msgrate-sizes 8 --pairs 2)
run msgrate-ep-intra -np 1 "${unbound[@]}" -- --impl ep --placement intra "${rate[@]}"
run msgrate-ep-inter -np 2 "${unbound[@]}" -- --impl ep --placement inter "${rate[@]}"
run msgrate-mpi -np 4 "${unbound[@]}" -- --impl mpi "${rate[@]}"
run msgrate-mpi-threads -np 2 "${unbound[@]}" -- --impl mpi-threads --placement inter "${rate[@]}"

# One line per implementation, from the median aggregates of the files above.
python3 - "$out" <<'EOF'
import json, sys, os
out = sys.argv[1]
def medians(name):
    path = os.path.join(out, name + ".json")
    entries = json.load(open(path))["benchmarks"]
    return {(e["family"], e["bytes"]): e for e in entries if e.get("aggregate_name") == "median"}
print(f"\n# Summary (medians): one-way latency in us, bandwidth in MB/s, "
      f"2-pair message rate in millions of 8-byte messages/s; JSON in {out}/")
head = ["lat 8", "lat 1K", "lat 64K", "lat 1M", "bw 64K", "bw 1M", "bw 4M", "rate x2"]
print(f"{'':12}" + "".join(f"{h:>10}" for h in head))
for impl in ["ep-intra", "ep-inter", "mpi", "mpi-threads"]:
    m, r = medians(impl), medians("msgrate-" + impl)
    cells = [m[("p2p/latency", b)]["real_time"] for b in (8, 1024, 65536, 1 << 20)]
    cells += [m[("p2p/bandwidth", b)]["bytes_per_second"] / 1e6 for b in (65536, 1 << 20, 4 << 20)]
    cells.append(r[("p2p/msgrate", 8)]["items_per_second"] / 1e6)
    print(f"{impl:12}" + "".join(f"{c:>10.3g}" if c < 1000 else f"{c:>10.0f}" for c in cells))
EOF
