"""The result limit as a property, on real workers: for any limit and any returned text near
it, in every runtime that returns values, the run is `ok` with the value intact exactly when
the value's JSON fits the limit, and `output_limit` naming the limit when it does not. (The
result-flood bomb in tests/security is one example of the far side.)"""

from __future__ import annotations

import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sandbox import Limits, OutcomeStatus

pytestmark = pytest.mark.asyncio(loop_scope="module")

#: Characters that JSON encodes as themselves in every runtime, so the encoded size is the
#: text's length plus its two quotes.
PLAIN = st.text(st.sampled_from(string.ascii_letters + string.digits + " .-_"), max_size=1)


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    runtime=st.sampled_from(["python", "micropython"]),
    limit=st.integers(16, 4096),
    off_by=st.sampled_from([-1, 0, 1]) | st.integers(-24, 24),  # the edge, and around it
    fill=PLAIN.filter(bool),
)
async def test_a_result_is_kept_exactly_when_its_json_fits_the_limit(
    run, runtime: str, limit: int, off_by: int, fill: str
) -> None:
    text = fill * max(0, limit - 2 + off_by)
    outcome = await run(
        runtime, f"def main(ctx):\n    return {text!r}\n", Limits(result_bytes=limit)
    )
    if len(text) + 2 <= limit:
        assert outcome.status is OutcomeStatus.OK, outcome.error
        assert outcome.result == text
    else:
        assert outcome.status is OutcomeStatus.OUTPUT_LIMIT, outcome
        assert f"limit {limit} bytes" in (outcome.error or "")
