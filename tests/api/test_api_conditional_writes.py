"""Conditional writes are atomic: the version named by If-Match is checked by the statement
that writes, so of two changes made from the same ETag exactly one wins and the other is
answered 412 (or 404 once the rule is gone), whatever their timing."""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial

import httpx
import pytest

SCRIPT = "def main(ctx):\n    return 1\n"
RULE = {"name": "race", "schedule": "every 1h", "timezone": "UTC", "code": SCRIPT}
ROUNDS = 12


def _at_once(*calls: Callable[[], httpx.Response]) -> list[httpx.Response]:
    """Run the calls on threads released together; their answers, in order."""
    barrier = threading.Barrier(len(calls))
    answers: list[httpx.Response | None] = [None] * len(calls)

    def run(index: int) -> None:
        barrier.wait()
        answers[index] = calls[index]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert all(answer is not None for answer in answers)
    return answers  # type: ignore[return-value]


def test_patch_between_etag_read_and_delete_is_kept_and_delete_is_412(new_tenant, problem) -> None:
    t = new_tenant()
    rule = t.editor.post("/v1/rules", json=RULE).json()
    etag = t.viewer.get(f"/v1/rules/{rule['id']}").headers["ETag"]
    edited = t.editor.patch(
        f"/v1/rules/{rule['id']}", json={"name": "kept"}, headers={"If-Match": etag}
    )
    assert edited.status_code == 200, edited.text
    body = problem(t.editor.delete(f"/v1/rules/{rule['id']}", headers={"If-Match": etag}), 412)
    assert body["current_version"] == edited.json()["version"]
    assert t.viewer.get(f"/v1/rules/{rule['id']}").json()["name"] == "kept"


def test_concurrent_patch_and_delete_from_one_etag_never_both_succeed(new_tenant) -> None:
    t = new_tenant()
    outcomes = set()
    for n in range(ROUNDS):
        rule = t.editor.post("/v1/rules", json={**RULE, "name": f"race-{n}"}).json()
        path, etag = f"/v1/rules/{rule['id']}", f'"{rule["version"]}"'
        condition = {"If-Match": etag}
        patched, deleted = _at_once(
            partial(t.editor.patch, path, json={"name": f"edit-{n}"}, headers=condition),
            partial(t.editor.delete, path, headers=condition),
        )
        now = t.viewer.get(path)
        if deleted.status_code == 204:
            assert patched.status_code in (404, 412), patched.text
            assert now.status_code == 404
        else:
            assert (patched.status_code, deleted.status_code) == (200, 412), deleted.text
            assert now.json()["name"] == f"edit-{n}"
        outcomes.add(deleted.status_code)
    assert outcomes <= {204, 412}


@pytest.mark.parametrize("action", ["pause", "resume"])
def test_pause_and_resume_take_if_match_like_any_change(new_tenant, problem, action: str) -> None:
    t = new_tenant()
    rule = t.editor.post("/v1/rules", json={**RULE, "enabled": action == "pause"}).json()
    path = f"/v1/rules/{rule['id']}"
    etag = f'"{rule["version"]}"'
    t.editor.patch(path, json={"name": "changed meanwhile"})
    body = problem(t.editor.post(f"{path}/{action}", headers={"If-Match": etag}), 412)
    assert body["current_version"] == rule["version"] + 1
    assert t.viewer.get(path).json()["enabled"] == (action == "pause")  # nothing changed
    current = t.viewer.get(path).headers["ETag"]
    done = t.editor.post(f"{path}/{action}", headers={"If-Match": current})
    assert done.status_code == 200 and done.json()["enabled"] == (action == "resume")
    assert done.headers["ETag"] == f'"{done.json()["version"]}"' != current


def test_concurrent_edits_from_one_etag_keep_exactly_one(new_tenant) -> None:
    """Two edits and a pause from one ETag: exactly one edit wins; the pause wins too when it
    came first (a pause leaves the ETag current), and is 412 when an edit came first."""
    t = new_tenant()
    for n in range(ROUNDS):
        rule = t.editor.post("/v1/rules", json={**RULE, "name": f"edits-{n}"}).json()
        path, etag = f"/v1/rules/{rule['id']}", f'"{rule["version"]}"'
        condition = {"If-Match": etag}
        *edits, pause = _at_once(
            partial(t.editor.patch, path, json={"name": "a"}, headers=condition),
            partial(t.editor.patch, path, json={"name": "b"}, headers=condition),
            partial(t.editor.post, f"{path}/pause", headers=condition),
        )
        won = [a for a in edits if a.status_code == 200]
        assert sorted(a.status_code for a in edits) == [200, 412], [a.text for a in edits]
        assert pause.status_code in (200, 412), pause.text
        paused = pause.status_code == 200
        final = t.viewer.get(path).json()
        assert final["version"] == rule["version"] + 1 + paused
        assert (final["name"], final["enabled"]) == (won[0].json()["name"], not paused)
        if paused:
            assert won[0].json()["enabled"] is False, "the pause came first, the edit kept it"


@pytest.mark.parametrize("toggles", [["pause"], ["pause", "resume"], ["pause", "resume", "pause"]])
def test_an_etag_read_before_a_pause_or_resume_still_guards_an_edit(
    new_tenant, problem, toggles: list[str]
) -> None:
    t = new_tenant()
    rule = t.editor.post("/v1/rules", json=RULE).json()
    path, etag = f"/v1/rules/{rule['id']}", f'"{rule["version"]}"'
    for toggle in toggles:
        assert t.editor.post(f"{path}/{toggle}", headers={"If-Match": etag}).status_code == 200
    edited = t.editor.patch(path, json={"name": "edited"}, headers={"If-Match": etag})
    assert edited.status_code == 200, edited.text
    assert edited.json()["version"] == rule["version"] + len(toggles) + 1
    for stale in (
        t.editor.patch(path, json={"name": "lost"}, headers={"If-Match": etag}),
        t.editor.post(f"{path}/resume", headers={"If-Match": etag}),
        t.editor.delete(path, headers={"If-Match": etag}),
    ):
        assert problem(stale, 412)["current_version"] == edited.json()["version"]
    assert t.viewer.get(path).json()["name"] == "edited"
    paused_etag = t.editor.post(f"{path}/pause").headers["ETag"]
    assert t.editor.post(f"{path}/resume").status_code == 200
    assert t.editor.delete(path, headers={"If-Match": paused_etag}).status_code == 204
