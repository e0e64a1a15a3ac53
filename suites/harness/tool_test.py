"""What the command-line tests of ep-bench and ep-inspect share: running a
tool (under the MPI launcher or alone) within a time limit, and the checks
every runner makes of what it printed or wrote.

The runners (suites/cli/run_cli_test.py, suites/comm/run_bench_test.py,
suites/compare/run_compare_test.py and run_plot_test.py,
suites/runsuite/run_suite_test.py, suites/inspect/run_inspect_test.py) import
it from here:

    sys.dont_write_bytecode = True
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "..", "harness"))
    import tool_test
"""

import argparse
import json
import os
import re
import signal
import stat
import subprocess
import sys
import threading


def fail(message):
    """Ends the test: FAIL and why, exit status 1."""
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def add_command_arguments(parser, launcher=False):
    """--timeout, the launcher's options if the tool runs under MPI, and the
    tool's command line after '--'."""
    if launcher:
        parser.add_argument("--launcher", required=True)
        parser.add_argument("--np", type=int, required=True,
                            help="processes; 0 runs the tool without the launcher")
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--bytes", action="store_true",
                        help="%%HH in the command line, --setenv and the runner's file options "
                             "stands for the byte HH (names that are not UTF-8)")
    parser.add_argument("--setenv", action="append", default=[],
                        help="NAME=VALUE: set in the tool's environment")
    parser.add_argument("command", nargs=argparse.REMAINDER,
                        help="the tool's command line, after --")


def unescape_bytes(text):
    """'%HH' as the byte HH, the way Python holds a file name or argument
    that is not UTF-8 (os.fsencode's surrogate escape): a test can then hand
    a tool such bytes, which CMake's arguments cannot carry."""
    if text is None:
        return None
    return re.sub(r"%([0-9a-fA-F]{2})",
                  lambda m: os.fsdecode(bytes([int(m.group(1), 16)])), text)


def maybe_bytes(args, text):
    """`text` with --bytes' escapes decoded when the test gave --bytes."""
    return unescape_bytes(text) if getattr(args, "bytes", False) else text


def command_of(parser, args, tool="the tool"):
    """The command after '--', which must be there. A word {empty} stands
    for an empty argument, which CMake drops from the lists of add_test;
    with --bytes, %HH stands for the byte HH."""
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error(f"give {tool}'s command line after --")
    return ["" if word == "{empty}" else maybe_bytes(args, word) for word in command]


def environment_of(args):
    """The tool's environment: ours plus --setenv, or None without it."""
    if not getattr(args, "setenv", None):
        return None
    env = dict(os.environ)
    for spec in args.setenv:
        name, value = spec.split("=", 1)
        env[name] = maybe_bytes(args, value)
    return env


def launch(command, timeout, launcher=None, np=0, env=None, stdout_path=None):
    """Runs `command` (under `launcher -np np` when np > 0) and returns
    (exit status, stdout, stderr), both echoed to stderr for the test log.
    With `stdout_path`, stdout is that file, opened for appending (as a
    shell's `>>`), and the stdout returned is empty. On expiry the whole
    process group is killed, so that no rank keeps spinning on the machine,
    and the test fails."""
    full = ([launcher, "-np", str(np)] if launcher and np > 0 else []) + list(command)
    if launcher and np == 1:
        # After a process exits with a non-zero status, Open MPI 4.1's launcher
        # waits about 2 s (odls_base_sigkill_timeout, 1 s, between the signals it
        # sends the job's other processes) even when there is no other process:
        # most error tests paid it. With one process nothing is left to signal;
        # with more, the default stays, so that no rank is cut off mid-message.
        env = dict(os.environ if env is None else env)
        env.setdefault("OMPI_MCA_odls_base_sigkill_timeout", "0")
    print("+", " ".join(full).encode("utf-8", "backslashreplace").decode(), file=sys.stderr)
    stdout = open(stdout_path, "a") if stdout_path else subprocess.PIPE
    # A tool may print bytes that are not UTF-8 (a path it was given): kept
    # as surrogate escapes, so that the checks see the text as printed.
    process = subprocess.Popen(full, stdout=stdout, stderr=subprocess.PIPE, text=True,
                               errors="surrogateescape", env=env, start_new_session=True)
    if stdout_path:
        stdout.close()  # the child has its own descriptor
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        echo((out or "") + err)
        fail(f"no result after {timeout} s; the job was killed")
    out = out or ""
    echo(out + err)
    return process.returncode, out, err


def echo(text):
    """Writes what a tool printed to stderr, bytes that are not UTF-8 escaped."""
    sys.stderr.write(text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace"))


def is_stdout(path):
    """'-' and /dev/stdout: the run's JSON is on its stdout."""
    return path in ("-", "/dev/stdout")


def append_to_stdout_file(spec):
    """PATH=TEXT: writes TEXT to PATH before a run whose stdout is appended
    to it (launch's stdout_path); returns (PATH, TEXT)."""
    path, text = spec.split("=", 1)
    with open(path, "w") as f:
        f.write(text)
    return path, text


def read_stdout_file(path, text):
    """What a run appended to its stdout file, which must still begin with
    the TEXT written before it: a run that replaced or truncated the file
    that its stdout was open on destroyed that."""
    with open(path) as f:
        content = f.read()
    if not content.startswith(text):
        fail(f"{path} no longer begins with the {text!r} it held before the run: the run "
             f"replaced or truncated the file its stdout was open on (it holds "
             f"{content[:80]!r}...)")
    return content[len(text):]


def make_links(specs):
    """LINK=TARGET: symbolic links made afresh before a run."""
    for spec in specs:
        link, target = spec.split("=", 1)
        if os.path.lexists(link):
            os.remove(link)
        os.symlink(target, link)


def check_links(specs):
    """Each link of make_links must still be one: a run that writes through a
    link must not replace it."""
    for spec in specs:
        link = spec.split("=", 1)[0]
        if not os.path.islink(link):
            fail(f"{link} is no longer a symbolic link: the run replaced it")


def start_fifo_reader(path):
    """Makes the named pipe `path` afresh and reads it in a thread until the
    run that opens it closes it. Returns what finish_fifo_reader takes."""
    if os.path.lexists(path):
        os.remove(path)
    os.mkfifo(path)
    received = []

    def read():
        with open(path) as f:  # blocks until the run opens it
            received.append(f.read())

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return path, thread, received


def finish_fifo_reader(reader, wait=5):
    """What the run wrote to the named pipe of start_fifo_reader; fails if
    nothing opened it or the run replaced it."""
    path, thread, received = reader
    thread.join(wait)
    if thread.is_alive():
        with open(path, "w"):  # nothing opened the pipe: end the reader
            pass
        thread.join(wait)
        fail(f"nothing was written to the named pipe {path}")
    if not os.path.lexists(path) or not stat.S_ISFIFO(os.lstat(path).st_mode):
        fail(f"{path} is no longer a named pipe: the run replaced it")
    return received[0] if received else ""


def remove_stale(*paths):
    """Removes old outputs, so that a stale file cannot pass for this run's."""
    for path in paths:
        if path and not is_stdout(path) and os.path.exists(path):
            os.remove(path)


def expect_status(code, expected):
    if code != expected:
        fail(f"exit status {code}, expected {expected}")


def check_output(texts, out, err, once=True):
    """Every text is in the output; the first exactly once (one rank prints,
    not all of them) unless `once` is False."""
    output = out + err
    for text in texts:
        if text not in output:
            fail(f"output does not contain {text!r}")
    if once and texts:
        count = output.count(texts[0])
        if count != 1:
            fail(f"{texts[0]!r} printed {count} times, expected once (one rank)")


def check_absent(texts, out, err):
    for text in texts:
        if text in out + err:
            fail(f"output contains {text!r}")


def load_json(path_or_dash, out):
    """The JSON a run wrote to a file, or to stdout for '-' (or /dev/stdout)."""
    to_stdout = is_stdout(path_or_dash)
    where = "stdout" if to_stdout else path_or_dash
    if not to_stdout and not os.path.exists(path_or_dash):
        fail(f"{path_or_dash} was not written")
    try:
        text = out if to_stdout else open(path_or_dash).read()
        return json.loads(text)
    except json.JSONDecodeError as e:
        fail(f"{where} is not JSON: {e}")


def check_result_schema(document, schema_path):
    """An ep-bench result file against tools/ep-bench/result.schema.json.
    Without the jsonschema module, at least every required key must be
    there (said on stderr)."""
    with open(schema_path) as f:
        schema = json.load(f)
    try:
        import jsonschema
    except ImportError:
        print("note: jsonschema is not installed; required keys only", file=sys.stderr)
        missing = [k for k in schema["definitions"]["context"]["required"]
                   if k not in document.get("context", {})]
        if missing:
            fail(f"context lacks {missing}")
        for entry in document.get("benchmarks", []):
            missing = [k for k in schema["definitions"]["entry"]["required"] if k not in entry]
            if missing:
                fail(f"entry {entry.get('name')} lacks {missing}")
        return
    try:
        jsonschema.validate(document, schema)
    except jsonschema.ValidationError as e:
        fail(f"result does not match {schema_path}: {e.message} at {list(e.absolute_path)}")


def check_context(context, pairs):
    """Each KEY=VALUE holds in the context (values compared as text)."""
    for pair in pairs:
        key, value = pair.split("=", 1)
        if str(context.get(key)) != value:
            fail(f"context.{key} is {context.get(key)!r}, expected {value}")
