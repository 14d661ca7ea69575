"""What the tenant's scripts may call with `ctx.call` (`/v1/capabilities`), and the operator's
grants of them (`/v1/admin/tenants/{id}/capabilities`, with the operator token as the key)."""

from __future__ import annotations

from cadenza_client.call import Call, Route, no_content, reading, reading_list
from cadenza_client.endpoint import Resource, S, operation
from cadenza_client.models.capabilities import Capability, CapabilityGrant
from cadenza_client.resources.tenancy import TenantRef, _id


class Capabilities(Resource[S]):
    """The capabilities granted to this tenant, by name."""

    @operation("GET", "/v1/capabilities")
    def list(route: Route) -> Call[list[Capability]]:
        """Each with the JSON Schema its arguments must match and its answer's size cap."""
        return route.call(reading_list(Capability))


class Grants(Resource[S]):
    """The operator grants and revokes tenants' capabilities."""

    @operation("GET", "/v1/admin/tenants/{tenant_id}/capabilities")
    def list(route: Route, tenant: TenantRef) -> Call[list[CapabilityGrant]]:
        """The tenant's grants by name."""
        return route.call(reading_list(CapabilityGrant), path={"tenant_id": _id(tenant)})

    @operation("PUT", "/v1/admin/tenants/{tenant_id}/capabilities/{name}")
    def grant(route: Route, tenant: TenantRef, name: str) -> Call[CapabilityGrant]:
        """Let the tenant's scripts call `name` (a capability of the registry)."""
        path = {"tenant_id": _id(tenant), "name": name}
        return route.call(reading(CapabilityGrant), path=path)

    @operation("DELETE", "/v1/admin/tenants/{tenant_id}/capabilities/{name}")
    def revoke(route: Route, tenant: TenantRef, name: str) -> Call[None]:
        """Take the grant back; its scripts' next calls of `name` are refused."""
        return route.call(no_content, path={"tenant_id": _id(tenant), "name": name})
