"""A small declarative schema for untrusted JSON-like data: each field's rule is written once.

``read(rule, value, context, subject)`` walks ``value`` along a tree of rules and returns it normalized (records as
dicts with every default filled in, lists as lists or tuples), or raises a ``FieldError`` (a ``ValueError``)
naming the path of the first bad field: ``state: players[1].reserve.water must be an int in 0..20; got 2.9``.

Types are exact: a bool is not an int, and neither ``2.9`` nor ``"3"`` is a count; a record rejects the keys it
does not know (suggesting the closest known one) and reports a missing required key by name. A default is raw
data read through its field's rule like given data, so it is checked the same way; a bound, a length or a
default may depend on what was read before (the ``context``: the number of players, the level), given as a
function of it. Lists are measured before their items are read, so an oversized list is refused at once.
"""

from __future__ import annotations

import difflib
import numbers
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

#: A bound, length or default: a value, or a function of the context computing it.
Dependent = Any
_REQUIRED = object()


class FieldError(ValueError):
    """A value that breaks its rule; ``path`` names the field (``players[1].reserve.water``)."""

    def __init__(self, path: str, problem: str, subject: str = "") -> None:
        where = f"{path or 'the top level'} {problem}"
        super().__init__(f"{subject}: {where}" if subject else where)
        self.path = path
        self.problem = problem


def read(rule: Rule, value: object, context: object, subject: str) -> Any:
    """``value`` checked against ``rule`` and normalized; a ``FieldError`` names ``subject`` and the bad field."""
    try:
        return rule.read(value, "", context)
    except FieldError as error:
        raise FieldError(error.path, error.problem, subject) from None


def _resolve(x: Dependent, context: object) -> Any:
    return x(context) if callable(x) else x


def show(value: object) -> str:
    """A short description of a bad value (a huge list or string is not printed whole)."""
    if isinstance(value, (list, tuple, dict)):
        return f"a {type(value).__name__} of {len(value)} entries" if len(value) > 8 else repr(value)[:120]
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def join_path(path: str, key: str) -> str:
    """The path of field ``key`` of the record at ``path``."""
    return f"{path}.{key}" if path else key


class Rule(ABC):
    """A rule for one field: ``read`` returns the normalized value or raises ``FieldError``."""

    @abstractmethod
    def read(self, value: object, path: str, context: object) -> Any:
        """The value, checked and normalized; ``FieldError`` naming ``path`` otherwise."""


class Int(Rule):
    """An int (never a bool, a float or a string) in ``lo..hi``."""

    def __init__(self, lo: Dependent, hi: Dependent) -> None:
        self.lo, self.hi = lo, hi

    def read(self, value: object, path: str, context: object) -> int:
        lo, hi = _resolve(self.lo, context), _resolve(self.hi, context)
        exact = type(value) is int or (isinstance(value, numbers.Integral) and not isinstance(value, bool))
        if not exact or not lo <= value <= hi:
            raise FieldError(path, f"must be an int in {lo}..{hi}; got {show(value)}")
        return int(value)


class Bool(Rule):
    """``true`` or ``false`` (not 0, 1 or a string)."""

    def read(self, value: object, path: str, context: object) -> bool:
        if not isinstance(value, bool):
            raise FieldError(path, f"must be true or false; got {show(value)}")
        return value


class Choice(Rule):
    """One of a few strings."""

    def __init__(self, values: tuple[str, ...]) -> None:
        self.values = values

    def read(self, value: object, path: str, context: object) -> str:
        if not isinstance(value, str) or value not in self.values:
            shown = ", ".join(repr(v) for v in self.values)
            raise FieldError(path, f"must be one of {shown}; got {show(value)}")
        return value


class Nullable(Rule):
    """``null`` or a value of ``rule``."""

    def __init__(self, rule: Rule) -> None:
        self.rule = rule

    def read(self, value: object, path: str, context: object) -> Any:
        return None if value is None else self.rule.read(value, path, context)


class ListOf(Rule):
    """A list (or tuple) of ``min_len..max_len`` values of ``item``; ``unique``: no value twice."""

    def __init__(
        self,
        item: Rule,
        max_len: Dependent,
        min_len: Dependent = 0,
        unique: bool = False,
        as_tuple: bool = False,
        what: str = "entries",
    ) -> None:
        self.item, self.max_len, self.min_len = item, max_len, min_len
        self.unique, self.as_tuple, self.what = unique, as_tuple, what

    def read(self, value: object, path: str, context: object) -> list | tuple:
        if not isinstance(value, (list, tuple)):
            raise FieldError(path, f"must be a list; got {type(value).__name__}")
        lo, hi = _resolve(self.min_len, context), _resolve(self.max_len, context)
        if not lo <= len(value) <= hi:
            wanted = f"{lo}" if lo == hi else f"{lo}..{hi}"
            raise FieldError(path, f"must hold {wanted} {self.what}; got {len(value)}")
        out = [self.item.read(v, f"{path}[{k}]", context) for k, v in enumerate(value)]
        if self.unique and len(set(out)) != len(out):
            twice = next(v for k, v in enumerate(out) if v in out[:k])
            raise FieldError(path, f"lists {twice!r} twice; its {self.what} must be distinct")
        return tuple(out) if self.as_tuple else out


class Fixed(Rule):
    """A list of exactly ``len(items)`` values, each read by its own rule; returned as a tuple."""

    def __init__(self, *items: Rule, what: str) -> None:
        self.items, self.what = items, what

    def read(self, value: object, path: str, context: object) -> tuple:
        if not isinstance(value, (list, tuple)) or len(value) != len(self.items):
            raise FieldError(path, f"must be a list {self.what}; got {show(value)}")
        return tuple(
            rule.read(v, f"{path}[{k}]", context) for k, (rule, v) in enumerate(zip(self.items, value, strict=True))
        )


@dataclass(frozen=True)
class Field:
    """A record's field: its rule and its default (raw data read through the rule; omitted: required)."""

    rule: Rule
    default: Any = _REQUIRED


class Record(Rule):
    """An object with string keys: known keys only, required ones present, defaults for the others."""

    def __init__(self, fields: Mapping[str, Field]) -> None:
        self.fields = dict(fields)

    def read(self, value: object, path: str, context: object) -> dict[str, Any]:
        if not isinstance(value, Mapping):
            raise FieldError(path, f"must be an object with keys {', '.join(self.fields)}; got {type(value).__name__}")
        unknown = [k for k in value if k not in self.fields]
        if unknown:
            key = unknown[0]
            close = difflib.get_close_matches(str(key), self.fields, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else f"; known keys: {', '.join(self.fields)}"
            raise FieldError(path, f"has an unknown key {show(key)}{hint}")
        out = {}
        for key, field in self.fields.items():
            if key in value:
                out[key] = field.rule.read(value[key], join_path(path, key), context)
            elif field.default is _REQUIRED:
                raise FieldError(path, f"lacks the required key {key!r}")
            else:
                out[key] = field.rule.read(_resolve(field.default, context), join_path(path, key), context)
        return out


class Checked(Rule):
    """``rule``, then ``check(value, context)``: a problem (said of the field) or ``None``."""

    def __init__(self, rule: Rule, check: Callable[[Any, object], str | None]) -> None:
        self.rule, self.check = rule, check

    def read(self, value: object, path: str, context: object) -> Any:
        out = self.rule.read(value, path, context)
        problem = self.check(out, context)
        if problem:
            raise FieldError(path, problem)
        return out


class Converted(Rule):
    """``rule``, then ``convert(value, context)`` (e.g. a record of counts into a tuple)."""

    def __init__(self, rule: Rule, convert: Callable[[Any, object], Any]) -> None:
        self.rule, self.convert = rule, convert

    def read(self, value: object, path: str, context: object) -> Any:
        return self.convert(self.rule.read(value, path, context), context)


class Either(Rule):
    """The rule ``pick(value)`` names for this value (one of a few record shapes, told apart by a key)."""

    def __init__(self, pick: Callable[[object], Rule]) -> None:
        self.pick = pick

    def read(self, value: object, path: str, context: object) -> Any:
        return self.pick(value).read(value, path, context)


class Word(Rule):
    """A non-negative int below ``2**bits``, also written as a string of ASCII decimal digits (JSON numbers lose
    precision past 2**53)."""

    def __init__(self, bits: int) -> None:
        self.bits = bits

    def read(self, value: object, path: str, context: object) -> int:
        if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 40:
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 0 <= value < 2**self.bits:
            raise FieldError(path, f"must be an int in 0..2**{self.bits}-1 (or its decimal string); got {show(value)}")
        return int(value)
