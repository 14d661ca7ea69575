"""`python -m bench [--quick] [--out DIR] [SCENARIO...]`: the same as `cadenza bench`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import uvloop

from bench.catalog import SCENARIOS
from bench.context import Mode
from bench.suite import RESULTS_DIR, UnknownScenario, exit_on_sigterm, run_suite, summary_line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench",
        description="Cadenza's benchmarks, side by side with APScheduler 3.x in the same run.",
        epilog="scenarios: " + "; ".join(f"{n}: {d}" for n, d in SCENARIOS.items()),
    )
    parser.add_argument("--quick", action="store_true", help="small sizes, under two minutes")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR, help="results directory")
    parser.add_argument("scenarios", nargs="*", metavar="SCENARIO", help="default: all")
    args = parser.parse_args(argv)
    exit_on_sigterm()
    mode = Mode.QUICK if args.quick else Mode.FULL
    command = " ".join(["python -m bench", *(argv if argv is not None else sys.argv[1:])])
    try:
        path = uvloop.run(run_suite(args.scenarios, mode, args.out, command))
    except UnknownScenario as exc:
        parser.error(str(exc))
    print(summary_line(path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
