"""What the operator registers: one `CapabilitySpec` per capability, read once at start.

The registry is operator configuration (a JSON file named by `CADENZA_CAPABILITIES_FILE`,
read by the API layer and handed down as records): it is trusted, so an endpoint may be on
loopback or a private network, unlike a tenant's HTTP allow-list. It is checked when it is
read, so a typo stops the process with a message naming the capability and the field, never
a run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # jsonschema and httpx are imported where used: every command reads the
    # registry, most registries are empty, and both imports are a good part of a short
    # command's start (each `cadenza` command is a new process)
    from jsonschema import Draft202012Validator

#: The largest answer the sandbox can hand a script (every runtime has room for it).
MAX_ANSWER_BYTES = 60 * 1024
_NAME = re.compile(r"[a-z][a-z0-9_]{0,30}(\.[a-z][a-z0-9_]{0,30}){0,3}")
_FIELDS = {"name", "description", "schema", "max_answer_bytes", "url", "entry_point"}


class CapabilityConfigError(ValueError):
    """The operator's capability registry is not valid: the message names the entry and field."""


@dataclass(frozen=True)
class CapabilitySpec:
    """One capability: what a call's arguments must match, how big its answer may be, and
    where it is performed (exactly one of `url` and `entry_point`)."""

    name: str
    #: A JSON Schema (Draft 2020-12) the arguments must match before the call leaves.
    schema: dict[str, Any]
    max_answer_bytes: int = 16 * 1024
    description: str = ""
    #: The host product's endpoint Cadenza POSTs each call to.
    url: str | None = None
    #: The name of an entry point of the `cadenza.capabilities` group (in-process).
    entry_point: str | None = None

    def __post_init__(self) -> None:
        where = f"capability {self.name!r}"
        if not _NAME.fullmatch(self.name):
            raise CapabilityConfigError(
                f"{where}: a name is 1-4 dotted lower-case words, e.g. 'crm.open_carts'"
            )
        if (self.url is None) == (self.entry_point is None):
            raise CapabilityConfigError(f"{where}: give exactly one of 'url' and 'entry_point'")
        if self.url is not None and not _is_http_url(self.url):
            raise CapabilityConfigError(f"{where}: 'url' must be an http(s) URL")
        if not isinstance(self.description, str):
            raise CapabilityConfigError(f"{where}: 'description' must be text")
        if (
            type(self.max_answer_bytes) is not int
            or not 0 < self.max_answer_bytes <= MAX_ANSWER_BYTES
        ):
            raise CapabilityConfigError(
                f"{where}: 'max_answer_bytes' must be 1..{MAX_ANSWER_BYTES}"
            )
        from jsonschema import Draft202012Validator, SchemaError

        try:
            Draft202012Validator.check_schema(self.schema)
        except SchemaError as exc:
            raise CapabilityConfigError(
                f"{where}: 'schema' is not a JSON Schema: {exc.message}"
            ) from None

    @cached_property
    def validator(self) -> Draft202012Validator:
        """The schema's validator, built once per spec rather than once per call."""
        from jsonschema import Draft202012Validator

        return Draft202012Validator(self.schema)


@dataclass(frozen=True)
class CapabilityPolicy:
    """The registry and the operator's bounds on calls, above every tenant's grants."""

    specs: tuple[CapabilitySpec, ...] = ()
    #: Signs every call to an HTTP endpoint (`X-Cadenza-Signature`, as webhooks are signed).
    signing_key: str | None = None
    max_calls_per_run: int = 20
    #: Calls one tenant may make in a minute, over all its runs on every engine node.
    max_calls_per_minute: int = 120
    by_name: dict[str, CapabilitySpec] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        names = [spec.name for spec in self.specs]
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise CapabilityConfigError(f"capabilities registered twice: {', '.join(twice)}")
        if self.signing_key is None and any(spec.url for spec in self.specs):
            raise CapabilityConfigError(
                "capabilities with a 'url' need a signing key: set CADENZA_CAPABILITY_SIGNING_KEY"
            )
        object.__setattr__(self, "by_name", {spec.name: spec for spec in self.specs})


def _is_http_url(url: object) -> bool:
    import httpx

    try:
        return isinstance(url, str) and httpx.URL(url).scheme in {"http", "https"}
    except httpx.InvalidURL:
        return False


def specs_from_json(data: Any) -> tuple[CapabilitySpec, ...]:
    """The registry from its JSON document: `{"capabilities": [{"name": ..., ...}, ...]}`."""
    entries = data.get("capabilities") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise CapabilityConfigError('the registry is a JSON object {"capabilities": [...]}')
    return tuple(_spec(index, entry) for index, entry in enumerate(entries))


def _spec(index: int, entry: Any) -> CapabilitySpec:
    where = f"capabilities[{index}]"
    if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
        raise CapabilityConfigError(f"{where}: an entry is an object with a 'name'")
    unknown = sorted(set(entry) - _FIELDS)
    if unknown:
        raise CapabilityConfigError(f"{where}: unknown fields {unknown}; known: {sorted(_FIELDS)}")
    if not isinstance(entry.get("schema"), dict):
        raise CapabilityConfigError(f"{where} ({entry['name']}): 'schema' must be an object")
    return CapabilitySpec(**entry)
