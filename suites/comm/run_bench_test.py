#!/usr/bin/env python3
"""Runs ep-bench split/intercomm/merge under the MPI launcher and checks its JSON.

  run_bench_test.py --launcher L --np N --schema result.schema.json --json FILE \
      --series NAME [--series NAME ...] [--expect KEY=VALUE ...] -- ep-bench ...

The run must succeed; FILE must match the schema; every NAME (a run_name such
as "split/create/ep/2,2" or "split/create/ep/2,2/cold") must be there with
all its repetitions and the six aggregates, with positive times; the cold
series have exactly one repetition; validated series found nothing wrong.
Context KEY=VALUE pairs must hold. The
launch is bounded by --timeout and its process group killed on expiry.

Without the jsonschema module only the required keys are checked (said on
stderr).
"""

import argparse
import json
import os
import signal
import subprocess
import sys

AGGREGATES = {"median", "mean", "min", "max", "p90", "stddev"}


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def launch(args):
    command = [args.launcher, "-np", str(args.np)] + args.command
    print("+", " ".join(command), file=sys.stderr)
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        out, err = process.communicate(timeout=args.timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        sys.stderr.write(out + err)
        fail(f"no result after {args.timeout} s; the job was killed")
    sys.stderr.write(out + err)
    return process.returncode


def validate(document, schema_path):
    with open(schema_path) as f:
        schema = json.load(f)
    try:
        import jsonschema
    except ImportError:
        print("note: jsonschema is not installed; required keys only", file=sys.stderr)
        for key in schema["definitions"]["context"]["required"]:
            if key not in document["context"]:
                fail(f"context lacks {key}")
        for entry in document["benchmarks"]:
            for key in schema["definitions"]["entry"]["required"]:
                if key not in entry:
                    fail(f"{entry.get('name')} lacks {key}")
        return
    try:
        jsonschema.validate(document, schema)
    except jsonschema.ValidationError as e:
        fail(f"does not match {schema_path}: {e.message} at {list(e.absolute_path)}")


def check_series(document, names):
    repetitions = document["context"]["repetitions"]
    entries = document["benchmarks"]
    for name in names:
        series = [e for e in entries if e["run_name"] == name]
        runs = [e for e in series if e["run_type"] == "iteration"]
        expected = 1 if name.endswith("/cold") else repetitions
        if sorted(e["repetition_index"] for e in runs) != list(range(expected)):
            fail(f"{name}: {len(runs)} repetitions, expected {expected}")
        aggregates = {e["aggregate_name"] for e in series if e["run_type"] == "aggregate"}
        if aggregates != AGGREGATES:
            fail(f"{name}: aggregates {sorted(aggregates)}")
        for e in runs:
            if not e["real_time"] > 0:
                fail(f"{name}: real_time {e['real_time']}")
            if e["validated"] and e["validation_errors"] != 0:
                fail(f"{name}: --validate found {e['validation_errors']} wrong facts")
    extra = {e["run_name"] for e in entries} - set(names)
    if extra:
        fail(f"unexpected series {sorted(extra)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launcher", required=True)
    parser.add_argument("--np", type=int, required=True)
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--schema", required=True)
    parser.add_argument("--json", required=True)
    parser.add_argument("--series", action="append", default=[])
    parser.add_argument("--expect", action="append", default=[])
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    if args.command[:1] == ["--"]:
        args.command = args.command[1:]
    if os.path.exists(args.json):
        os.remove(args.json)
    code = launch(args)
    if code != 0:
        fail(f"exit status {code}")
    with open(args.json) as f:
        document = json.load(f)
    validate(document, args.schema)
    for pair in args.expect:
        key, value = pair.split("=", 1)
        if str(document["context"].get(key)) != value:
            fail(f"context.{key} is {document['context'].get(key)!r}, expected {value}")
    check_series(document, args.series)
    print("PASS")


if __name__ == "__main__":
    main()
