"""The scenario names and what each answers; light to import (the CLI builds its choices here)."""

from __future__ import annotations

#: Every scenario, in the order a full run measures them.
SCENARIOS: dict[str, str] = {
    "throughput": "N one-shot actions due at once: actions/s vs APScheduler, SQLite/PostgreSQL",
    "lateness": "steady 10/100/1000 actions/s: p50/p99/max lateness, ours vs APScheduler",
    "scale": "many rules over many tenants: load time, RSS, idle CPU, API list p99",
    "sandbox": "per-run overhead of each runtime; runs/s with both cores busy",
    "preview": "schedule evaluation median/p99; pathological rejection time",
    "next_after": "next_after of SECONDLY/MINUTELY/HOURLY rules vs `every Ns` and APScheduler",
    "multinode": "1, 2, 3 workers on PostgreSQL: actions/s and duplicates (must be 0)",
    "fairness": "a tenant saturating the node: the other tenant's lateness and misfires",
    "soak": "tenants' rules under 0/1/16/64 API clients: runs/s, lateness, API, loss check",
}
#: Scenarios run only when named (`cadenza bench soak`): too long for the whole suite's budget.
ON_REQUEST = frozenset({"soak"})
