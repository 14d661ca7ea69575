"""The blocking client, end to end: preview, create, change safely, errors, data, runs, delete.

Run it against a server (`cadenza serve` prints a key):
    python client/examples/quickstart_sync.py http://127.0.0.1:8000 cdz_...
"""

from __future__ import annotations

import sys

from cadenza_client import Client, InvalidInput, NewRule, RuleChanges, StaleVersion

WEEKDAYS_AT_9 = "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;BYMINUTE=0"
SCRIPT = """\
def main(ctx):
    sent = ctx.kv.get("reminders-sent") or 0
    ctx.kv.set("reminders-sent", sent + 1)
    ctx.emit("reminder", {"text": ctx.params["text"]})
    return sent + 1
"""


def main(base_url: str, key: str) -> None:
    with Client(base_url, key) as cadenza:
        # What would the schedule do? Nothing is saved.
        preview = cadenza.schedules.preview(WEEKDAYS_AT_9, timezone="Europe/Berlin", count=3)
        print("preview:", preview.text, [at.isoformat() for at in preview.occurrences])

        # A rule: only the fields given are sent, the server's defaults apply to the rest.
        rule = cadenza.rules.create(
            NewRule(
                name="stand-up reminder",
                schedule=WEEKDAYS_AT_9,
                timezone="Europe/Berlin",
                code=SCRIPT,
                params={"text": "stand-up in 5 minutes"},
            )
        )
        print("created:", rule.id, "version", rule.version, "next run", rule.next_run_at)

        # Changes take the rule as read: its version is sent as If-Match.
        changed = cadenza.rules.update(rule, RuleChanges(description="for the whole team"))
        try:
            cadenza.rules.update(rule, RuleChanges(description="an edit of an old copy"))
        except StaleVersion as stale:
            print("stale:", "the rule is at version", stale.current_version, "now")

        # Every error of the API is an exception of its problem type, naming the field.
        try:
            cadenza.rules.create(NewRule(name="bad", schedule="FREQ=DAILY;BYHOUR=25", code=SCRIPT))
        except InvalidInput as problem:  # InvalidSchedule, here as from the preview
            print("refused:", problem.field, "-", problem.detail)

        # Try the script once in the real sandbox: nothing is saved or applied.
        trial = cadenza.rules.test_run(SCRIPT, params={"text": "hello"})
        print("test run:", trial.status, "result", trial.result, "would write", trial.kv_changes)

        # The tenant's data, as the script sees it.
        cadenza.kv.put("reminders-sent", 41)
        print("data:", cadenza.kv.get("reminders-sent").value)

        # Lists iterate over every page; `page()` reads one page and its cursor.
        print("rules:", [r.name for r in cadenza.rules.list()])
        print("runs so far:", sum(1 for _ in cadenza.runs.list(rule=changed)))

        cadenza.rules.delete(changed)
        print("deleted:", changed.id)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
