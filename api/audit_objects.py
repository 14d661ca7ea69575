"""Which object a change is about, named from its route: the audit log's `object_kind`/`object_id`.

The route template says the kind (`/v1/rules/{rule_id}/pause` changes a rule) and which path
parameter is its id. A route that creates its object has no id in the path: the id is the
one its first INSERT wrote. A route about the tenant as a whole (its webhook, its settings)
names the tenant. Routes not in the table are named by their first path segment, so a new
resource is audited before anyone adds it here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class AuditedRoute:
    """The template of the route that served a request, and its path parameters."""

    path: str
    params: Mapping[str, Any]


@dataclass(frozen=True)
class AuditTarget:
    tenant_id: str
    route: str
    kind: str
    object_id: str


#: (route prefix, object kind, path parameter holding its id); the first match wins.
ROUTE_OBJECTS: tuple[tuple[str, str, str | None], ...] = (
    ("/v1/admin/tenants/{tenant_id}/capabilities", "grant", "name"),
    ("/v1/admin/tenants", "tenant", "tenant_id"),
    ("/v1/rules", "rule", "rule_id"),
    ("/v1/calendars", "calendar", "name"),
    ("/v1/notification-routes", "notification_route", "route_id"),
    ("/v1/actions", "action", "action_id"),
    ("/v1/keys", "key", "key_id"),
    ("/v1/secrets", "secret", "name"),
    ("/v1/kv", "data", "key"),
    ("/v1/webhook", "webhook", None),
    ("/v1/http-allowlist", "allow-list", None),
    ("/v1/tenant", "settings", None),
)

Written = Sequence[tuple[str, str, Any]]


class UnattributedChange(RuntimeError):
    """A change was written that names no tenant: a bug of its route. Raised inside the
    commit, so the change rolls back rather than commit without its audit row."""


def audited_object(route: AuditedRoute, tenant_id: str | None, written: Written) -> AuditTarget:
    """The tenant, kind and id of the object `written` changed through `route`."""
    kind, id_param = _kind_of(route.path)
    inserted = _first_inserted_id(written)
    owner = tenant_id or route.params.get("tenant_id") or _inserted_tenant(written)
    if owner is None:
        raise UnattributedChange(f"a change through {route.path} names no tenant")
    object_id = route.params.get(id_param) if id_param else None
    if object_id is None:
        object_id = inserted if inserted is not None and kind != "settings" else owner
    return AuditTarget(str(owner), route.path, kind, str(object_id))


def _kind_of(path: str) -> tuple[str, str | None]:
    for prefix, kind, id_param in ROUTE_OBJECTS:
        if path == prefix or path.startswith(prefix + "/"):
            return kind, id_param
    segments = [s for s in path.split("/") if s and s != "v1" and not s.startswith("{")]
    return (segments[0] if segments else "other"), None


def _first_inserted_id(written: Written) -> Any:
    for _table, statement, rows in written:
        if statement == "insert" and rows and rows[0].get("id") is not None:
            return rows[0]["id"]
    return None


def _inserted_tenant(written: Written) -> Any:
    for table, statement, rows in written:
        if table == "tenants" and statement == "insert" and rows:
            return rows[0].get("id")
    return None
