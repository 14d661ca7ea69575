"""The audit log: `/v1/audit` for a tenant's admin, `/v1/admin/tenants/{id}/audit` for the
operator. Read-only, as the log is."""

from __future__ import annotations

from typing import Any

from cadenza_client.call import Call, Route, reading
from cadenza_client.endpoint import Resource, S, listing, operation
from cadenza_client.models.audit import AuditEntry, AuditFilter
from cadenza_client.models.base import Page
from cadenza_client.models.tenants import Tenant


def _query(filters: AuditFilter | None, limit: int | None, cursor: str | None) -> dict[str, Any]:
    given = {} if filters is None else filters.model_dump(exclude_none=True)
    return {**given, "limit": limit, "cursor": cursor}


class Audit(Resource[S]):
    """The changes made in your tenant (admin key), oldest first."""

    @operation("GET", "/v1/audit")
    def page(
        route: Route,
        filters: AuditFilter | None = None,
        *,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> Call[Page[AuditEntry]]:
        """One page of rows, optionally only one object's, one actor's or a time window's."""
        query = _query(filters, limit, cursor)
        return route.call(reading(Page[AuditEntry]), query=query, paged_by="cursor")

    list = listing(page)


class TenantAudit(Resource[S]):
    """Any tenant's changes, for the operator (the client's key is the operator token)."""

    @operation("GET", "/v1/admin/tenants/{tenant_id}/audit")
    def page(
        route: Route,
        tenant: Tenant | str,
        filters: AuditFilter | None = None,
        *,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> Call[Page[AuditEntry]]:
        """One page of the tenant's rows, filtered as `Audit.page`."""
        path = {"tenant_id": tenant if isinstance(tenant, str) else tenant.id}
        query = _query(filters, limit, cursor)
        return route.call(reading(Page[AuditEntry]), path=path, query=query, paged_by="cursor")

    list = listing(page)
