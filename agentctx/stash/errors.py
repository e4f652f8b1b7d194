"""The stash's single error type, its stable codes and the one place messages are built."""

from __future__ import annotations

from typing import Any, Literal

__all__ = ["ErrorCode", "StashError", "is_stash_error"]

ErrorCode = Literal[
    "ERR_DIVERGENCE",
    "ERR_RECORDING_EXHAUSTED",
    "ERR_INVALID_RECORDING",
    "ERR_INVALID_INPUT",
    "ERR_NOT_FOUND",
]
_CODES = frozenset(ErrorCode.__args__)  # type: ignore[attr-defined]
_SAFE_SCALARS = (str, int, float, bool, type(None))


def _safe(value: Any) -> Any:
    """Keep details JSON-safe: scalars, lists and str-keyed dicts only; anything else becomes its type name."""
    if isinstance(value, _SAFE_SCALARS):
        return value
    if isinstance(value, (list, tuple)):
        return [_safe(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _safe(item) for key, item in value.items()}
    return type(value).__name__


class StashError(Exception):
    """Every error the stash raises; branch on ``code``, never on the message.

    ``details`` is a JSON-safe dict that never holds recorded values or inputs, so it is safe to log.
    """

    code: ErrorCode
    details: dict[str, Any]

    def __init__(self, code: ErrorCode, message: str, **details: Any) -> None:
        if code not in _CODES:
            raise ValueError(f"unknown stash error code {code!r}")
        self.code = code
        self.details = _safe(details)
        self.message = message
        super().__init__(message)

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"

    def to_json(self) -> dict[str, Any]:
        """The error as ``{code, message, details}``, for ``--json`` output and logs."""
        return {"code": self.code, "message": self.message, "details": self.details}


def is_stash_error(value: object, code: ErrorCode | None = None) -> bool:
    """True when ``value`` is a :class:`StashError` (with ``code``, when given)."""
    return isinstance(value, StashError) and (code is None or value.code == code)
