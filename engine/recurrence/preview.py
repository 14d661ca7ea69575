"""What a user sees before saving a rule: text, next dates, where it ends, and warnings.

`preview_json` is the one JSON shape shared by `cadenza preview --json` and the REST API.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from itertools import islice
from typing import Any

from engine.recurrence import wording as w
from engine.recurrence.calendars import Skipped, skipped_between
from engine.recurrence.errors import ScheduleError
from engine.recurrence.gaps import merged_walls, skipped_walls
from engine.recurrence.schedule import Schedule
from engine.recurrence.series import Occurrence
from engine.recurrence.wall_rule import EndsBy
from engine.recurrence.zones import WallMapping, is_repeated

#: The most occurrences one preview lists.
MAX_PREVIEW = 1000


@dataclass(frozen=True)
class PreviewOccurrence:
    """One listed occurrence and, when DST moved or doubled it, a note saying so."""

    at: datetime
    note: str | None = None


@dataclass(frozen=True)
class Preview:
    """The preview of a schedule after a given instant."""

    text: str
    complete: bool
    occurrences: list[datetime]
    finite: bool
    ends: datetime | None
    ends_by: str | None
    warnings: list[str] = field(default_factory=list)
    notes: list[PreviewOccurrence] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)


def preview(schedule: Schedule, after: datetime, count: int = 10) -> Preview:
    """The next `count` (1..MAX_PREVIEW) occurrences strictly after `after`, with context."""
    if not 1 <= count <= MAX_PREVIEW:
        raise ScheduleError(f"count={count}: must be 1..{MAX_PREVIEW}")
    found = list(islice(schedule.occurrences_after(after), count))
    source = schedule.source
    mapping: WallMapping | None = getattr(source, "mapping", None)
    notes = [PreviewOccurrence(o.at, _note(o, mapping)) for o in found]
    description = schedule.describe()
    warnings = list(source.warnings())
    warnings += [_gap_warning(o) for o in found if mapping and _is_shifted(o)]
    if found:
        warnings += _skipped_warnings(schedule, after, found[-1].at)
        warnings += [
            w.NOTE_GAP_MERGED.format(
                wall=f"{m.wall:%H:%M}", day=m.wall.date(), at=f"{m.at:%Y-%m-%d %H:%M}"
            )
            for m in merged_walls(schedule, after, found[-1].at)
        ]
    elif schedule.calendars.items:
        warnings.append(w.WARN_CALENDARS_EXCLUDE_ALL)
    ends_by = source.ends_by
    warnings += _horizon_warnings(source, ends_by)
    warnings += _excluded_end_warnings(schedule)
    drift = getattr(source, "drift", None)
    if drift is not None and (text := drift(after)) is not None:
        warnings.append(text)
    return Preview(
        text=description.text,
        complete=description.complete,
        occurrences=[o.at for o in found],
        finite=ends_by in (EndsBy.COUNT, EndsBy.UNTIL),
        ends=source.ends,
        ends_by=str(ends_by) if ends_by else None,
        warnings=list(dict.fromkeys(warnings)),
        notes=notes,
        skipped=_calendar_skips(schedule, after, found, count),
    )


def preview_json(p: Preview) -> dict[str, Any]:
    """The JSON object of `cadenza preview --json` and of the REST preview endpoint."""
    return {
        "text": p.text,
        "complete": p.complete,
        "occurrences": [at.isoformat() for at in p.occurrences],
        "finite": p.finite,
        "ends": p.ends.isoformat() if p.ends else None,
        "ends_by": p.ends_by,
        "warnings": p.warnings,
        "notes": [{"at": n.at.isoformat(), "note": n.note} for n in p.notes if n.note],
        "skipped": [
            {"at": s.at.isoformat(), "calendar": s.calendar, "note": skip_note(s.calendar)}
            for s in p.skipped
        ],
    }


def skip_note(calendar: str) -> str:
    """How the preview and the timeline name an occurrence a calendar removed."""
    return w.NOTE_CALENDAR_SKIP.format(calendar=calendar)


def _calendar_skips(
    schedule: Schedule, after: datetime, found: list[Occurrence], count: int
) -> list[Skipped]:
    """The occurrences the calendars removed up to the last listed one, or to the series' end
    when fewer than `count` are left."""
    if not schedule.calendars.items:
        return []
    is_full = len(found) == count
    until = found[-1].at if is_full else datetime.max.replace(tzinfo=after.tzinfo)
    return skipped_between(schedule.unfiltered_after, schedule.calendars, after, until, MAX_PREVIEW)


def _horizon_warnings(source: Any, ends_by: EndsBy | None) -> list[str]:
    """The cap, said as what it is: where it stops and what it counts from."""
    horizon = getattr(source, "horizon", None)
    if ends_by is not EndsBy.CAP or horizon is None or horizon.cap is None:
        return []
    since = horizon.counted_from.date()
    return [w.WARN_CAP.format(day=horizon.cap.date(), years=horizon.years, since=since)]


def _excluded_end_warnings(schedule: Schedule) -> list[str]:
    """`ends` is the series' last occurrence before calendars: say so when a calendar removes
    it (the last run is then an earlier one)."""
    ends = schedule.source.ends
    blocker = schedule.calendars.blocking(ends.date()) if ends is not None else None
    if ends is None or blocker is None:
        return []
    return [w.WARN_END_EXCLUDED.format(day=ends.date(), calendar=blocker.name)]


def _is_shifted(occurrence: Occurrence) -> bool:
    return occurrence.at.replace(tzinfo=None) != occurrence.wall


def _note(occurrence: Occurrence, mapping: WallMapping | None) -> str | None:
    """How DST resolved a wall-time occurrence (elapsed intervals and exact instants have no
    wall time to resolve)."""
    wall, at = occurrence.wall, occurrence.at
    if mapping is None:
        return None
    if _is_shifted(occurrence):
        return w.NOTE_GAP.format(wall=f"{wall:%Y-%m-%d %H:%M}", at=f"{at:%H:%M}")
    if not is_repeated(wall, mapping.zone):
        return None
    if mapping.repeat_both:
        template = w.NOTE_REPEAT_SECOND if at.fold else w.NOTE_REPEAT_BOTH
    else:
        template = w.NOTE_REPEAT_FIRST
    return template.format(wall=f"{wall:%H:%M}", day=wall.date(), at=at.isoformat())


def _gap_warning(occurrence: Occurrence) -> str:
    wall, at = occurrence.wall, occurrence.at
    return w.NOTE_GAP_SKIPPED.format(wall=f"{wall:%H:%M}", day=wall.date(), at=f"{at:%H:%M}")


def _skipped_warnings(schedule: Schedule, after: datetime, last: datetime) -> list[str]:
    """Wall times the listed range skips because they fall in a DST gap (dst_gap=skip, or a
    cron wildcard job): nothing is listed for them, so say so."""
    return [
        w.NOTE_SKIPPED.format(wall=f"{s.wall:%H:%M}", day=s.wall.date())
        for s in skipped_walls(schedule, after, last, MAX_PREVIEW)
    ]
