#!/usr/bin/env python3
"""Runs `ep-bench compare` or `summary` (no MPI launcher: they read files only) and checks it.

  run_compare_test.py --status N [--output TEXT ...] [--absent TEXT ...]
      [--json FILE [--case NAME=VERDICT ...] [--summary KEY=VALUE ...]]
      [--make KIND=FILE ...] [--link LINK=TARGET ...] [--copy FILE=COPY ...]
      [--stdout-file PATH=TEXT] [--sparse FILE=BYTES ...] [--edit SRC|DEST|INDEX|FIELD|JSON ...]
      [--bytes] [--timeout S]
      -- ep-bench compare OLD.json NEW.json ...

The exit status must be N; every --output TEXT must be in stdout + stderr,
the first exactly once; no --absent TEXT may be (the checks of
suites/harness/tool_test.py). With --json, the diff written there ('-': stdout) must
have the documented shape, the first comparison's case NAME the verdict
VERDICT, and the summary KEY the value VALUE (JSON); /dev/stdout is read
from stdout as '-' is. With --stdout-file, PATH holds TEXT before the run,
whose stdout is appended to it (a shell's `>> PATH`); afterwards PATH must
still begin with TEXT, and what follows is the run's stdout. With --bytes,
%HH in the command line, --json and --copy's COPY stands for the byte HH
(file names that are not UTF-8).
"""

import argparse
import json
import os
import shutil
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
import tool_test  # noqa: E402
from tool_test import fail  # noqa: E402

VERDICTS = {"regression", "improvement", "not significant", "unchanged"}

# Files too large to keep in fixtures/, written before the run (--make).
DEPTH = 200000
MADE = {
    # 200 000 nested arrays in the context, followed by another member.
    "deep-context": lambda: ('{"context": {"x": ' + "[" * DEPTH + "]" * DEPTH +
                             ', "y": 1}, "benchmarks": []}'),
    # ... and as an entry's label.
    "deep-entry": lambda: ('{"context": {}, "benchmarks": [{"name": "a", "real_time": 1, '
                           '"deep": ' + '{"a":' * DEPTH + "0" + "}" * DEPTH + "}]}"),
    # A copy of fixtures/base.json, for runs that must not write their input
    # (and would destroy a fixture if they did).
    "base": lambda: open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures",
                                      "base.json")).read(),
}


def make_files(specs):
    for spec in specs:
        kind, path = spec.split("=", 1)
        with open(path, "w") as f:
            f.write(MADE[kind]())


def edit_files(specs):
    """--edit SRC|DEST|INDEX|FIELD|JSON: DEST is SRC with FIELD of its
    benchmark entry INDEX ('*': of every entry) set to the JSON value."""
    for spec in specs:
        source, dest, index, field, value = spec.split("|", 4)
        with open(source) as f:
            document = json.load(f)
        entries = document["benchmarks"]
        for entry in entries if index == "*" else [entries[int(index)]]:
            entry[field] = json.loads(value)
        with open(dest, "w") as f:
            json.dump(document, f, indent=1)


def make_sparse(specs):
    """--sparse FILE=BYTES: a file of that size holding nothing (no disk)."""
    for spec in specs:
        path, size = spec.split("=", 1)
        with open(path, "w") as f:
            f.truncate(int(size))


def copy_files(args):
    """--copy FILE=COPY: COPY made afresh as a copy of FILE."""
    for spec in args.copy:
        source, copy = spec.split("=", 1)
        shutil.copyfile(source, tool_test.maybe_bytes(args, copy))


def require(document, keys, where):
    for key in keys:
        if key not in document:
            fail(f"diff JSON: {where} lacks {key!r}")


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
                    fail(f"{name}.{side}: real_time does not hold every repetition")
            if not 0 <= case["p_value"] <= 1:
                fail(f"{name}: p_value {case['p_value']} outside [0, 1]")
            if case["verdict"] not in VERDICTS:
                fail(f"{name}: verdict {case['verdict']!r} not in {sorted(VERDICTS)}")
            expected = case["new"]["median"] / case["old"]["median"] - 1
            if abs(case["change"] - expected) > 1e-9:
                fail(f"{name}: change {case['change']}, medians say {expected}")
        for mean in comparison["geomeans"]:
            require(mean, ["family", "ratio", "change", "cases"], f"{where} geomean")


def check_json(args, out):
    document = tool_test.load_json(args.json, out)
    check_shape(document)
    cases = {c["name"]: c for c in document["comparisons"][0]["cases"]}
    for spec in args.case:
        name, verdict = spec.rsplit("=", 1)
        if name not in cases:
            fail(f"diff JSON: no case {name!r}; it has {sorted(cases)}")
        if cases[name]["verdict"] != verdict:
            fail(f"diff JSON: case {name} is {cases[name]['verdict']!r}, expected {verdict!r}")
    for spec in args.summary:
        key, value = spec.split("=", 1)
        if document["summary"].get(key) != json.loads(value):
            fail(f"diff JSON: summary.{key} is {document['summary'].get(key)!r}, "
                     f"expected {value}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    tool_test.add_command_arguments(parser)
    parser.add_argument("--status", type=int, required=True)
    parser.add_argument("--output", action="append", default=[])
    parser.add_argument("--absent", action="append", default=[])
    parser.add_argument("--json")
    parser.add_argument("--case", action="append", default=[])
    parser.add_argument("--summary", action="append", default=[])
    parser.add_argument("--make", action="append", default=[],
                        help="KIND=FILE: write a generated input first: " + ", ".join(MADE))
    parser.add_argument("--link", action="append", default=[],
                        help="LINK=TARGET: a symbolic link made before the run")
    parser.add_argument("--stdout-file", metavar="PATH=TEXT",
                        help="the run's stdout is appended to PATH, which holds TEXT before")
    parser.add_argument("--copy", action="append", default=[],
                        help="FILE=COPY: a copy of FILE made before the run")
    parser.add_argument("--edit", action="append", default=[],
                        help="SRC|DEST|INDEX|FIELD|JSON: a copy of SRC with a field of its "
                             "entry INDEX ('*': all) set, made before the run")
    parser.add_argument("--sparse", action="append", default=[],
                        help="FILE=BYTES: a sparse file of that size made before the run")
    args = parser.parse_args()
    command = tool_test.command_of(parser, args, "ep-bench")
    args.json = tool_test.maybe_bytes(args, args.json)
    args.output = [tool_test.maybe_bytes(args, text) for text in args.output]
    args.absent = [tool_test.maybe_bytes(args, text) for text in args.absent]
    if args.json not in [spec.split("=", 1)[0] for spec in args.link]:
        tool_test.remove_stale(args.json)
    make_files(args.make)
    tool_test.make_links(args.link)
    copy_files(args)
    make_sparse(args.sparse)
    edit_files(args.edit)

    env = tool_test.environment_of(args)
    if args.stdout_file:
        path, text = tool_test.append_to_stdout_file(args.stdout_file)
        code, out, err = tool_test.launch(command, args.timeout, env=env, stdout_path=path)
        out = tool_test.read_stdout_file(path, text)
        sys.stderr.write(out)
    else:
        code, out, err = tool_test.launch(command, args.timeout, env=env)
    for spec in args.sparse:
        os.remove(spec.split("=", 1)[0])
    tool_test.expect_status(code, args.status)
    tool_test.check_output(args.output, out, err)
    tool_test.check_absent(args.absent, out, err)
    if args.json:
        check_json(args, out)
    tool_test.check_links(args.link)
    print("PASS")


if __name__ == "__main__":
    main()
