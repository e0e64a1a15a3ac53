#!/usr/bin/env python3
"""Runs `ep-bench compare` (no MPI launcher: it reads files only) and checks it.

  run_compare_test.py --status N [--output TEXT ...] [--absent TEXT ...]
      [--json FILE [--case NAME=VERDICT ...] [--summary KEY=VALUE ...]]
      [--timeout S] -- ep-bench compare OLD.json NEW.json ...

The exit status must be N; every --output TEXT must be in stdout + stderr,
the first exactly once (the checks of ../cli/run_cli_test.py, reused); no
--absent TEXT may be. With --json, the diff written there ('-': stdout) must
have the documented shape, the first comparison's case NAME the verdict
VERDICT, and the summary KEY the value VALUE (JSON).
"""

import argparse
import json
import os
import signal
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import run_cli_test as cli  # noqa: E402  (fail, check_output)

VERDICTS = {"regression", "improvement", "not significant", "unchanged"}


def run(command, timeout):
    print("+", " ".join(command), file=sys.stderr)
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, start_new_session=True)
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        cli.fail(f"no result after {timeout} s; killed")
    sys.stderr.write(out + err)
    return process.returncode, out, err


def require(document, keys, where):
    for key in keys:
        if key not in document:
            cli.fail(f"diff JSON: {where} lacks {key!r}")


def check_shape(document):
    require(document, ["baseline", "threshold_percent", "alpha", "time_unit", "comparisons",
                       "summary"], "the document")
    require(document["summary"], ["regressions", "improvements", "not_significant", "unchanged",
                                  "exit_status"], "summary")
    for i, comparison in enumerate(document["comparisons"]):
        where = f"comparisons[{i}]"
        require(comparison, ["old", "new", "context_differences", "cases", "geomeans",
                             "only_in_old", "only_in_new", "summary"], where)
        require(comparison["summary"], ["verdict", "regressions"], f"{where}.summary")
        for case in comparison["cases"]:
            name = f"{where} case {case.get('name')}"
            require(case, ["name", "family", "labels", "old", "new", "ratio", "change",
                           "p_value", "p_exact", "too_few_repetitions", "verdict"], name)
            for side in ("old", "new"):
                require(case[side], ["repetitions", "median", "mean", "min", "max",
                                     "real_time"], f"{name}.{side}")
                if len(case[side]["real_time"]) != case[side]["repetitions"]:
                    cli.fail(f"{name}.{side}: real_time does not hold every repetition")
            if not 0 <= case["p_value"] <= 1:
                cli.fail(f"{name}: p_value {case['p_value']} outside [0, 1]")
            if case["verdict"] not in VERDICTS:
                cli.fail(f"{name}: verdict {case['verdict']!r} not in {sorted(VERDICTS)}")
            expected = case["new"]["median"] / case["old"]["median"] - 1
            if abs(case["change"] - expected) > 1e-9:
                cli.fail(f"{name}: change {case['change']}, medians say {expected}")
        for mean in comparison["geomeans"]:
            require(mean, ["family", "ratio", "change", "cases"], f"{where} geomean")


def check_json(args, out):
    text = out if args.json == "-" else open(args.json).read()
    try:
        document = json.loads(text)
    except json.JSONDecodeError as e:
        cli.fail(f"{args.json}: not JSON: {e}")
    check_shape(document)
    cases = {c["name"]: c for c in document["comparisons"][0]["cases"]}
    for spec in args.case:
        name, verdict = spec.rsplit("=", 1)
        if name not in cases:
            cli.fail(f"diff JSON: no case {name!r}; it has {sorted(cases)}")
        if cases[name]["verdict"] != verdict:
            cli.fail(f"diff JSON: case {name} is {cases[name]['verdict']!r}, expected {verdict!r}")
    for spec in args.summary:
        key, value = spec.split("=", 1)
        if document["summary"].get(key) != json.loads(value):
            cli.fail(f"diff JSON: summary.{key} is {document['summary'].get(key)!r}, "
                     f"expected {value}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--status", type=int, required=True)
    parser.add_argument("--output", action="append", default=[])
    parser.add_argument("--absent", action="append", default=[])
    parser.add_argument("--json")
    parser.add_argument("--case", action="append", default=[])
    parser.add_argument("--summary", action="append", default=[])
    parser.add_argument("--timeout", type=float, default=30)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    if args.command[:1] == ["--"]:
        args.command = args.command[1:]
    if not args.command:
        parser.error("give the ep-bench command after --")
    if args.json and args.json != "-" and os.path.exists(args.json):
        os.remove(args.json)  # a stale file must not pass for this run's

    code, out, err = run(args.command, args.timeout)
    if code != args.status:
        cli.fail(f"exit status {code}, expected {args.status}")
    if args.output:
        cli.check_output(args.output, out, err)
    for text in args.absent:
        if text in out + err:
            cli.fail(f"output contains {text!r}")
    if args.json:
        check_json(args, out)
    print("PASS")


if __name__ == "__main__":
    main()
