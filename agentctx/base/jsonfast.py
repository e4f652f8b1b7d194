"""JSON for the hook path: CPython's C accelerator (`_json`, what `json` itself runs on) without importing `json`.

`json` compiles regular expressions at import, which loads `re` and `enum`: ~4.5 ms of a ~20 ms hook process
(bench/hooks.py), paid on every prompt. The scanner and encoder below are the ones `json.loads` / `json.dumps`
build with their default settings. Whatever the fast path does not take (another Python, a BOM, bad input, an
object it cannot encode) goes to `json` itself, so values and errors are always json's own.
"""

try:
    from _json import encode_basestring, encode_basestring_ascii, make_encoder, make_scanner
except ImportError:  # not CPython: the standard module does the work
    make_scanner = None

_WHITESPACE = " \t\n\r"  # JSON's four whitespace characters, as json.decoder.WHITESPACE


class _Defaults:
    """The attributes `_json.make_scanner` reads from a JSONDecoder, as `json.loads` sets them by default."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}.__getitem__


_scan = None
if make_scanner is not None:
    try:
        _scan = make_scanner(_Defaults())
    except Exception:  # an interpreter whose accelerator reads other attributes
        _scan = None


def _refuse(obj: object) -> object:
    raise TypeError(f"Object of type {type(obj).__name__} is not JSON serializable")


def loads(data: "str | bytes") -> object:
    """`json.loads(data)`."""
    if _scan is not None:
        try:
            text = data.decode("utf-8") if isinstance(data, (bytes, bytearray)) else data
            start = len(text) - len(text.lstrip(_WHITESPACE))
            value, end = _scan(text, start)
            if not text[end:].strip(_WHITESPACE):
                return value
        except Exception:  # json says what is wrong, in its own words
            pass
    import json

    return json.loads(data)


def dumps(obj: object, *, ensure_ascii: bool = True) -> str:
    """`json.dumps(obj, ensure_ascii=ensure_ascii, separators=(",", ":"))`: compact, keys in insertion order."""
    if _scan is not None:
        try:
            # The arguments JSONEncoder.iterencode passes: markers (circular check), default, string encoder,
            # indent, key and item separators, sort_keys, skipkeys, allow_nan.
            encode = make_encoder({}, _refuse, encode_basestring_ascii if ensure_ascii else encode_basestring,
                                  None, ":", ",", False, False, True)
            return "".join(encode(obj, 0))
        except Exception:
            pass
    import json

    return json.dumps(obj, ensure_ascii=ensure_ascii, separators=(",", ":"))
