"""`/v1/webhook`: where the tenant's events are POSTed, and the secrets that sign them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from fastapi import APIRouter

from api.deps import AdminDep, DbDep, SecretBoxDep, SettingsDep, ViewerDep
from api.schemas.webhooks import SecretCreated, SecretRotate, WebhookPublic, WebhookUpdate
from tenants.settings import check_webhook_url, get_webhook, rotate_secret, set_webhook_url

router = APIRouter(prefix="/v1/webhook", tags=["webhook"])


@router.get("", response_model=WebhookPublic)
async def get_webhook_settings(caller: ViewerDep, db: DbDep) -> Any:
    """The delivery URL and which signing secrets are live."""
    async with db.connect() as conn:
        return await get_webhook(conn, caller.tenant_id, datetime.now(UTC))


@router.put("", response_model=WebhookPublic)
async def set_webhook_settings(
    body: WebhookUpdate, caller: AdminDep, db: DbDep, settings: SettingsDep, box: SecretBoxDep
) -> Any:
    """Set the delivery URL (null: stop delivering; events stay readable at /v1/events). Every
    event recorded from now on is delivered to it."""
    url = body.url
    if url is not None:
        check_webhook_url(url, allow_private=settings.allow_private_webhooks)
    async with db.begin() as conn:
        return await set_webhook_url(conn, box, caller.tenant_id, url, datetime.now(UTC))


@router.post("/secret", response_model=SecretCreated, status_code=201)
async def rotate_webhook_secret(
    caller: AdminDep, db: DbDep, box: SecretBoxDep, body: SecretRotate | None = None
) -> dict[str, Any]:
    """A new signing secret, shown once. The previous one keeps signing beside it for
    `overlap_s` (default a day), so a receiver can switch without rejecting a delivery."""
    overlap = timedelta(seconds=(body or SecretRotate()).overlap_s)
    now = datetime.now(UTC)
    async with db.begin() as conn:
        secret = await rotate_secret(conn, box, caller.tenant_id, now, overlap)
        settings = await get_webhook(conn, caller.tenant_id, now)
    return {"secret": secret, "previous_secret_retires_at": settings.previous_secret_retires_at}
