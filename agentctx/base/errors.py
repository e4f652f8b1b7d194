"""The error root of agentctx: every failure a caller can act on, with a stable code and an exit status."""

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# sysexits(3): what a CLI exit status means to a script.
EX_OTHER = 1
EX_USAGE = 64
EX_DATAERR = 65
EX_NOINPUT = 66

# One place for every message: code -> template over the error's details.
MESSAGES: dict[str, str] = {
    "invalid_type": "invalid type {value!r}: expected one of {allowed}",
    "invalid_scope": "invalid scope {value!r}: expected one of {allowed}",
    "invalid_confidence": "invalid confidence {value!r}: expected one of {allowed}",
    "invalid_source": "invalid source {value!r}: expected one of {allowed}",
    "blank_field": "{field} must not be blank",
    "field_too_long": "{field} is {length} characters; the limit is {limit}",
    "invalid_field": "{field} {problem}",
    "record_not_found": "no record {id!r} in this project",
    "rule_file_not_found": "no rule file {path!r} delivered in this project (`agentctx rules` lists them)",
    "id_too_short": "id {id!r} is too short: give at least {min} characters of it (its last 8, as lists show "
                    "them: e.g. {example}, or the whole id)",
    "ambiguous_id": "id prefix {id!r} matches {count} records ({candidates}); give more characters",
    "title_outdated": "the kept title {title!r} says {words}, which the new body no longer says: give the new "
                      "record a title with --title (ctx_supersede: `title`); nothing was changed",
    "already_superseded": "record {id} was already superseded by {superseded_by}; supersede the current head {head} instead",
    "cross_namespace": "record {id} belongs to another namespace; records with scope: \"global\" can only be superseded by global records",
    "db_missing": "no agentctx database at {path}; run `agentctx init`",
    "db_corrupt": "the database at {path} is damaged ({detail}); run `agentctx doctor`",
    "db_locked": "the database at {path} is locked by {holder} ({detail}); retry when it is done (close it if it "
                 "is a database browser), or run `agentctx doctor`",
    "db_readonly": "cannot write the database at {path}: {reason} ({detail}); {fix} (this is not corruption)",
    "db_full": "no space left for the database at {path} ({free} free; {detail}); free some space and retry "
               "(the write was not made; this is not corruption)",
    "db_io": "the disk reported an I/O error on the database at {path} ({detail}); check the disk and its "
             "system log, then run `agentctx doctor`",
    "db_unopenable": "cannot open the database at {path} ({detail}); check that the file and its directory exist "
                     "and are yours, then run `agentctx doctor`",
    "db_error": "the database at {path} reported an error ({detail}); run `agentctx doctor`",
    "db_newer": "the database at {path} has schema version {found}, newer than this agentctx ({known}); upgrade agentctx",
    "config_invalid": "config {path} is not valid JSON ({detail})",
    "config_unknown_key": "unknown config key {key!r}: known keys are {known}",
    "config_bad_value": "config key {key!r}: {problem}",
    "missing_extra": "{feature} needs the [{extra}] extra, which is not installed; add it with: {fix}",
    "no_llm_backend": "{feature} needs an LLM backend and none is on ({reason}): {fix}",
    "not_confirmed": "{action} cancelled: not confirmed (use --force to skip the question)",
    "file_unreadable": "cannot read {path}: {detail}",
    "file_unwritable": "cannot write {path}: {detail}",
    "file_invalid": "{path} is not valid {kind} ({detail})",
    "edit_unverified": "{path}: {what} would not read back as intended ({detail}); nothing was written",
    "agent_not_installed": "{label} is not installed here ({detail}): nothing was written for it; "
                           "`agentctx init --agent {agent} --force` writes its settings anyway",
    "port_unavailable": "cannot listen on {host}:{port} ({detail}): pick another with --port N, or leave --port "
                        "out and a free port is chosen",
    "missing_action": "`agentctx {command}` needs an action: {actions} (see `agentctx {command} --help`)",
    "team_file_too_large": "{path} is {size} bytes, over the {limit}-byte cap of a team or profile file; nothing was "
                           "imported (docs/team.md: a real team's file is far smaller; check where it came from)",
    "team_file_too_many": "{path} holds {count} entries, over the cap of {limit}; nothing was imported (docs/team.md)",
    "team_import_too_large": "importing {path} would add or change {count} records, over the cap of {limit} for one "
                             "import; nothing was imported (review the file; `--max-records N` raises the cap once)",
    "team_unimported": "{path} has changes not imported ({detail}): run `agentctx {kind} import` first, or export with --force to overwrite them",
    "invalid_as_of": "as_of {value!r} is neither a date (YYYY-MM-DD or ISO 8601) nor a git ref of this repository{detail}",
    # per-project control, review, forget, import (docs/control.md)
    "needs_terminal": "{command} asks before it changes anything and there is no terminal to ask: {hint}",
    "not_on_here": "cannot turn agentctx on here: {path} matches excludedPaths glob {glob!r} (remove it with `agentctx config set excludedPaths ...`)",
}


class AgentctxError(Exception):
    """Root of every agentctx error; `code` is stable, `details` are JSON-safe, the message is built from both."""

    exit_code = EX_OTHER

    def __init__(self, code: str, **details: "Any") -> None:
        self.code = code
        self.details = details
        template = MESSAGES.get(code, code)
        try:
            message = template.format(**details)
        except (KeyError, IndexError, ValueError):
            message = f"{code}: {details}"
        super().__init__(message)

    def to_dict(self) -> "dict[str, Any]":
        """The error as a JSON object for `--json` output and MCP results."""
        return {"error": str(self), "code": self.code}


class ValidationError(AgentctxError):
    """Input that breaks the record contract; nothing was written."""

    exit_code = EX_DATAERR


class NotFoundError(AgentctxError):
    """A record, file or database that is not there (or not visible from this project)."""

    exit_code = EX_NOINPUT


class ConflictError(AgentctxError):
    """A write that would break an invariant, such as superseding a record that is not the head."""

    exit_code = EX_DATAERR


class StoreError(AgentctxError):
    """The database cannot be used: damaged, locked, or from a newer version."""

    exit_code = EX_OTHER


class ConfigError(AgentctxError):
    """A bad config file, key or value."""

    exit_code = EX_DATAERR


class MissingExtraError(AgentctxError):
    """An optional dependency is not installed; the message names the command that adds it to this installation."""

    exit_code = EX_OTHER

    def __init__(self, feature: str, extra: str) -> None:
        from .extras import install_command  # only when raised: it reads the installation's metadata

        super().__init__("missing_extra", feature=feature, extra=extra, fix=install_command(extra))


class UsageError(AgentctxError):
    """A command line that cannot be carried out as written."""

    exit_code = EX_USAGE
