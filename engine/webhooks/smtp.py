"""Sending a notification email through the operator's SMTP server: the standard library's
client, in a worker thread so the engine's event loop never waits on the mail server."""

from __future__ import annotations

import asyncio
import smtplib
import ssl
from email.message import EmailMessage

from engine.config import SmtpSettings
from engine.webhooks.attempts import REFUSED

NO_SMTP = f"{REFUSED}the operator has set no SMTP server (CADENZA_SMTP_HOST)"


async def send_mail(smtp: SmtpSettings | None, to: str, subject: str, text: str) -> str | None:
    """Send one plain-text message; None once the server accepted it, else what went wrong
    (starting with `REFUSED` when retrying cannot help)."""
    if smtp is None:
        return NO_SMTP
    message = EmailMessage()
    message["From"], message["To"] = smtp.sender, to
    message["Subject"] = " ".join(subject.split())  # no line breaks in a header
    message.set_content(text)
    try:
        await asyncio.to_thread(_send, smtp, message)
    except smtplib.SMTPRecipientsRefused as exc:
        return f"{REFUSED}the SMTP server refused the recipient: {exc.recipients}"[:500]
    except (smtplib.SMTPException, OSError) as exc:
        return f"SMTP: {type(exc).__name__}: {exc}"[:500]
    return None


def _send(smtp: SmtpSettings, message: EmailMessage) -> None:
    with smtplib.SMTP(smtp.host, smtp.port, timeout=smtp.timeout_s) as client:
        if smtp.starttls:
            client.starttls(context=ssl.create_default_context())
        if smtp.username:
            client.login(smtp.username, smtp.password)
        client.send_message(message)
