"""A real SMTP server for a test's block (aiosmtpd, on a thread of its own, on 127.0.0.1): it
accepts every message and keeps it, parsed, in `MailBox.messages`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any, cast

from aiosmtpd.controller import Controller

from support.ports import free_port


class MailBox:
    """The aiosmtpd handler: every accepted message, with the recipients of its envelope."""

    def __init__(self) -> None:
        self.messages: list[tuple[list[str], EmailMessage]] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        parsed = message_from_bytes(envelope.content, policy=policy.default)
        self.messages.append((list(envelope.rcpt_tos), cast(EmailMessage, parsed)))
        return "250 OK"


@contextmanager
def smtp_stand_in() -> Iterator[tuple[MailBox, int]]:
    """A mail box and the port of the SMTP server that fills it, for the block."""
    box, port = MailBox(), free_port()
    controller = Controller(box, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield box, port
    finally:
        controller.stop()
