"""The operator token the API tests' servers are started with."""

from __future__ import annotations

ADMIN_TOKEN = "operator-token-for-tests"
