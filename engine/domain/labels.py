"""Labels on rules (`team=ops`) and the selectors that pick rules by them.

A label is a short key and a short value, both from a small alphabet, so a selector travels in
a query string unescaped (`label=team=ops`) and a key can never be mistaken for the `=` that
ends it. The bounds keep a rule's labels a few hundred bytes: they are read with every rule.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from engine.errors import InvalidRule

_KEY_BODY = r"[a-z0-9][a-z0-9._/-]{0,62}"
_VALUE_BODY = r"[A-Za-z0-9._:@/-]{0,63}"
#: A key: a lower-case letter or digit first, then letters, digits, `.`, `_`, `/`, `-`.
KEY_PATTERN = f"^{_KEY_BODY}$"
#: A value: empty, or letters, digits, `.`, `_`, `-`, `:`, `@`, `/` (no spaces, no `=`, no `,`).
VALUE_PATTERN = f"^{_VALUE_BODY}$"
#: One term of a selector: `key=value`, or `key` alone (the rule has the key).
SELECTOR_PATTERN = f"^{_KEY_BODY}(={_VALUE_BODY})?$"
MAX_LABELS = 20
#: Most label requirements one selector may AND together.
MAX_SELECTORS = 10

_KEY = re.compile(KEY_PATTERN)
_VALUE = re.compile(VALUE_PATTERN)


def check_labels(labels: Mapping[str, str]) -> None:
    """InvalidRule naming `labels.<key>` for the first label out of bounds."""
    if not isinstance(labels, Mapping):
        raise InvalidRule("labels", "must be an object of key: value strings")
    if len(labels) > MAX_LABELS:
        raise InvalidRule("labels", f"has {len(labels)} labels; at most {MAX_LABELS}")
    for key, value in labels.items():
        if not isinstance(key, str) or not _KEY.match(key):
            raise InvalidRule("labels", f"key {key!r} does not match {KEY_PATTERN}")
        if not isinstance(value, str) or not _VALUE.match(value):
            raise InvalidRule(f"labels.{key}", f"value {value!r} does not match {VALUE_PATTERN}")


@dataclass(frozen=True)
class LabelRequirement:
    """One term of a selector: the rule has `key`, with `value` unless that is None."""

    key: str
    value: str | None


def parse_requirement(text: str) -> LabelRequirement:
    """`key=value` or `key` (has the key, any value); InvalidRule naming `label` otherwise."""
    key, has_value, value = text.partition("=")
    if not _KEY.match(key):
        raise InvalidRule(
            "label", f"{text!r}: key {key!r} does not match {KEY_PATTERN}", hint="use key=value"
        )
    if has_value and not _VALUE.match(value):
        raise InvalidRule("label", f"{text!r}: value {value!r} does not match {VALUE_PATTERN}")
    return LabelRequirement(key, value if has_value else None)


def parse_selector(texts: list[str] | tuple[str, ...]) -> tuple[LabelRequirement, ...]:
    """Every requirement of a selector (they are ANDed)."""
    if len(texts) > MAX_SELECTORS:
        raise InvalidRule("label", f"{len(texts)} label terms; at most {MAX_SELECTORS}")
    return tuple(parse_requirement(text) for text in texts)
