"""The OpenAPI document states the shape of constrained strings, and the server holds to it:
every zone of the tz database matches the time zone pattern, a name outside it is refused as
`invalid-schedule`, and an If-Match outside the ETag pattern is refused before anything runs."""

from __future__ import annotations

import re
import zoneinfo
from typing import Any

import httpx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


def _schemas(http: httpx.Client) -> dict[str, Any]:
    return http.get("/openapi.json").json()["components"]["schemas"]


def _zone_pattern(http: httpx.Client) -> str:
    zone = _schemas(http)["RuleCreate"]["properties"]["timezone"]["anyOf"][0]
    return str(zone["pattern"])


def test_every_tz_database_zone_matches_the_documented_pattern(http: httpx.Client) -> None:
    pattern = re.compile(_zone_pattern(http))
    names = zoneinfo.available_timezones()
    assert len(names) > 300
    assert [n for n in sorted(names) if not pattern.fullmatch(n)] == []


def test_a_zone_is_previewed_or_refused_as_invalid_schedule_never_else(
    http: httpx.Client, new_tenant, problem
) -> None:
    pattern = re.compile(_zone_pattern(http))
    tenant = new_tenant()
    known = sorted(zoneinfo.available_timezones())

    @settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
    @given(name=st.one_of(st.text(min_size=1, max_size=64), st.sampled_from(known)))
    def check(name: str) -> None:
        body = {"schedule": "every 1h", "timezone": name}
        answer = tenant.viewer.post("/v1/preview", json=body)
        if name in known:
            assert answer.status_code == 200, answer.text
        if answer.status_code == 200:
            assert pattern.fullmatch(name)
        else:
            refused = problem(answer, 422, "invalid-schedule")
            assert refused["errors"][0]["field"] == "timezone"

    check()


def test_the_if_match_header_states_its_pattern(http: httpx.Client) -> None:
    operation = http.get("/openapi.json").json()["paths"]["/v1/rules/{rule_id}"]["patch"]
    (header,) = [p for p in operation["parameters"] if p["name"].lower() == "if-match"]
    pattern = re.compile(header["schema"]["anyOf"][0]["pattern"])
    assert all(pattern.fullmatch(tag) for tag in ('"3"', 'W/"3"', "3", "*"))
    assert not any(pattern.fullmatch(tag) for tag in ("garbage", '"3", "4"', '"1234567890"'))
