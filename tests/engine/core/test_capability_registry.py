"""The operator's registry is checked when it is read: each mistake is refused with a message
naming the entry and what to write instead; a good registry reads as its records."""

from __future__ import annotations

from typing import Any

import pytest

from engine.capabilities.specs import (
    CapabilityConfigError,
    CapabilityPolicy,
    CapabilitySpec,
    specs_from_json,
)

GOOD = {"name": "crm.open_carts", "schema": {"type": "object"}, "url": "https://shop.internal/c"}


@pytest.mark.parametrize(
    "document, said",
    [
        # the document's shape
        ([], 'a JSON object {"capabilities": [...]}'),
        ({"capabilities": [5]}, "capabilities[0]: an entry is an object with a 'name'"),
        ({"capabilities": [{"name": "a.b", "schema": []}]}, "'schema' must be an object"),
        # one entry's fields
        ({"capabilities": [GOOD | {"name": "CRM"}]}, "a name is 1-4 dotted lower-case words"),
        ({"capabilities": [GOOD | {"entry_point": "x"}]}, "exactly one of 'url' and 'entry_point'"),
        ({"capabilities": [GOOD | {"url": "not a url"}]}, "'url' must be an http(s) URL"),
        ({"capabilities": [GOOD | {"max_answer_bytes": "big"}]}, "'max_answer_bytes' must be"),
        ({"capabilities": [GOOD | {"max_answer_bytes": 0}]}, "'max_answer_bytes' must be"),
        ({"capabilities": [GOOD | {"description": 3}]}, "'description' must be text"),
        ({"capabilities": [GOOD | {"schema": {"type": "thing"}}]}, "'schema' is not a JSON Schema"),
        ({"capabilities": [GOOD | {"secret": "x"}]}, "unknown fields ['secret']"),
    ],
    ids=[
        "not-an-object",
        "entry-not-an-object",
        "schema-not-an-object",
        "name",
        "two-implementations",
        "url",
        "cap-type",
        "cap-zero",
        "description",
        "schema",
        "unknown-field",
    ],
)
def test_a_bad_registry_is_refused_naming_what_is_wrong(document: Any, said: str) -> None:
    with pytest.raises(CapabilityConfigError) as refused:
        specs_from_json(document)
    assert said in str(refused.value)


def test_names_are_unique_and_a_url_needs_a_signing_key() -> None:
    spec = specs_from_json({"capabilities": [GOOD]})[0]
    assert spec == CapabilitySpec(**GOOD)
    with pytest.raises(CapabilityConfigError, match=r"registered twice: crm\.open_carts"):
        CapabilityPolicy(specs=(spec, spec), signing_key="k" * 16)
    with pytest.raises(CapabilityConfigError, match="CADENZA_CAPABILITY_SIGNING_KEY"):
        CapabilityPolicy(specs=(spec,))
    assert CapabilityPolicy(specs=(spec,), signing_key="k" * 16).by_name == {spec.name: spec}
