"""config.json: defaults, lenient reads, strict writes, private file."""

from __future__ import annotations

import json
import stat

import pytest

from agentctx.base import config, paths
from agentctx.base.errors import ConfigError


def test_defaults_without_a_file():
    values = config.load()
    assert values == {name: key.default for name, key in config.KEYS.items()}
    assert values["reinforceThreshold"] == 3
    assert values["extractionModel"] == "claude-haiku-4-5"
    assert values["embeddingModel"] == "BAAI/bge-small-en-v1.5"
    assert values["embeddingModelPath"] is None


def test_set_then_get_round_trips_and_parses():
    assert config.set_value("reinforceThreshold", "5") == 5
    assert config.get("reinforceThreshold") == 5
    assert config.set_value("llm", "false") is False
    assert config.get("llm") is False
    assert config.set_value("modelTier", "quality") == "quality"


def test_set_keeps_other_keys_including_unknown_ones():
    paths.ensure_private_dir(paths.home())
    paths.config_path().write_text(json.dumps({"custom": 1, "llm": False}))
    config.set_value("reinforceThreshold", 7)
    data = json.loads(paths.config_path().read_text())
    assert data == {"custom": 1, "llm": False, "reinforceThreshold": 7}


def test_config_file_is_private():
    config.set_value("llm", "true")
    assert stat.S_IMODE(paths.config_path().stat().st_mode) == 0o600
    assert stat.S_IMODE(paths.home().stat().st_mode) == 0o700


@pytest.mark.parametrize("key, raw", [
    ("reinforceThreshold", "0"), ("reinforceThreshold", "three"), ("reinforceThreshold", True),
    ("llm", "maybe"), ("modelTier", "best"), ("extractionModel", "  "),
])
def test_bad_values_are_refused_and_nothing_is_written(key, raw):
    with pytest.raises(ConfigError) as info:
        config.set_value(key, raw)
    assert info.value.code == "config_bad_value"
    assert info.value.exit_code == 65
    assert not paths.config_path().exists()


def test_unknown_key_is_refused_for_get_and_set():
    for call in (lambda: config.get("nope"), lambda: config.set_value("nope", "1")):
        with pytest.raises(ConfigError) as info:
            call()
        assert info.value.code == "config_unknown_key"
        assert "reinforceThreshold" in str(info.value)


def test_load_is_lenient_with_a_corrupt_file():
    paths.ensure_private_dir(paths.home())
    paths.config_path().write_text("{not json")
    assert config.load()["reinforceThreshold"] == 3


def test_load_is_lenient_with_bad_values():
    paths.ensure_private_dir(paths.home())
    paths.config_path().write_text(json.dumps({"reinforceThreshold": "lots", "llm": "off"}))
    values = config.load()
    assert values["reinforceThreshold"] == 3
    assert values["llm"] is False


@pytest.mark.parametrize("text", ["{not json", "[1, 2]"])
def test_set_refuses_to_overwrite_a_corrupt_file(text):
    paths.ensure_private_dir(paths.home())
    paths.config_path().write_text(text)
    with pytest.raises(ConfigError) as info:
        config.set_value("llm", "true")
    assert info.value.code == "config_invalid"
    assert paths.config_path().read_text() == text


def test_ensure_file_writes_defaults_once():
    assert config.ensure_file() is True
    data = json.loads(paths.config_path().read_text())
    assert data["reinforceThreshold"] == 3
    assert "embeddingModelPath" not in data  # None defaults are left out
    config.set_value("reinforceThreshold", 9)
    assert config.ensure_file() is False
    assert config.get("reinforceThreshold") == 9


def test_explicit_path_argument(tmp_path):
    path = tmp_path / "other.json"
    config.set_value("llm", "no", path)
    assert config.get("llm", path) is False
    assert config.get("llm") is True
