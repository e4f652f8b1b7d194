"""A small JSON Schema validator for the subset the tool schemas use (type, properties, enum, bounds, items)."""

from __future__ import annotations

from typing import Any

_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,), "array": (list,), "string": (str,), "boolean": (bool,),
    "integer": (int,), "number": (int, float), "null": (type(None),),
}


def _is(value: Any, name: str) -> bool:
    if name in ("integer", "number") and isinstance(value, bool):
        return False  # JSON true is not a number
    if name == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, _TYPES[name])


def _where(path: str) -> str:
    return path or "arguments"


def validate(value: Any, schema: dict[str, Any], path: str = "") -> list[str]:
    """Every way `value` breaks `schema`, as readable messages naming the offending field (empty = valid).

    Supported keywords: type (string or list), enum, const, properties, required, additionalProperties
    (bool or schema), minLength, maxLength, minimum, maximum, items, minItems, maxItems, uniqueItems, anyOf.
    Unknown keywords are ignored, as JSON Schema requires.
    """
    errors: list[str] = []
    types = schema.get("type")
    if types is not None:
        names = [types] if isinstance(types, str) else list(types)
        if not any(_is(value, n) for n in names):
            return [f"{_where(path)} must be {' or '.join(names)}, not {_json_type(value)}"]
    if "const" in schema and value != schema["const"]:
        errors.append(f"{_where(path)} must be {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{_where(path)} must be one of {', '.join(map(str, schema['enum']))}, not {_clip(repr(value))}")
    if "anyOf" in schema and not any(not validate(value, sub, path) for sub in schema["anyOf"]):
        errors.append(f"{_where(path)} matches none of the allowed forms")
    if isinstance(value, str):
        if "minLength" in schema and len(value) < schema["minLength"]:
            errors.append(f"{_where(path)} must have at least {schema['minLength']} characters")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            errors.append(f"{_where(path)} is {len(value)} characters; the limit is {schema['maxLength']}")
    if _is(value, "number"):
        if "minimum" in schema and value < schema["minimum"]:
            errors.append(f"{_where(path)} must be >= {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            errors.append(f"{_where(path)} must be <= {schema['maximum']}")
    if isinstance(value, list):
        errors += _array(value, schema, path)
    if isinstance(value, dict):
        errors += _object(value, schema, path)
    return errors


def _array(value: list[Any], schema: dict[str, Any], path: str) -> list[str]:
    errors: list[str] = []
    if "minItems" in schema and len(value) < schema["minItems"]:
        errors.append(f"{_where(path)} must have at least {schema['minItems']} items")
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        # Stop here: checking each of a million items (or their uniqueness) is work an oversized array must not buy.
        return errors + [f"{_where(path)} has {len(value)} items; the limit is {schema['maxItems']}"]
    if schema.get("uniqueItems"):
        seen: list[Any] = []
        for item in value:
            if item in seen:
                errors.append(f"{_where(path)} must not repeat {_clip(repr(item))}")
                break
            seen.append(item)
    items = schema.get("items")
    if isinstance(items, dict):
        for i, item in enumerate(value):
            errors += validate(item, items, f"{path}[{i}]")
    return errors


def _object(value: dict[str, Any], schema: dict[str, Any], path: str) -> list[str]:
    errors: list[str] = []
    props: dict[str, Any] = schema.get("properties", {})
    for name in schema.get("required", ()):
        if name not in value:
            errors.append(f"{_join(path, name)} is required")
    extra = schema.get("additionalProperties", True)
    for name, item in value.items():
        if name in props:
            errors += validate(item, props[name], _join(path, name))
        elif extra is False:
            errors.append(f"{_join(path, name)} is not a known field (known: {', '.join(props) or 'none'})")
        elif isinstance(extra, dict):
            errors += validate(item, extra, _join(path, name))
    return errors


def _join(path: str, name: str) -> str:
    name = _clip(name)
    return f"{path}.{name}" if path else name


def _clip(text: str, limit: int = 80) -> str:
    """A value or field name quoted in a message, cut short: an error never echoes a huge argument."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


def _json_type(value: Any) -> str:
    for name in ("null", "boolean", "integer", "number", "string", "array", "object"):
        if _is(value, name):
            return name
    return type(value).__name__
