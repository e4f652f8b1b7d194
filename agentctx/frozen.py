"""Immutable records as tuple subclasses with named fields, built without `collections.namedtuple`'s cost.

namedtuple compiles a constructor with eval for every class (~0.1 ms each, more on a cold start); the hooks define
seven such classes on every prompt, so this builds the same shape from plain closures: a tuple subclass with a
property per field, keyword construction with defaults, `_fields`, `_replace`, `_asdict` and a readable repr.
"""

from operator import itemgetter

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def record_type(name: str, fields: str | tuple[str, ...], *, defaults: "tuple[Any, ...]" = ()) -> type:
    """A tuple subclass named `name` with `fields` (space-separated or a tuple); the last len(defaults) are optional."""
    names = tuple(fields.split()) if isinstance(fields, str) else tuple(fields)
    count = len(names)
    optional = dict(zip(names[count - len(defaults):], defaults))

    def __new__(cls, *args: "Any", **kwargs: "Any") -> "Any":  # noqa: N807
        if len(args) == count and not kwargs:
            return tuple.__new__(cls, args)
        if len(args) > count:
            raise TypeError(f"{name}() takes {count} values, got {len(args)}")
        values = list(args)
        for field in names[len(args):]:
            if field in kwargs:
                values.append(kwargs.pop(field))
            elif field in optional:
                values.append(optional[field])
            else:
                raise TypeError(f"{name}() missing required argument: {field!r}")
        if kwargs:
            raise TypeError(f"{name}() got unexpected or repeated arguments: {', '.join(sorted(kwargs))}")
        return tuple.__new__(cls, values)

    def _replace(self: "Any", **changes: "Any") -> "Any":
        unknown = set(changes) - set(names)
        if unknown:
            raise ValueError(f"{name} has no field(s) {', '.join(sorted(unknown))}")
        return tuple.__new__(type(self), [changes.get(f, v) for f, v in zip(names, self)])

    def _asdict(self: "Any") -> "dict[str, Any]":
        return dict(zip(names, self))

    def __repr__(self: "Any") -> str:
        return f"{type(self).__name__}({', '.join(f'{f}={v!r}' for f, v in zip(names, self))})"

    def __getnewargs__(self: "Any") -> "tuple[Any, ...]":
        return tuple(self)

    namespace: "dict[str, Any]" = {
        "__slots__": (), "_fields": names, "_field_defaults": optional, "__new__": __new__,
        "_replace": _replace, "_asdict": _asdict, "__repr__": __repr__, "__getnewargs__": __getnewargs__,
        "__match_args__": names,
    }
    for index, field in enumerate(names):
        namespace[field] = property(itemgetter(index), doc=f"field {index}: {field}")
    try:  # like namedtuple: the class belongs to the caller's module (pickling looks it up there)
        import sys

        namespace["__module__"] = sys._getframe(1).f_globals.get("__name__", __name__)
    except (AttributeError, ValueError):
        pass
    return type(name, (tuple,), namespace)
