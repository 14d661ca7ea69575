"""RFC 5545 §3.8.5.3 examples through `POST /v1/preview` (the full table is in the schedule tests).

Each row: the RFC's DTSTART/RRULE text and the first local wall times it lists. `after` is a
minute before DTSTART, because preview lists occurrences strictly after it. A preview is
computed, never stored: those tests run against the SQLite server only; the saved rules' run
against both.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from support.api_servers import SQLITE_SERVER_ONLY

NY = "DTSTART;TZID=America/New_York:"

RFC_EXAMPLES = [
    pytest.param(
        NY + "19970902T090000\nRRULE:FREQ=DAILY;COUNT=10",
        ["1997-09-02T09:00", "1997-09-03T09:00", "1997-09-04T09:00"],
        id="daily-for-10-occurrences",
    ),
    pytest.param(
        NY + "19970902T090000\nRRULE:FREQ=DAILY;INTERVAL=10;COUNT=5",
        [
            "1997-09-02T09:00",
            "1997-09-12T09:00",
            "1997-09-22T09:00",
            "1997-10-02T09:00",
            "1997-10-12T09:00",
        ],
        id="every-10-days-5-occurrences",
    ),
    pytest.param(
        NY + "19970902T090000\nRRULE:FREQ=WEEKLY;UNTIL=19971007T000000Z;WKST=SU;BYDAY=TU,TH",
        [
            "1997-09-02T09:00",
            "1997-09-04T09:00",
            "1997-09-09T09:00",
            "1997-09-11T09:00",
            "1997-09-16T09:00",
            "1997-09-18T09:00",
            "1997-09-23T09:00",
            "1997-09-25T09:00",
            "1997-09-30T09:00",
            "1997-10-02T09:00",
        ],
        id="weekly-tue-thu-for-5-weeks",
    ),
    pytest.param(
        NY + "19970905T090000\nRRULE:FREQ=MONTHLY;COUNT=10;BYDAY=1FR",
        [
            "1997-09-05T09:00",
            "1997-10-03T09:00",
            "1997-11-07T09:00",
            "1997-12-05T09:00",
            "1998-01-02T09:00",
            "1998-02-06T09:00",
        ],
        id="monthly-first-friday",  # crosses the October DST change: still 09:00 local
    ),
    pytest.param(
        NY + "19970902T090000\nEXDATE;TZID=America/New_York:19970902T090000\n"
        "RRULE:FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13",
        [
            "1998-02-13T09:00",
            "1998-03-13T09:00",
            "1998-11-13T09:00",
            "1999-08-13T09:00",
            "2000-10-13T09:00",
        ],
        id="every-friday-the-13th-exdate",
    ),
    pytest.param(
        NY + "19970929T090000\nRRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1",
        [
            "1997-09-30T09:00",
            "1997-10-31T09:00",
            "1997-11-28T09:00",
            "1997-12-31T09:00",
            "1998-01-30T09:00",
            "1998-02-27T09:00",
            "1998-03-31T09:00",
        ],
        id="last-work-day-of-month-bysetpos",
    ),
    pytest.param(
        NY + "19961105T090000\nRRULE:FREQ=YEARLY;INTERVAL=4;BYMONTH=11;BYDAY=TU;"
        "BYMONTHDAY=2,3,4,5,6,7,8",
        ["1996-11-05T09:00", "2000-11-07T09:00", "2004-11-02T09:00"],
        id="us-presidential-election-day",
    ),
    pytest.param(
        NY + "19970805T090000\nRRULE:FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=MO",
        ["1997-08-05T09:00", "1997-08-10T09:00", "1997-08-19T09:00", "1997-08-24T09:00"],
        id="wkst-monday",
    ),
    pytest.param(
        NY + "19970805T090000\nRRULE:FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=SU",
        ["1997-08-05T09:00", "1997-08-17T09:00", "1997-08-19T09:00", "1997-08-31T09:00"],
        id="wkst-sunday",
    ),
    pytest.param(
        NY + "20070115T090000\nRRULE:FREQ=MONTHLY;BYMONTHDAY=15,30;COUNT=5",
        [
            "2007-01-15T09:00",
            "2007-01-30T09:00",
            "2007-02-15T09:00",
            "2007-03-15T09:00",
            "2007-03-30T09:00",
        ],
        id="invalid-dates-are-skipped-feb-30",
    ),
    pytest.param(
        NY + "19970902T090000\nRRULE:FREQ=DAILY;BYHOUR=9,10,11,12,13,14,15,16;BYMINUTE=0,20,40",
        ["1997-09-02T09:00", "1997-09-02T09:20", "1997-09-02T09:40", "1997-09-02T10:00"],
        id="every-20-minutes-9-to-1640",
    ),
]


def _dtstart_minus_a_minute(schedule: str) -> str:
    stamp = schedule.split(":", 1)[1][:15]  # 19970902T090000
    start = datetime.strptime(stamp, "%Y%m%dT%H%M%S").replace(tzinfo=ZoneInfo("America/New_York"))
    return (start - timedelta(minutes=1)).isoformat()


@SQLITE_SERVER_ONLY
@pytest.mark.parametrize(("schedule", "expected"), RFC_EXAMPLES)
def test_rfc5545_example(new_tenant, schedule: str, expected: list[str]) -> None:
    t = new_tenant()
    body = {
        "schedule": schedule,
        "timezone": "America/New_York",
        "after": _dtstart_minus_a_minute(schedule),
        "count": len(expected),
    }
    answer = t.viewer.post("/v1/preview", json=body)
    assert answer.status_code == 200, answer.text
    occurrences = answer.json()["occurrences"]
    assert [o[:16] for o in occurrences] == expected
    assert all(o[-6:] in ("-04:00", "-05:00") for o in occurrences)


@SQLITE_SERVER_ONLY
def test_preview_reports_text_end_and_finiteness(new_tenant) -> None:
    t = new_tenant()
    body = {"schedule": NY + "19970902T090000\nRRULE:FREQ=DAILY;COUNT=10", "count": 2,
            "after": "1997-09-01T00:00:00-04:00"}  # fmt: skip
    data = t.viewer.post("/v1/preview", json=body).json()
    assert data["finite"] is True and data["ends_by"] == "count"
    assert data["ends"].startswith("1997-09-11T09:00")
    assert "day" in data["text"]


def test_preview_matches_the_cli_json(new_tenant) -> None:
    """The API and `cadenza preview --json` are the same code, so the same JSON."""
    import json

    from support.processes import run_cli

    t = new_tenant()
    args = ["30 9 * * 1-5", "--tz", "Europe/Berlin", "--after", "2026-03-27T00:00:00+00:00"]
    done = run_cli("preview", *args, "--count", "5", "--json")
    assert done.returncode == 0, done.stderr
    body = {"schedule": "30 9 * * 1-5", "timezone": "Europe/Berlin",
            "after": "2026-03-27T00:00:00+00:00", "count": 5}  # fmt: skip
    assert t.viewer.post("/v1/preview", json=body).json() == json.loads(done.stdout)


def test_preview_applies_the_tenant_min_interval(new_tenant, problem) -> None:
    t = new_tenant(quotas={"min_interval_s": 3600})
    refused = t.viewer.post("/v1/preview", json={"schedule": "every 15m"})
    body = problem(refused, 422)
    assert body["errors"][0]["field"] == "schedule"


@SQLITE_SERVER_ONLY
def test_every_rfc5545_example_gives_its_whole_series(new_tenant) -> None:
    """DTSTART in 1997, previewed from 1996: no date is cut by the horizon."""
    from support.rfc5545_examples import EXAMPLES

    t = new_tenant()
    for name, text, expected, whole in EXAMPLES:
        body = {"schedule": text, "after": "1996-01-01T00:00:00Z", "count": len(expected) + 1}
        answer = t.viewer.post("/v1/preview", json=body)
        assert answer.status_code == 200, (name, answer.text)
        got = [o[:16].replace("T", " ") for o in answer.json()["occurrences"]]
        assert got[: len(expected)] == expected, name
        if whole:
            assert len(got) == len(expected), name


@SQLITE_SERVER_ONLY
def test_old_dtstart_with_until_and_count_are_honoured(new_tenant) -> None:
    t = new_tenant()
    for text, ends in [
        ("DTSTART:20170101T090000Z RRULE:FREQ=DAILY;UNTIL=20300101T000000Z", "2029-12-31T09:00"),
        ("DTSTART:20150101T090000Z RRULE:FREQ=DAILY;COUNT=5000", "2028-09-08T09:00"),
    ]:
        body = {"schedule": text, "after": "2026-03-01T00:00:00Z", "count": 2}
        data = t.viewer.post("/v1/preview", json=body).json()
        assert data["occurrences"] == ["2026-03-01T09:00:00+00:00", "2026-03-02T09:00:00+00:00"]
        assert data["ends"].startswith(ends)
        assert not any("horizon" in warning for warning in data["warnings"])


CLI_AND_API = [
    # schedules whose whole preview (text, dates, end, warnings, notes) both must agree on
    ("FREQ=DAILY;BYHOUR=2;BYMINUTE=30", "Europe/Berlin", "2026-03-27T00:00:00+00:00"),
    ("DTSTART;TZID=America/New_York:20240310T000000 RRULE:FREQ=HOURLY;COUNT=5", "UTC",
     "2024-03-09T00:00:00Z"),
    ("*/10 9-17 * * MON-FRI", "Europe/Berlin", "2026-03-27T00:00:00+01:00"),
    ("every 24h", "Europe/Berlin", "2026-03-27T08:00:00Z"),
    ("every month on the last weekday at 18:00", "UTC", "2026-01-01T00:00:00Z"),
    ("2027-03-28T02:30:00", "Europe/Berlin", "2026-03-27T00:00:00Z"),
]  # fmt: skip


@pytest.mark.parametrize(("schedule", "zone", "after"), CLI_AND_API)
def test_cli_and_api_give_the_same_preview(
    new_tenant, schedule: str, zone: str, after: str
) -> None:
    import json

    from support.processes import run_cli

    t = new_tenant()
    done = run_cli("preview", schedule, "--tz", zone, "--after", after, "--count", "6", "--json")
    assert done.returncode == 0, done.stderr
    body = {"schedule": schedule, "timezone": zone, "after": after, "count": 6}
    assert t.viewer.post("/v1/preview", json=body).json() == json.loads(done.stdout)


def test_after_without_an_offset_is_refused_alike_by_cli_and_api(new_tenant, problem) -> None:
    from support.processes import run_cli

    t = new_tenant()
    naive = "2026-03-27T00:00:00"
    refused = t.viewer.post("/v1/preview", json={"schedule": "FREQ=DAILY", "after": naive})
    message = problem(refused, 422)["errors"][0]["message"]
    assert "has no offset: an instant is ISO 8601 text with an offset" in message
    done = run_cli("preview", "FREQ=DAILY", "--after", naive)
    assert done.returncode == 2
    assert message in done.stderr


@SQLITE_SERVER_ONLY
def test_a_long_bad_token_is_quoted_short_in_the_problem(new_tenant, problem) -> None:
    t = new_tenant()
    answer = t.viewer.post("/v1/preview", json={"schedule": "FREQ=DAILY;BYHOUR=" + "9" * 10_000})
    body = problem(answer, 422)
    assert len(answer.content) < 1500
    assert "9" * 81 not in answer.text
    assert body["errors"][0]["message"].startswith("BYHOUR=999")


@SQLITE_SERVER_ONLY
def test_same_cadence_in_two_spellings_gets_the_same_answer(new_tenant, problem) -> None:
    t = new_tenant(quotas={"min_interval_s": 1, "allow_secondly": True})
    for spelling in ("FREQ=SECONDLY;INTERVAL=2;COUNT=5000", "every 2s"):
        answer = t.viewer.post("/v1/preview", json={"schedule": spelling, "count": 3})
        assert answer.status_code == 200, answer.text
    strict = new_tenant(quotas={"min_interval_s": 60})
    reasons = set()
    for spelling in ("FREQ=SECONDLY;INTERVAL=30", "every 30s", "PT30S"):
        answer = strict.viewer.post("/v1/preview", json={"schedule": spelling})
        reasons.add(problem(answer, 422)["errors"][0]["message"])
    assert reasons == {
        "runs 30 s apart at the closest; this tenant's minimum is 60 s (min_interval_s)"
    }


def test_saved_rule_with_old_dtstart_keeps_its_until(new_tenant) -> None:
    """Stored on both databases: the rule's text and its next run honour UNTIL 2030."""
    t = new_tenant()
    rule = {
        "name": "imported",
        "schedule": "DTSTART:20170101T090000Z\nRRULE:FREQ=DAILY;UNTIL=20300101T000000Z",
        "code": "def main(ctx):\n    pass\n",
    }
    created = t.editor.post("/v1/rules", json=rule)
    assert created.status_code == 201, created.text
    data = created.json()
    assert "until January 1, 2030" in data["schedule_text"]
    assert data["next_run_at"] is not None
    fetched = t.viewer.get(f"/v1/rules/{data['id']}").json()
    assert fetched["schedule_text"] == data["schedule_text"]


def test_saved_rule_counts_runs_across_a_dst_gap(new_tenant) -> None:
    """A stored COUNT rule plans the runs the preview promised: five, the merged 02:00 not one
    of them (the rule's own upcoming dates, read back from either database)."""
    t = new_tenant()
    schedule = "DTSTART;TZID=America/New_York:20270314T000000\nRRULE:FREQ=HOURLY;COUNT=5"
    created = t.editor.post(
        "/v1/rules",
        json={"name": "dst", "schedule": schedule, "code": "def main(ctx):\n    pass\n"},
    )
    assert created.status_code == 201, created.text
    rule = created.json()
    assert rule["schedule_text"].startswith("every hour at :00 for 5 times")
    upcoming = t.viewer.post(f"/v1/rules/{rule['id']}/preview?count=10", json={}).json()["before"]
    local = [datetime.fromisoformat(at).astimezone(ZoneInfo("America/New_York")) for at in upcoming]
    assert [f"{at:%H:%M}" for at in local] == ["00:00", "01:00", "03:00", "04:00", "05:00"]


def test_secondly_rules_one_to_four_seconds_apart_are_saved_like_every_ns(new_tenant) -> None:
    """Issue 25: `FREQ=SECONDLY;INTERVAL=1..4` (with COUNT=5000 or open-ended) was refused as
    too many occurrences in one period while `every Ns` was saved: both spellings are now
    checked by the same quota, and saved alike."""
    t = new_tenant(quotas={"min_interval_s": 1, "allow_secondly": True})
    code = "def main(ctx):\n    pass\n"
    for seconds in range(1, 5):
        for spelling in (
            f"FREQ=SECONDLY;INTERVAL={seconds};COUNT=5000",
            f"FREQ=SECONDLY;INTERVAL={seconds}",
            f"every {seconds}s",
        ):
            rule = {"name": f"s{seconds}", "schedule": spelling, "code": code, "enabled": False}
            answer = t.editor.post("/v1/rules", json=rule)
            assert answer.status_code == 201, (spelling, answer.text)
