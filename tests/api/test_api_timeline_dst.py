"""A wall time skipped by a DST gap shows in the timeline over HTTP, with its reason."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

SCRIPT = "def main(ctx):\n    return 1\n"
BERLIN = ZoneInfo("Europe/Berlin")


def test_timeline_shows_the_dst_gap_trace_and_stats_count_it(new_tenant) -> None:
    """02:30 of the last Sunday of March does not exist in Berlin. The server runs on the real
    clock, so the chain is moved there by cancelling its pending occurrences (each cancel plans
    the next one, as a run would)."""
    t = new_tenant()
    body = {
        "name": "last-sunday",
        "schedule": "FREQ=MONTHLY;BYDAY=-1SU;BYHOUR=2;BYMINUTE=30",
        "timezone": "Europe/Berlin",
        "dst_gap": "skip",
        "code": SCRIPT,
    }
    created = t.editor.post("/v1/rules", json=body)
    assert created.status_code == 201, created.text
    rule_id = created.json()["id"]
    traces: list[dict] = []
    for _ in range(14):  # March comes within a year of cancels
        (pending,) = t.viewer.get("/v1/actions", params={"status": "pending"}).json()["items"]
        cancelled = t.editor.post(f"/v1/actions/{pending['id']}/cancel")
        assert cancelled.status_code == 200, cancelled.text
        skipped = t.viewer.get("/v1/actions", params={"status": "skipped"}).json()["items"]
        traces = [a for a in skipped if a["reason"] == "dst_gap"]
        if traces:
            break
    (trace,) = traces
    jump = datetime.fromisoformat(trace["scheduled_at"])
    # the instant the clock jumped: 01:00 UTC, 02:00 CET = 03:00 CEST, on a Sunday in March
    assert (jump.astimezone(UTC).hour, jump.astimezone(UTC).minute) == (1, 0)
    assert (jump.month, jump.astimezone(BERLIN).weekday()) == (3, 6)
    assert jump.astimezone(BERLIN).utcoffset() == timedelta(hours=2)
    window = {
        "from": (jump - timedelta(days=1)).isoformat(),
        "to": (jump + timedelta(days=40)).isoformat(),
    }
    timeline = t.viewer.get(f"/v1/rules/{rule_id}/timeline", params=window)
    assert timeline.status_code == 200, timeline.text
    items = [
        (datetime.fromisoformat(i["scheduled_at"]), i["fate"], i["reason"], i["action_id"])
        for i in timeline.json()["items"]
    ]
    assert len(items) == 2 and items[0] == (jump, "skipped", "dst_gap", trace["id"])
    # the chain goes on to April's last Sunday, at 02:30 summer time
    nxt, fate, reason, _ = items[1]
    assert (fate, reason) == ("pending", None)
    assert (nxt.astimezone(BERLIN).month, nxt.astimezone(BERLIN).hour) == (4, 2)
    stats = t.viewer.get(f"/v1/rules/{rule_id}/stats").json()["stats"]
    assert stats["skips_by_reason"].get("dst_gap") == 1
