"""agentctx.base.jsonfast gives json's own values, output and errors, without importing json on the hook path."""

import json
import platform
import random
import subprocess
import sys
from pathlib import Path

import pytest

from agentctx.base import jsonfast

DOCS = [
    '{"session_id": "abc", "prompt": "fix the cache", "n": 1}',
    '  {"a": [1, -2, 3.5, 1e400, -0.0, 12345678901234567890123, true, false, null]}\n',
    r'{"s": "tab\tquote\" slash\/ \u00e9 \ud83d\ude00 lone \ud800 \\ end"}',
    '{"nested": {"a": {"b": {"c": [[], {}, [{}]]}}}, "dup": 1, "dup": 2}',
    '[NaN, Infinity, -Infinity]',
    '"just a string"', '42', 'null', '\t\r\n[]\t\r\n',
    '{"ünïcode-key": "日本語", "emoji": "🎉"}',
]
BAD = ['', '   ', '{', '{"a": }', '{"a": 1} x', '{"a": 1}{}', "{'a': 1}", '[1,]', '{"a": "\x01"}',
       '\ufeff{"a": 1}', 'nan', '{"a": 01}', '[1 2]', '"\\x"', '{"a"', '\u00a0{}']


def _same(a: object, b: object) -> bool:
    # NaN is not equal to itself: compare through repr, which also tells -0.0 from 0.0.
    return repr(a) == repr(b)


def test_the_accelerated_path_is_active_on_cpython():
    if platform.python_implementation() == "CPython":
        assert jsonfast._scan is not None


@pytest.mark.parametrize("doc", DOCS)
def test_loads_equals_json_for_str_and_bytes(doc):
    assert _same(jsonfast.loads(doc), json.loads(doc))
    assert _same(jsonfast.loads(doc.encode("utf-8", "surrogatepass")), json.loads(doc.encode("utf-8", "surrogatepass")))


def test_a_utf8_bom_in_bytes_is_accepted_as_json_accepts_it():
    data = b"\xef\xbb\xbf" + b'{"a": 1}'
    assert jsonfast.loads(data) == json.loads(data) == {"a": 1}


@pytest.mark.parametrize("doc", BAD)
def test_bad_input_raises_json_own_error(doc):
    with pytest.raises(ValueError) as expected:
        json.loads(doc)
    with pytest.raises(ValueError) as got:
        jsonfast.loads(doc)
    assert type(got.value) is type(expected.value) and str(got.value) == str(expected.value)


def test_invalid_utf8_bytes_raise_like_json():
    with pytest.raises(ValueError):
        json.loads(b'{"a": "\xff"}')
    with pytest.raises(ValueError):
        jsonfast.loads(b'{"a": "\xff"}')


def test_random_documents_round_trip_like_json():
    rng = random.Random(11)
    alphabet = 'ab "\\/\n\té日😀\x00\x1f\u2028'

    def value(depth: int) -> object:
        kind = rng.randrange(7 if depth < 4 else 5)
        if kind == 0:
            return rng.randint(-10**20, 10**20)
        if kind == 1:
            return rng.choice([0.1, -2.5e-8, 1e300, 3.0, float("nan"), float("inf")])
        if kind == 2:
            return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        if kind == 3:
            return rng.choice([True, False, None])
        if kind == 4:
            return rng.choice([1, "x"])
        if kind == 5:
            return [value(depth + 1) for _ in range(rng.randint(0, 4))]
        return {"".join(rng.choice(alphabet) for _ in range(rng.randint(0, 6))): value(depth + 1)
                for _ in range(rng.randint(0, 4))}

    for _ in range(300):
        obj = value(0)
        for ascii_only in (True, False):
            want = json.dumps(obj, ensure_ascii=ascii_only, separators=(",", ":"))
            assert jsonfast.dumps(obj, ensure_ascii=ascii_only) == want
            assert _same(jsonfast.loads(want), json.loads(want))


def test_dumps_keeps_json_conversions_of_keys_and_refuses_what_json_refuses():
    obj = {7: "int", 2.5: "float", True: "bool", None: "none", "s": (1, 2)}
    assert jsonfast.dumps(obj) == json.dumps(obj, separators=(",", ":"))
    with pytest.raises(TypeError, match="not JSON serializable"):
        jsonfast.dumps({"p": Path("x")})
    loop: list[object] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference"):
        jsonfast.dumps(loop)


def test_importing_it_loads_neither_json_nor_re():
    code = "import sys; from agentctx.base import jsonfast; jsonfast.loads('{\"a\": [1]}'); jsonfast.dumps({'a': 1});" \
           "print(sorted(m for m in ('json', 're', 'enum') if m in sys.modules))"
    root = str(Path(__file__).resolve().parents[2])
    done = subprocess.run([sys.executable, "-S", "-c", f"import sys; sys.path.insert(0, {root!r}); {code}"],
                          capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
