"""`cadenza bench [--quick] [SCENARIO...]`: the benchmark suite, side by side with APScheduler.

The suite lives in the `bench` package and needs the dev extras (APScheduler, matplotlib,
psutil, psycopg); without them the command says so instead of failing with a traceback.
"""

from __future__ import annotations

from pathlib import Path

import click
import uvloop

from api.cli.exits import EXIT_FAILED, fail
from bench.catalog import SCENARIOS


@click.command()
@click.argument("scenarios", nargs=-1, type=click.Choice(list(SCENARIOS)))
@click.option("--quick", is_flag=True, help="Small sizes: the whole suite in under two minutes.")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Results directory [default: bench/results].",
)
def bench(scenarios: tuple[str, ...], quick: bool, out: Path | None) -> None:
    """Measure Cadenza (every scenario but soak by default); write bench/results/<date>.json/.md.

    Every figure is a median over repeats; ratios against APScheduler 3.x are computed pair
    by pair in the same run. A full run takes up to 15 minutes on two cores.
    """
    try:
        from bench.context import Mode
        from bench.suite import RESULTS_DIR, exit_on_sigterm, run_suite, statuses, summary_line
    except ImportError as exc:
        fail(f"the benchmark needs the dev extras ({exc.name} is missing): pip install -e '.[dev]'")
    command = " ".join(["cadenza bench", *(["--quick"] if quick else []), *scenarios])
    mode = Mode.QUICK if quick else Mode.FULL
    exit_on_sigterm()
    path = uvloop.run(run_suite(scenarios, mode, out or RESULTS_DIR, command))
    click.echo(summary_line(path))
    if "failed" in statuses(path).values():
        raise SystemExit(EXIT_FAILED)
