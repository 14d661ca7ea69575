"""The client covers the server's API, checked against the OpenAPI document a live server serves.

Whoever adds a route, a field or an enum value to the API makes one of these tests fail until
the client has it too: a route needs a method on a resource (`cadenza_client/resources/`), a
schema a record (`cadenza_client/models/`) or the parameters of the method that sends it.
"""

from __future__ import annotations

import inspect
import subprocess
import sys
from enum import StrEnum
from pathlib import Path
from typing import Any

import cadenza_client
import pytest
from cadenza_client import Client
from cadenza_client.endpoint import Operation, Resource
from cadenza_client.models import enums
from cadenza_client.resources.server import Health
from pydantic import BaseModel

ROOT = Path(__file__).resolve().parents[2]
HTTP_METHODS = {"get", "put", "post", "patch", "delete"}
#: Routes the client calls that the document does not list: the document itself.
UNDOCUMENTED = {("GET", "/openapi.json")}

#: Schemas the client reads or sends as records; the properties must match exactly.
RECORDS: dict[str, type[BaseModel]] = {
    "RuleCreate": cadenza_client.NewRule,
    "RuleUpdate": cadenza_client.RuleChanges,
    "RulePublic": cadenza_client.Rule,
    "PreviewPublic": cadenza_client.Preview,
    "NotePublic": cadenza_client.models.rules.Note,
    "ChangePreview": cadenza_client.ChangePreview,
    "Timeline": cadenza_client.Timeline,
    "TimelineEntryPublic": cadenza_client.TimelineEntry,
    "RuleStats": cadenza_client.RuleStats,
    "ActionPublic": cadenza_client.Action,
    "ActionList": cadenza_client.models.runs.ActionList,
    "RunSummary": cadenza_client.RunSummary,
    "RunPublic": cadenza_client.Run,
    "EventPublic": cadenza_client.Event,
    "EventFeed": cadenza_client.EventFeed,
    "EmittedEvent": cadenza_client.models.runs.EmittedEvent,
    "TestRunPublic": cadenza_client.TestRun,
    "Quotas": cadenza_client.Quotas,
    "QuotasUpdate": cadenza_client.QuotaChanges,
    "Usage": cadenza_client.models.tenants.Usage,
    "TenantPublic": cadenza_client.Tenant,
    "TenantCreated": cadenza_client.TenantCreated,
    "TenantSelf": cadenza_client.TenantSelf,
    "KeyPublic": cadenza_client.ApiKey,
    "KeyCreated": cadenza_client.KeyCreated,
    "WebhookPublic": cadenza_client.Webhook,
    "SecretCreated": cadenza_client.models.tenants.WebhookSecret,
    "ItemPublic": cadenza_client.Item,
    "SecretPublic": cadenza_client.models.tenants.Secret,
    "HttpAllowListPublic": cadenza_client.models.tenants.HttpAllowList,
    "RunCallPublic": cadenza_client.models.runs.RunCall,
    "CapabilityPublic": cadenza_client.Capability,
    "CapabilityGrantPublic": cadenza_client.CapabilityGrant,
    "CalendarPublic": cadenza_client.Calendar,
    "RuleRefPublic": cadenza_client.models.calendars.RuleRef,
    "SkippedPublic": cadenza_client.models.calendars.SkippedOccurrence,
    # Labels, filters and bulk operations (issue 22).
    "BulkResultPublic": cadenza_client.BulkResult,
    # issue 22, history
    "AuditEntryPublic": cadenza_client.AuditEntry,
    "RuleVersionPublic": cadenza_client.RuleVersion,
    "RuleDefinition": cadenza_client.RuleDefinition,
    "FieldChangePublic": cadenza_client.FieldChange,
    "RuleDiff": cadenza_client.RuleDiff,
    # issue 22, notifications
    "NotificationRoutePublic": cadenza_client.NotificationRoute,
    "NotificationDeliveryPublic": cadenza_client.NotificationDelivery,
}
#: Request bodies the client builds from a method's parameters: (resource, method) per schema.
PARAMETERS: dict[str, tuple[str, str]] = {
    "PreviewCreate": ("schedules", "preview"),
    "TestRunCreate": ("rules", "test_run"),
    "Window": ("rules", "backfill"),
    "ActionCreate": ("actions", "submit"),
    "KeyCreate": ("keys", "create"),
    "WebhookUpdate": ("webhook", "set"),
    "SecretRotate": ("webhook", "rotate_secret"),
    "ItemPut": ("kv", "put"),
    "SecretPut": ("secrets", "put"),
    "HttpAllowListPut": ("http_allowlist", "set"),
    "TenantCreate": ("tenants", "create"),
    "TenantUpdate": ("tenants", "update"),
    "TenantSettings": ("tenant", "update"),
    "CalendarPut": ("calendars", "put"),
    # Labels, filters and bulk operations (issue 22).
    "BulkRequest": ("rules", "bulk"),
    "RollbackRequest": ("rule_history", "rollback"),
    "NotificationRouteCreate": ("notification_routes", "create"),
}
#: A method's parameter for a body field of another name.
RENAMED = {"rule_id": "rule", "version": "to_version"}  # rollback: `version=` is If-Match
#: Schemas the client reads in another shape: pages through `Page[...]`, errors as exceptions.
OTHER_SHAPES = {"Problem", "FieldError"}
ENUMS: dict[str, type[StrEnum]] = {
    "RuntimeName": enums.Runtime,
    "MisfirePolicy": enums.MisfirePolicy,
    "OverlapPolicy": enums.OverlapPolicy,
    "DstGap": enums.DstGap,
    "DstRepeat": enums.DstRepeat,
    "ActionStatus": enums.ActionStatus,
    "OutcomeStatus": enums.Outcome,
    "Role": enums.Role,
    "TenantStatus": enums.TenantStatus,
    # Labels, filters and bulk operations (issue 22).
    "RuleState": enums.RuleState,
    "BulkOperation": enums.BulkOperation,
    "NotificationEvent": enums.NotificationEvent,
    "NotificationChannel": enums.NotificationChannel,
    "NotificationDeliveryStatus": enums.NotificationDeliveryStatus,
}


def resources() -> dict[str, type[Resource[Any]]]:
    """Every resource of the client by its attribute name (`rules`, `kv`...)."""
    with Client("http://never.contacted.invalid") as sample:
        return {name: type(r) for name, r in vars(sample).items() if isinstance(r, Resource)}


def client_routes() -> dict[tuple[str, str], str]:
    """(method, path template) -> `resource.method` of every route the client declares."""
    found: dict[tuple[str, str], str] = {}
    for resource_name, resource in resources().items():
        for name, member in vars(resource).items():
            if isinstance(member, Operation):
                key = (member.route.method, member.route.template)
                assert key not in found, f"{key} is declared twice: {found[key]} and {name}"
                found[key] = f"{resource_name}.{name}"
    return found


@pytest.fixture
def document(operator: Client) -> dict[str, Any]:
    return operator.server.openapi()


def test_every_route_of_the_openapi_document_has_a_client_method(document: dict[str, Any]) -> None:
    served = {
        (method.upper(), path)
        for path, operations in document["paths"].items()
        for method in operations
        if method in HTTP_METHODS
    }
    declared = client_routes()
    missing = sorted(served - declared.keys())
    assert not missing, f"routes without a client method (add them to cadenza_client): {missing}"
    stale = sorted(declared.keys() - served - UNDOCUMENTED)
    assert not stale, f"client methods of routes the server no longer has: {stale}"


def test_every_schema_of_the_openapi_document_is_read_or_sent_by_the_client(
    document: dict[str, Any],
) -> None:
    schemas = document["components"]["schemas"]
    known = RECORDS.keys() | PARAMETERS.keys() | ENUMS.keys() | OTHER_SHAPES
    pages = {name for name in schemas if name.startswith("Page_")}
    unknown = sorted(schemas.keys() - known - pages)
    assert not unknown, f"schemas the client does not model (see RECORDS, PARAMETERS): {unknown}"


@pytest.mark.parametrize("schema", sorted(RECORDS))
def test_client_records_have_exactly_the_fields_of_their_schema(
    document: dict[str, Any], schema: str
) -> None:
    served = set(document["components"]["schemas"][schema]["properties"])
    assert set(RECORDS[schema].model_fields) == served


@pytest.mark.parametrize("schema", sorted(PARAMETERS))
def test_request_bodies_built_from_parameters_can_send_every_field(
    document: dict[str, Any], schema: str
) -> None:
    resource_name, method_name = PARAMETERS[schema]
    member = vars(resources()[resource_name])[method_name]
    parameters = set(inspect.signature(member.build).parameters)
    served = {RENAMED.get(f, f) for f in document["components"]["schemas"][schema]["properties"]}
    assert served <= parameters, f"{resource_name}.{method_name} cannot send {served - parameters}"


@pytest.mark.parametrize("schema", sorted(ENUMS))
def test_client_enums_have_exactly_the_values_of_the_server(
    document: dict[str, Any], schema: str
) -> None:
    assert {e.value for e in ENUMS[schema]} == set(
        document["components"]["schemas"][schema]["enum"]
    )


def test_health_and_readiness_read_as_records(operator: Client) -> None:
    assert operator.server.health() == Health(status="ok")
    assert operator.server.ready().status == "ready"
    assert "cadenza_http_requests_total" in operator.server.metrics()


def test_the_client_package_is_mypy_strict_clean_and_so_are_its_examples() -> None:
    targets = [str(ROOT / "client" / "cadenza_client"), str(ROOT / "client" / "examples")]
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", *targets],
        cwd=ROOT / "client",
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
