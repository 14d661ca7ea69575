"""A real SMTP server for a test's block (aiosmtpd, on a thread of its own, on 127.0.0.1): it
accepts every message and keeps it, parsed, in `MailBox.messages`, with whether its sender
logged in (as `LOGIN`: any other login is refused)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any, cast

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

from support.ports import free_port

#: The only login the stand-in accepts.
LOGIN = ("cadenza", "mail-secret")


class MailBox:
    """The aiosmtpd handler: every accepted message, with the recipients of its envelope."""

    def __init__(self) -> None:
        self.messages: list[tuple[list[str], EmailMessage]] = []
        self.logged_in: list[bool] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        parsed = message_from_bytes(envelope.content, policy=policy.default)
        self.messages.append((list(envelope.rcpt_tos), cast(EmailMessage, parsed)))
        self.logged_in.append(bool(session.authenticated))
        return "250 OK"


def _authenticate(
    server: Any, session: Any, envelope: Any, mechanism: str, data: Any
) -> AuthResult:
    given = (data.login, data.password) if isinstance(data, LoginPassword) else None
    return AuthResult(success=given == tuple(part.encode() for part in LOGIN))


@contextmanager
def smtp_stand_in() -> Iterator[tuple[MailBox, int]]:
    """A mail box and the port of the SMTP server that fills it, for the block (a login is
    offered over plain text: the stand-in has no certificate)."""
    box, port = MailBox(), free_port()
    controller = Controller(
        box,
        hostname="127.0.0.1",
        port=port,
        authenticator=_authenticate,
        auth_require_tls=False,
    )
    controller.start()
    try:
        yield box, port
    finally:
        controller.stop()
