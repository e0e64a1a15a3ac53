#!/usr/bin/env python3
"""Runs ep-bench under the MPI launcher and checks what it says.

Two kinds of test, chosen by the options:

  run_cli_test.py --launcher L --np N [--timeout S] --schema result.schema.json \
      --json FILE|- --expect impl=ep --expect placement=intra ... \
      --families latency,bandwidth --sizes 8,1024 -- ep-bench p2p ...
    The run must succeed, its JSON must match the schema, hold every
    (family, size) with all repetitions and aggregates, and the table must
    be printed by one rank only.

  run_cli_test.py --launcher L --np N --fail TEXT [--fail TEXT ...] -- ep-bench ...
    The run must exit non-zero and its output must contain every TEXT; the
    first exactly once (one rank prints, not all of them).

  run_cli_test.py --launcher L --np N --output TEXT [--output TEXT ...] -- ep-bench ...
    The same for a run that must succeed (--help, --version).

The launch is bounded by --timeout; on expiry its whole process group is
killed so that no rank keeps spinning on the machine.
"""

import argparse
import json
import os
import signal
import subprocess
import sys

AGGREGATES = ["median", "mean", "min", "max", "p90", "stddev"]


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def launch(args):
    command = [args.launcher, "-np", str(args.np)] + args.command
    print("+", " ".join(command), file=sys.stderr)
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, start_new_session=True)
    try:
        out, err = process.communicate(timeout=args.timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        sys.stderr.write(out + err)
        fail(f"no result after {args.timeout} s; the job was killed")
    sys.stderr.write(err)
    return process.returncode, out, err


def check_schema(document, schema_path):
    with open(schema_path) as f:
        schema = json.load(f)
    try:
        import jsonschema
    except ImportError:
        # Without the validator, at least every required key must be there.
        required_context = schema["definitions"]["context"]["required"]
        required_entry = schema["definitions"]["entry"]["required"]
        missing = [k for k in required_context if k not in document.get("context", {})]
        if missing:
            fail(f"context lacks {missing}")
        for entry in document.get("benchmarks", []):
            missing = [k for k in required_entry if k not in entry]
            if missing:
                fail(f"entry {entry.get('name')} lacks {missing}")
        return
    try:
        jsonschema.validate(document, schema)
    except jsonschema.ValidationError as e:
        fail(f"result does not match {schema_path}: {e.message} at {list(e.absolute_path)}")


def check_series(document, families, sizes, repetitions):
    entries = document["benchmarks"]
    for family in families:
        for size in sizes:
            series = [e for e in entries if e["family"] == f"p2p/{family}" and e["bytes"] == size]
            runs = [e for e in series if e["run_type"] == "iteration"]
            indices = sorted(e["repetition_index"] for e in runs)
            if indices != list(range(repetitions)):
                fail(f"{family} {size} B: repetition indices {indices}, expected 0..{repetitions - 1}")
            names = sorted(e["aggregate_name"] for e in series if e["run_type"] == "aggregate")
            if names != sorted(AGGREGATES):
                fail(f"{family} {size} B: aggregates {names}, expected {AGGREGATES}")
            for e in runs:
                if e["real_time"] <= 0:
                    fail(f"{e['name']}: real_time {e['real_time']}")
                if family != "latency" and e.get("items_per_second", 0) <= 0:
                    fail(f"{e['name']}: no message rate")
                if e["validated"] and e["validation_errors"] != 0:
                    fail(f"{e['name']}: {e['validation_errors']} wrong payloads")
    expected = len(families) * len(sizes) * (repetitions + len(AGGREGATES))
    if len(entries) != expected:
        fail(f"{len(entries)} benchmark entries, expected {expected}")


def check_success(args, code, out, err):
    if code != 0:
        fail(f"exit status {code}, expected 0")
    text = out if args.json == "-" else open(args.json).read()
    try:
        document = json.loads(text)
    except json.JSONDecodeError as e:
        fail(f"{'stdout' if args.json == '-' else args.json} is not JSON: {e}")
    check_schema(document, args.schema)
    context = document["context"]
    for pair in args.expect:
        key, value = pair.split("=", 1)
        if str(context.get(key)) != value:
            fail(f"context.{key} is {context.get(key)!r}, expected {value}")
    if context["processes"] != args.np:
        fail(f"context.processes is {context['processes']}, expected {args.np}")
    repetitions = context["repetitions"]
    check_series(document, args.families.split(","), [int(s) for s in args.sizes.split(",")],
                 repetitions)
    # The table goes where the JSON does not, and only one rank prints it.
    tables = err if args.json == "-" else out
    for family in args.families.split(","):
        titles = tables.count(f"# p2p {family} ")
        if titles != 1:
            fail(f"the {family} table title appears {titles} times, expected once")


def check_output(texts, out, err):
    """Every text appears in the output, the first exactly once."""
    output = out + err
    for text in texts:
        if text not in output:
            fail(f"output does not contain {text!r}")
    count = output.count(texts[0])
    if count != 1:
        fail(f"{texts[0]!r} printed {count} times, expected once (one rank)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launcher", required=True)
    parser.add_argument("--np", type=int, required=True)
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--schema")
    parser.add_argument("--json", help="where the run writes its JSON ('-': stdout)")
    parser.add_argument("--expect", action="append", default=[], help="context KEY=VALUE")
    parser.add_argument("--families", default="latency,bandwidth,msgrate")
    parser.add_argument("--sizes", default="8")
    parser.add_argument("--fail", action="append", default=[],
                        help="the run must fail and print TEXT")
    parser.add_argument("--output", action="append", default=[],
                        help="the run must succeed and print TEXT")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    if args.command[:1] == ["--"]:
        args.command = args.command[1:]
    if not args.command:
        parser.error("give the ep-bench command after --")
    if not args.fail and not args.output and not (args.json and args.schema):
        parser.error("a success test needs --json and --schema")
    if args.json and args.json != "-" and os.path.exists(args.json):
        os.remove(args.json)  # a stale file must not pass for this run's

    code, out, err = launch(args)
    if args.fail:
        if code == 0:
            fail("exit status 0, expected a failure")
        check_output(args.fail, out, err)
    elif args.output:
        if code != 0:
            fail(f"exit status {code}, expected 0")
        check_output(args.output, out, err)
    else:
        check_success(args, code, out, err)
    print("PASS")


if __name__ == "__main__":
    main()
