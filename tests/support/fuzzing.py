"""Running Schemathesis against a live server's /openapi.json (the API's fuzzing tests).

Excluded, with reasons: `positive_data_acceptance` (a schedule or script can be schema-valid
text and still wrong, so a 422 there is correct). The stateful phase is left out, and the
tenant routes are fuzzed in two files, so that each run stays near a minute on a small
machine and the two can run in parallel workers.

The coverage phase (every boundary of every constrained field: most of a run's cases, and
about five sixths of its time) runs against one database per group of routes (`coverage_on`):
the same inputs meet the same validation before either store, which refuses what the stricter
one would (NUL characters, unpaired surrogates, out-of-range integers). Against the other
database the run fuzzes more random cases instead.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from support.processes import Server, cli_env

SCHEMATHESIS = str(Path(sys.executable).with_name("schemathesis"))
#: Random cases per operation: with the coverage phase, and without it.
EXAMPLES_WITH_COVERAGE = 2
EXAMPLES_WITHOUT_COVERAGE = 3
#: A tenant route that would end the run: the fuzzer would revoke the key it is using.
REVOKE_OWN_KEY = ("--exclude-operation-id", "revoke_api_key_v1_keys__key_id__delete")
#: The subprocess's limit; the tests that call `fuzz` allow it more than that.
FUZZ_TIMEOUT_S = 400


def fuzz(
    server: Server, token: str, *scope: str, cwd: Path, coverage_on: str = "postgresql"
) -> subprocess.CompletedProcess[str]:
    """One Schemathesis run over the operations `scope` selects, with a fixed seed; with the
    coverage phase when the server's database is `coverage_on`."""
    covered = server.database_url.startswith(coverage_on)
    examples = EXAMPLES_WITH_COVERAGE if covered else EXAMPLES_WITHOUT_COVERAGE
    return subprocess.run(
        [
            SCHEMATHESIS,
            "run",
            f"{server.base_url}/openapi.json",
            "--header",
            f"Authorization: Bearer {token}",
            "--checks",
            "all",
            "--exclude-checks",
            "positive_data_acceptance",
            "--max-examples",
            str(examples),
            "--seed",
            "20261123",
            "--generation-database",
            "none",
            "--phases",
            "examples,coverage,fuzzing" if covered else "examples,fuzzing",
            "--no-color",
            *scope,
        ],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=FUZZ_TIMEOUT_S,
        env=cli_env(),
    )


def failures(done: subprocess.CompletedProcess[str]) -> str:
    """The FAILURES section of the report (cut short: request bodies can be megabytes)."""
    text = done.stdout
    start = text.find("FAILURES")
    return "\n".join(line[:300] for line in text[start:].splitlines()[:120]) + done.stderr[-2000:]
