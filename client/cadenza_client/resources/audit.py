"""The audit log: `/v1/audit` for a tenant's admin, `/v1/admin/tenants/{id}/audit` for the
operator. Read-only, as the log is."""

from __future__ import annotations

from datetime import datetime

from cadenza_client.call import Call, Route, reading
from cadenza_client.endpoint import Resource, S, listing, operation
from cadenza_client.models.audit import AuditEntry
from cadenza_client.models.base import Page
from cadenza_client.models.tenants import Tenant


class Audit(Resource[S]):
    """The changes made in your tenant (admin key), oldest first."""

    @operation("GET", "/v1/audit")
    def page(
        route: Route,
        *,
        object_kind: str | None = None,
        object_id: str | None = None,
        actor: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> Call[Page[AuditEntry]]:
        """One page of rows, optionally only one object's, one actor's or a time window's."""
        query = {
            "object_kind": object_kind,
            "object_id": object_id,
            "actor": actor,
            "since": since,
            "until": until,
            "limit": limit,
            "cursor": cursor,
        }
        return route.call(reading(Page[AuditEntry]), query=query, paged_by="cursor")

    list = listing(page)


class TenantAudit(Resource[S]):
    """Any tenant's changes, for the operator (the client's key is the operator token)."""

    @operation("GET", "/v1/admin/tenants/{tenant_id}/audit")
    def page(
        route: Route,
        tenant: Tenant | str,
        *,
        object_kind: str | None = None,
        object_id: str | None = None,
        actor: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> Call[Page[AuditEntry]]:
        """One page of the tenant's rows, filtered as `Audit.page`."""
        query = {
            "object_kind": object_kind,
            "object_id": object_id,
            "actor": actor,
            "since": since,
            "until": until,
            "limit": limit,
            "cursor": cursor,
        }
        tenant_id = tenant if isinstance(tenant, str) else tenant.id
        path = {"tenant_id": tenant_id}
        return route.call(reading(Page[AuditEntry]), path=path, query=query, paged_by="cursor")

    list = listing(page)
