#!/usr/bin/env python3
"""Runs scripts/plot.py and checks what it writes or says.

  run_plot_test.py --plot plot.py --python P [--python Q ...] --out PREFIX
      [--svg-text TEXT ...] [--timeout S] -- RESULT.json ...
    Plots with the first interpreter that has matplotlib, or skips (exit
    status 77) when none has. PREFIX-{latency,bandwidth}.{svg,png} must be
    well-formed SVG and PNG; every TEXT must be in an SVG (legend labels).

  run_plot_test.py --plot plot.py --python P --status N --output TEXT
      [--hide-matplotlib] -- ARGS ...
    The run must exit with N and print TEXT. --hide-matplotlib puts a
    matplotlib that fails to import first on the path, as if it were missing.
"""

import argparse
import os
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
import tool_test  # noqa: E402
from tool_test import fail  # noqa: E402

SKIP = 77
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def has_matplotlib(python):
    try:
        return subprocess.run([python, "-c", "import matplotlib"], capture_output=True,
                              timeout=60).returncode == 0
    except OSError:
        return False


def check_svg(path):
    try:
        root = ElementTree.parse(path).getroot()
    except ElementTree.ParseError as e:
        fail(f"{path} is not well-formed XML: {e}")
    if root.tag != "{http://www.w3.org/2000/svg}svg":
        fail(f"{path}: root element {root.tag}, expected svg")
    if not any(element.tag.endswith("path") for element in root.iter()):
        fail(f"{path}: no path drawn")
    return open(path).read()


def check_png(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if not head.startswith(PNG_SIGNATURE) or head[12:16] != b"IHDR":
        fail(f"{path} does not start like a PNG")
    width, height = struct.unpack(">II", head[16:24])
    if width == 0 or height == 0:
        fail(f"{path}: empty image {width}x{height}")


def plot_and_check(args):
    python = next((p for p in args.python if has_matplotlib(p)), None)
    if python is None:
        print(f"SKIP: no matplotlib for {', '.join(args.python)}; "
              "install the Debian package python3-matplotlib")
        sys.exit(SKIP)
    outputs = [f"{args.out}-{kind}.{ext}" for kind in ("latency", "bandwidth")
               for ext in ("svg", "png")]
    for path in outputs:
        if os.path.exists(path):
            os.remove(path)  # a stale file must not pass for this run's
    code, out, _ = tool_test.launch([python, args.plot, "-o", args.out] + args.rest, args.timeout)
    tool_test.expect_status(code, 0)
    svg_text = ""
    for path in outputs:
        if not os.path.exists(path):
            fail(f"{path} was not written")
        if path not in out:
            fail(f"{path} is not in the list of files written")
        if path.endswith(".svg"):
            svg_text += check_svg(path)
        else:
            check_png(path)
    for text in args.svg_text:
        if text not in svg_text:
            fail(f"no SVG contains {text!r}")


def run_and_expect(args):
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as fake:
        if args.hide_matplotlib:
            os.makedirs(os.path.join(fake, "matplotlib"))
            with open(os.path.join(fake, "matplotlib", "__init__.py"), "w") as f:
                f.write("raise ImportError('No module named matplotlib (hidden by the test)')\n")
            env["PYTHONPATH"] = fake + os.pathsep + env.get("PYTHONPATH", "")
        code, out, err = tool_test.launch([args.python[0], args.plot] + args.rest, args.timeout,
                                          env=env)
    tool_test.expect_status(code, args.status)
    tool_test.check_output(args.output, out, err, once=False)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    tool_test.add_command_arguments(parser)
    parser.add_argument("--plot", required=True)
    parser.add_argument("--python", action="append", required=True)
    parser.add_argument("--out")
    parser.add_argument("--svg-text", action="append", default=[])
    parser.add_argument("--status", type=int)
    parser.add_argument("--output", action="append", default=[])
    parser.add_argument("--hide-matplotlib", action="store_true")
    args = parser.parse_args()
    args.rest = tool_test.command_of(parser, args, "plot.py")
    if args.status is not None:
        run_and_expect(args)
    elif args.out:
        plot_and_check(args)
    else:
        parser.error("give --out (plot and check) or --status (expect a message)")
    print("PASS")


if __name__ == "__main__":
    main()
