"""The error hierarchy: stable codes, exit statuses, messages built from details."""

from __future__ import annotations

import pytest

from agentctx.base import errors
from agentctx.base.errors import (AgentctxError, ConfigError, ConflictError, MissingExtraError, NotFoundError, StoreError, UsageError, ValidationError)


@pytest.mark.parametrize("cls, status", [
    (ValidationError, 65), (NotFoundError, 66), (ConflictError, 65), (StoreError, 1),
    (ConfigError, 65), (UsageError, 64), (AgentctxError, 1),
])
def test_exit_codes_follow_sysexits(cls, status):
    assert cls("record_not_found", id="x").exit_code == status
    assert issubclass(cls, AgentctxError)


def test_message_is_built_from_the_template_and_details():
    exc = ValidationError("field_too_long", field="title", length=121, limit=120)
    assert str(exc) == "title is 121 characters; the limit is 120"
    assert exc.code == "field_too_long"
    assert exc.details == {"field": "title", "length": 121, "limit": 120}


def test_to_dict_has_error_and_code():
    exc = NotFoundError("record_not_found", id="01ABC")
    assert exc.to_dict() == {"error": "no record '01ABC' in this project", "code": "record_not_found"}


def test_missing_details_never_raise_while_formatting():
    exc = ConflictError("already_superseded", id="A")  # superseded_by and head missing
    assert "already_superseded" in str(exc)


def test_unknown_code_uses_the_code_itself():
    assert str(AgentctxError("something_new")) == "something_new"


def test_missing_extra_names_a_command_for_this_installation():
    exc = MissingExtraError("embeddings", "vectors")
    assert exc.exit_code == 1
    # Nothing is published as agentctx-memory: the advice never installs it from the package index.
    assert "'agentctx-memory[vectors]'" not in str(exc) and "fastembed" in str(exc) or "[vectors]'" in str(exc)
    assert str(exc).startswith("embeddings needs the [vectors] extra, which is not installed; add it with: ")


@pytest.mark.parametrize("code", ["db_corrupt", "db_locked"])
def test_store_messages_name_doctor(code):
    assert "agentctx doctor" in str(StoreError(code, path="/x.db", detail="d", holder="process 42"))


def test_every_template_is_one_line():
    assert all("\n" not in template for template in errors.MESSAGES.values())
