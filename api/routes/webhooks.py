"""`/v1/webhook`: where the tenant's events are POSTed, and the secret that signs them."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from api.deps import AdminDep, DbDep, SettingsDep, ViewerDep
from api.schemas.webhooks import SecretCreated, WebhookPublic, WebhookUpdate
from tenants.settings import check_webhook_url, get_webhook, rotate_secret, set_webhook_url

router = APIRouter(prefix="/v1/webhook", tags=["webhook"])


@router.get("", response_model=WebhookPublic)
async def get_webhook_settings(caller: ViewerDep, db: DbDep) -> Any:
    """The delivery URL and which signing secret is current."""
    async with db.connect() as conn:
        return await get_webhook(conn, caller.tenant_id)


@router.put("", response_model=WebhookPublic)
async def set_webhook_settings(
    body: WebhookUpdate, caller: AdminDep, db: DbDep, settings: SettingsDep
) -> Any:
    """Set the delivery URL (null: stop delivering; events stay readable at /v1/events)."""
    url = body.url
    if url is not None:
        check_webhook_url(url, allow_private=settings.allow_private_webhooks)
    async with db.begin() as conn:
        return await set_webhook_url(conn, caller.tenant_id, url)


@router.post("/secret", response_model=SecretCreated, status_code=201)
async def rotate_webhook_secret(caller: AdminDep, db: DbDep) -> dict[str, str]:
    """A new signing secret, shown once; deliveries are signed with it from now on."""
    async with db.begin() as conn:
        return {"secret": await rotate_secret(conn, caller.tenant_id)}
