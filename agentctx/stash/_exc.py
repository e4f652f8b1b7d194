"""How a thrown exception is stored (type, module, message, args) and raised again on replay."""

from __future__ import annotations

import sys
from typing import Any

from ._canonical import to_json_value
from .errors import StashError

__all__ = ["encode_error", "rebuild_error"]


def encode_error(error: BaseException) -> dict[str, Any]:
    """The stored form of an exception. Stack traces are never stored."""
    cls = type(error)
    if isinstance(error, StashError):
        return {
            "type": "StashError",
            "module": __name__.rsplit(".", 1)[0] + ".errors",
            "message": error.message,
            "args": [],
            "code": error.code,
        }
    try:
        args = to_json_value(list(error.args), "error.args")
    except StashError:
        args = None
    return {"type": cls.__qualname__, "module": cls.__module__, "message": str(error), "args": args}


def _resolve(module: str, qualname: str) -> type[BaseException] | None:
    # Only modules already imported are consulted: a recording must never trigger an import.
    target: Any = sys.modules.get(module)
    for part in qualname.split("."):
        target = getattr(target, part, None)
    if isinstance(target, type) and issubclass(target, Exception):
        return target
    return None


def rebuild_error(payload: Any) -> BaseException:
    """The exception to raise for a recorded ``throw``: the original class when it can be rebuilt,
    else a :class:`StashError` (``ERR_NOT_FOUND``) carrying the type name and message."""
    if not isinstance(payload, dict):
        return StashError("ERR_NOT_FOUND", "replayed error with no stored detail", replayed=True)
    name = str(payload.get("type", "Exception"))
    message = str(payload.get("message", ""))
    if name == "StashError" and payload.get("code"):
        try:
            return StashError(payload["code"], message, replayed=True)
        except ValueError:
            pass
    cls = _resolve(str(payload.get("module", "")), name)
    args = payload.get("args")
    if cls is not None:
        try:
            error = cls(*args) if isinstance(args, list) else cls(message)
        except Exception:
            error = cls.__new__(cls)
            Exception.__init__(error, *(args if isinstance(args, list) else [message]))
        if str(error) == message or not message:
            return error
    return StashError(
        "ERR_NOT_FOUND",
        f"{name}: {message}" if message else name,
        replayed=True,
        error_type=name,
        error_module=payload.get("module"),
    )
