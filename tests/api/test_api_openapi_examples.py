"""Every request example the OpenAPI document shows is accepted by the live server, so a
reader (or a generated client) who copies one gets a 2xx, not a 422."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx

#: Routes that must carry a body example (they are the ones a newcomer copies first).
MUST_HAVE_EXAMPLES = {("post", "/v1/actions"), ("post", "/v1/rules"), ("post", "/v1/preview")}


def _body_examples(document: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(method, path, example) for every JSON body example of a route without path parameters."""
    schemas = document["components"]["schemas"]
    for path, operations in document["paths"].items():
        if "{" in path:
            continue
        for method, operation in operations.items():
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            if body is None:
                continue
            schema = body["schema"]
            if "$ref" in schema:
                schema = schemas[schema["$ref"].rsplit("/", 1)[1]]
            for example in schema.get("examples", []):
                yield method, path, example


def test_every_request_example_is_accepted(
    http: httpx.Client, operator: httpx.Client, new_tenant: Callable[..., Any]
) -> None:
    tenant = new_tenant()
    examples = list(_body_examples(http.get("/openapi.json").json()))
    assert {(method, path) for method, path, _ in examples} >= MUST_HAVE_EXAMPLES
    for method, path, example in examples:
        caller = operator if path.startswith("/v1/admin") else tenant.admin
        answer = caller.request(method, path, json=example)
        assert answer.is_success, (method, path, example, answer.text)
