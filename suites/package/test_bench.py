#!/usr/bin/env python3
"""scripts/bench.sh around its jobs, with nothing built or run under MPI.

The script runs from a stand-in repository root that holds a copy of it, a
setup.sh and a cmake that do nothing, a scripts/mpirun.sh that runs the
program directly, and a fake ep-bench: `run` writes its --json and --csv,
`summary` prints the names of the files given.
Each case states what the caller sees: the exit status, what stderr must
say, and which files the final table is made of.

  test_bench.py SOURCE_DIR WORK_DIR
"""
import os
import pathlib
import shutil
import subprocess
import sys

SUITE = ('{"defaults":{"repetitions":2},"cases":[{"name":"bar-ep","subcommand":"barrier",'
         '"ep":2},{"name":"bar-mpi-np4","subcommand":"barrier","processes":4,"impl":"mpi"}]}')

FAKE_BENCH = r'''#!/usr/bin/env bash
case $1 in
  summary) shift 2; echo "summary of:"; for f in "$@"; do [ "$f" = -- ] || echo "  $(basename "$f")"; done; exit 0 ;;
  run) ;;
  *) exit 0 ;;
esac
json="" csv=""
while [ $# -gt 0 ]; do
  case $1 in
    --dry-run) exit 0 ;;
    --json) json=$2; shift ;;
    --csv) csv=$2; shift ;;
  esac
  shift
done
echo '{}' >"$json"
echo x >"$csv"
'''

FAKE_MPIRUN = '''#!/usr/bin/env bash
export FAKE_NP=$2
shift 2
exec "$@"
'''

failures = 0


def report(ok: bool, what: str, detail: str = "") -> None:
    global failures
    print(("ok:   " if ok else "FAIL: ") + what + ("" if ok else "\n" + detail))
    failures += not ok


def make_root(source: pathlib.Path, work: pathlib.Path) -> pathlib.Path:
    root = work / "root"
    (root / "scripts").mkdir(parents=True)
    (root / "suites").mkdir()
    bench_dir = root / "build-bench" / "tools" / "ep-bench"
    bench_dir.mkdir(parents=True)
    shutil.copy(source / "scripts" / "bench.sh", root / "scripts" / "bench.sh")
    files = {
        root / "scripts" / "setup.sh": f'#!/bin/sh\ntouch "{work}/setup-ran"\n',
        root / "scripts" / "mpirun.sh": FAKE_MPIRUN,
        bench_dir / "ep-bench": FAKE_BENCH,
        work / "bin" / "cmake": "#!/bin/sh\nexit 0\n",
    }
    (work / "bin").mkdir()
    for path, text in files.items():
        path.write_text(text)
        path.chmod(0o755)
    (root / "suites" / "t2.json").write_text(SUITE)
    return root


def environment(work: pathlib.Path, **extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BENCH_", "FAKE_"))}
    env["PATH"] = f"{work / 'bin'}:{env.get('PATH', '/usr/bin:/bin')}"
    env["FAKE_PIDS"] = str(work / "pids")
    env.update(extra)
    return env


def run(root, work, args, cwd=None, **extra):
    return subprocess.run(["bash", str(root / "scripts" / "bench.sh"), *args], cwd=cwd or root,
                          env=environment(work, **extra), capture_output=True, text=True,
                          timeout=60)


def relative_paths(root: pathlib.Path, work: pathlib.Path) -> None:
    """A relative suite and BENCH_OUT are the caller's."""
    caller = work / "caller"
    caller.mkdir()
    (caller / "mysuite.json").write_text(SUITE)
    got = run(root, work, ["mysuite.json"], cwd=caller, BENCH_OUT="myout")
    written = sorted(p.name for p in (caller / "myout").glob("*")) if (caller / "myout").is_dir() else []
    report(got.returncode == 0 and written == ["mysuite.csv", "mysuite.json", "mysuite.np4.csv",
                                               "mysuite.np4.json"]
           and f"{caller}/myout/" in got.stdout,
           "relative suite and BENCH_OUT from the caller's directory",
           f"  status {got.returncode}, written {written}\n{got.stdout}{got.stderr}")


def bad_input(root: pathlib.Path, work: pathlib.Path) -> None:
    """Wrong input: exit status 2 before setup, naming what is wrong."""
    suites = {
        "open.json": '{"cases": [',
        "array.json": "[1,2]",
        "bool.json": '{"cases":[{"name":"x","subcommand":"barrier","processes":true}]}',
    }
    for name, text in suites.items():
        (root / "suites" / name).write_text(text)
    cases = [
        (["suites/t2.json"], {"BENCH_NP": "banana"}, ["BENCH_NP", "banana"]),
        (["suites/t2.json"], {"BENCH_TIMEOUT": "banana"}, ["BENCH_TIMEOUT", "banana"]),
        (["suites/t2.json"], {"BENCH_TIMEOUT": "0"}, ["BENCH_TIMEOUT", "'0'"]),
        (["suites/t2.json"], {"BENCH_MPI": "banana"}, ["BENCH_MPI", "banana"]),
        (["suites/missing.json"], {}, ["missing.json"]),
        (["suites/open.json"], {}, ["open.json", "not JSON"]),
        (["suites/array.json"], {}, ["array.json", '"cases"']),
        (["suites/bool.json"], {}, ["bool.json", "/cases/0/processes", "true"]),
    ]
    for args, env, words in cases:
        (work / "setup-ran").unlink(missing_ok=True)
        got = run(root, work, args, **env)
        what = " ".join(f"{k}={v}" for k, v in env.items()) + " bench.sh " + " ".join(args)
        report(got.returncode == 2 and all(w in got.stderr for w in words)
               and "Traceback" not in got.stderr and not (work / "setup-ran").exists(),
               f"{what}: exit status 2 before setup, naming {', '.join(words)}",
               f"  status {got.returncode}, setup ran: {(work / 'setup-ran').exists()}\n"
               f"{got.stderr}")


def main() -> int:
    source, work = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    root = make_root(source, work)
    bad_input(root, work)
    relative_paths(root, work)
    print(f"FAIL: {failures}" if failures else "PASS")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
