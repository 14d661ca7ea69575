"""The tenant's own settings (`/v1/tenant`, `/v1/keys`, `/v1/webhook`), its data (`/v1/kv`),
and the operator's tenants (`/v1/admin/tenants`, with the operator token as the key)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cadenza_client.call import (
    Call,
    Route,
    given,
    key_path,
    no_content,
    reading,
    reading_list,
)
from cadenza_client.endpoint import Resource, S, listing, operation
from cadenza_client.models.base import Page
from cadenza_client.models.enums import Role
from cadenza_client.models.tenants import (
    ApiKey,
    HttpAllowList,
    Item,
    KeyCreated,
    QuotaChanges,
    Secret,
    Tenant,
    TenantCreated,
    TenantSelf,
    Webhook,
    WebhookSecret,
)

KeyRef = ApiKey | str
TenantRef = Tenant | str


def _id(ref: ApiKey | Tenant | str) -> str:
    return ref if isinstance(ref, str) else ref.id


def _quotas(quotas: QuotaChanges | None) -> dict[str, Any] | None:
    return None if quotas is None else quotas.body()


class Own(Resource[S]):
    """The caller's tenant."""

    @operation("GET", "/v1/tenant")
    def get(route: Route) -> Call[TenantSelf]:
        """Your tenant, its quotas, today's usage and your key's role."""
        return route.call(reading(TenantSelf))

    @operation("PATCH", "/v1/tenant")
    def update(route: Route, *, default_timezone: str | None = None) -> Call[TenantSelf]:
        """Change your tenant's settings (admin): the zone of rules and previews naming none."""
        body = given(default_timezone=default_timezone)
        return route.call(reading(TenantSelf), body=body, is_idempotent=True)


class Keys(Resource[S]):
    """The tenant's API keys (admin role)."""

    @operation("GET", "/v1/keys")
    def page(
        route: Route, *, limit: int | None = None, cursor: str | None = None
    ) -> Call[Page[ApiKey]]:
        """One page of keys, revoked ones included, oldest first."""
        query = {"limit": limit, "cursor": cursor}
        return route.call(reading(Page[ApiKey]), query=query, paged_by="cursor")

    list = listing(page)

    @operation("POST", "/v1/keys")
    def create(
        route: Route, *, role: Role | None = None, name: str | None = None
    ) -> Call[KeyCreated]:
        """A new key (viewer unless `role` says otherwise); its secret is in this answer only."""
        return route.call(reading(KeyCreated), body=given(name=name, role=role))

    @operation("DELETE", "/v1/keys/{key_id}")
    def revoke(route: Route, key: KeyRef) -> Call[ApiKey]:
        """Revoke a key; requests with it are refused from now on. A key revoked already raises
        `Conflict`; so a revocation whose answer was lost is not repeated (it may have
        arrived), and the connection error is raised instead."""
        return route.call(reading(ApiKey), path={"key_id": _id(key)}, is_idempotent=False)


class Hook(Resource[S]):
    """Where the tenant's events are delivered."""

    @operation("GET", "/v1/webhook")
    def get(route: Route) -> Call[Webhook]:
        """The delivery URL and the first characters of the signing secret."""
        return route.call(reading(Webhook))

    @operation("PUT", "/v1/webhook")
    def set(route: Route, url: str | None) -> Call[Webhook]:
        """Deliver events to `url` (http or https); None stops delivery."""
        return route.call(reading(Webhook), body={"url": url})

    @operation("POST", "/v1/webhook/secret")
    def rotate_secret(route: Route, *, overlap_s: int | None = None) -> Call[WebhookSecret]:
        """A new signing secret, shown in this answer only. The previous one keeps signing
        beside it for `overlap_s` seconds (the server's default: a day; 0 stops it now)."""
        return route.call(reading(WebhookSecret), body=given(overlap_s=overlap_s))


class Secrets(Resource[S]):
    """The tenant's secrets for its scripts (`ctx.secrets.get(name)`): written, never read."""

    @operation("GET", "/v1/secrets")
    def list(route: Route) -> Call[list[Secret]]:
        """The secrets by name, with when each was set; never a value."""
        return route.call(reading_list(Secret))

    @operation("PUT", "/v1/secrets/{name}")
    def put(route: Route, name: str, value: str) -> Call[Secret]:
        """Set or replace secret `name` (admin); the value cannot be read back."""
        return route.call(reading(Secret), path={"name": key_path(name)}, body={"value": value})

    @operation("DELETE", "/v1/secrets/{name}")
    def delete(route: Route, name: str) -> Call[None]:
        """Delete secret `name` (`NotFound` if there was none)."""
        return route.call(no_content, path={"name": key_path(name)})


class Outbound(Resource[S]):
    """The origins the tenant's scripts may call with `ctx.http.request`."""

    @operation("GET", "/v1/http-allowlist")
    def get(route: Route) -> Call[HttpAllowList]:
        """The allow-list (empty: scripts may call nothing) and the operator's schemes."""
        return route.call(reading(HttpAllowList))

    @operation("PUT", "/v1/http-allowlist")
    def set(route: Route, entries: Sequence[str]) -> Call[HttpAllowList]:
        """Replace the allow-list (admin): origins `scheme://host[:port]`, `*.` allowed."""
        return route.call(reading(HttpAllowList), body={"entries": list(entries)})


class Data(Resource[S]):
    """The tenant's key-value data: what its scripts read and write with `ctx.kv`."""

    @operation("GET", "/v1/kv")
    def page(
        route: Route,
        *,
        prefix: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> Call[Page[Item]]:
        """One page of items in key order, optionally only keys starting with `prefix`."""
        query = {"prefix": prefix, "limit": limit, "cursor": cursor}
        return route.call(reading(Page[Item]), query=query, paged_by="cursor")

    list = listing(page)

    @operation("GET", "/v1/kv/{key}")
    def get(route: Route, key: str) -> Call[Item]:
        """One item (`NotFound` if there is none)."""
        return route.call(reading(Item), path={"key": key_path(key)})

    @operation("PUT", "/v1/kv/{key}")
    def put(route: Route, key: str, value: Any) -> Call[Item]:
        """Create or replace an item; `value` is any JSON value."""
        return route.call(reading(Item), path={"key": key_path(key)}, body={"value": value})

    @operation("DELETE", "/v1/kv/{key}")
    def delete(route: Route, key: str) -> Call[None]:
        """Remove an item (`NotFound` if there was none)."""
        return route.call(no_content, path={"key": key_path(key)})


class Tenants(Resource[S]):
    """Every tenant, for the operator: the client's key must be the operator token."""

    @operation("GET", "/v1/admin/tenants")
    def page(
        route: Route, *, limit: int | None = None, cursor: str | None = None
    ) -> Call[Page[Tenant]]:
        """One page of tenants, by id."""
        query = {"limit": limit, "cursor": cursor}
        return route.call(reading(Page[Tenant]), query=query, paged_by="cursor")

    list = listing(page)

    @operation("POST", "/v1/admin/tenants")
    def create(
        route: Route, name: str, *, role: Role | None = None, quotas: QuotaChanges | None = None
    ) -> Call[TenantCreated]:
        """A new tenant and its first key (of `role`, admin by default), shown only here."""
        body = given(name=name, role=role, quotas=_quotas(quotas))
        return route.call(reading(TenantCreated), body=body)

    @operation("GET", "/v1/admin/tenants/{tenant_id}")
    def get(route: Route, tenant: TenantRef) -> Call[Tenant]:
        """One tenant."""
        return route.call(reading(Tenant), path={"tenant_id": _id(tenant)})

    @operation("PATCH", "/v1/admin/tenants/{tenant_id}")
    def update(
        route: Route,
        tenant: TenantRef,
        *,
        name: str | None = None,
        quotas: QuotaChanges | None = None,
    ) -> Call[Tenant]:
        """Rename a tenant or change some of its quotas."""
        body = given(name=name, quotas=_quotas(quotas))
        return route.call(reading(Tenant), path={"tenant_id": _id(tenant)}, body=body)

    @operation("DELETE", "/v1/admin/tenants/{tenant_id}")
    def delete(route: Route, tenant: TenantRef) -> Call[None]:
        """Delete a tenant and everything it owns. There is no undo."""
        return route.call(no_content, path={"tenant_id": _id(tenant)})

    @operation("POST", "/v1/admin/tenants/{tenant_id}/suspend")
    def suspend(route: Route, tenant: TenantRef) -> Call[Tenant]:
        """Stop its rules (nothing is lost); its keys become read-only."""
        return route.call(reading(Tenant), path={"tenant_id": _id(tenant)}, is_idempotent=True)

    @operation("POST", "/v1/admin/tenants/{tenant_id}/resume")
    def resume(route: Route, tenant: TenantRef) -> Call[Tenant]:
        """Let its rules run again."""
        return route.call(reading(Tenant), path={"tenant_id": _id(tenant)}, is_idempotent=True)
