#!/usr/bin/env python3
"""scripts/bench.sh around its jobs, with nothing built or run under MPI.

The script runs from a stand-in repository root that holds a copy of it, a
setup.sh and a cmake that do nothing, a scripts/mpirun.sh that runs the
program directly, and a fake ep-bench: `run` writes its --json and --csv
(or, in the job of FAKE_STALL processes, starts a child and waits forever,
as ranks that hang would), `summary` prints the names of the files given.
Each case states what the caller sees: the exit status, what stderr must
say, and which files the final table is made of.

  test_bench.py SOURCE_DIR WORK_DIR
"""
import os
import pathlib
import pty
import select
import shutil
import signal
import subprocess
import sys
import time

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
if [ "${FAKE_STALL:-}" = "$FAKE_NP" ]; then
  sleep 300 &
  echo "$$ $!" >"$FAKE_PIDS"
  wait
fi
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


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie no one has reaped yet has ended too.
    try:
        return pathlib.Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def wait_for_job(work: pathlib.Path) -> list:
    pids = work / "pids"
    for _ in range(200):
        if pids.exists() and pids.read_text().strip():
            return [int(p) for p in pids.read_text().split()]
        time.sleep(0.05)
    return []


def check_left(work: pathlib.Path, pids: list, what: str) -> None:
    deadline = time.time() + 15
    while any(alive(p) for p in pids) and time.time() < deadline:
        time.sleep(0.1)
    left = [p for p in pids if alive(p)]
    if left:
        # The job's own process group (timeout's), so that nothing outlives
        # a failed test.
        try:
            os.killpg(os.getpgid(left[0]), signal.SIGKILL)
        except OSError:
            pass
    report(bool(pids) and not left, f"{what}: the job's processes are gone",
           f"  job pids {pids}, still running {left}")


def ctrl_c(root: pathlib.Path, work: pathlib.Path) -> None:
    """Ctrl-C on a terminal: the job stops with the script."""
    (work / "pids").unlink(missing_ok=True)
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(root)
        os.execve("/bin/bash", ["bash", "scripts/bench.sh", "suites/t2.json"],
                  environment(work, FAKE_STALL="2"))
    pids = wait_for_job(work)
    os.write(fd, b"\x03")
    deadline = time.time() + 20
    status = None
    while time.time() < deadline:
        if select.select([fd], [], [], 0.2)[0]:
            try:
                os.read(fd, 4096)
            except OSError:
                pass
        done, st = os.waitpid(pid, os.WNOHANG)
        if done:
            status = os.waitstatus_to_exitcode(st)
            break
    if status is None:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    os.close(fd)
    report(status == 130, "Ctrl-C: exit status 130", f"  got {status}")
    check_left(work, pids, "Ctrl-C")


def signalled(root: pathlib.Path, work: pathlib.Path, sig: int, expected: int) -> None:
    """SIGTERM or SIGHUP to the script alone: the job stops with it."""
    (work / "pids").unlink(missing_ok=True)
    proc = subprocess.Popen(["bash", "scripts/bench.sh", "suites/t2.json"], cwd=root,
                            env=environment(work, FAKE_STALL="2"), start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    pids = wait_for_job(work)
    proc.send_signal(sig)
    try:
        status = proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        status = proc.wait()
    name = signal.Signals(sig).name
    report(status == expected, f"{name}: exit status {expected}", f"  got {status}")
    check_left(work, pids, name)


def stale_files(root: pathlib.Path, work: pathlib.Path) -> None:
    """A job that writes nothing leaves no earlier run's file in the table."""
    first = run(root, work, ["suites/t2.json"])
    report(first.returncode == 0 and "t2.np4.json" in first.stdout, "a first run uses both files",
           first.stdout + first.stderr)
    second = run(root, work, ["suites/t2.json"], FAKE_STALL="4", BENCH_TIMEOUT="1")
    report(second.returncode == 124 and "t2.json" in second.stdout
           and "t2.np4.json" not in second.stdout and "t2.np4.json" in second.stderr,
           "a job that timed out: exit status 124, its old file unused and named on stderr",
           f"  status {second.returncode}\n{second.stdout}{second.stderr}")


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
    stale_files(root, work)
    ctrl_c(root, work)
    signalled(root, work, signal.SIGTERM, 143)
    signalled(root, work, signal.SIGHUP, 129)
    print(f"FAIL: {failures}" if failures else "PASS")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
