"""The ``agentctx stash`` command line: inspect, diff, fork, seal, verify, redact, with sysexits codes."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import IO, Any, Callable, Optional, Sequence

from ._canonical import content_hash
from .diff import diff_recordings, format_diff
from .errors import StashError
from .forking import fork
from .model import Recording
from .redact import scrub_value
from .seal import RecordingSeal, seal_recording, verify_recording
from .storage import decode_recording, encode_jsonl, encode_recording, recording_stats, recording_from_json

__all__ = ["EX_DATAERR", "EX_FAILED", "EX_NOINPUT", "EX_OK", "EX_USAGE", "main"]

EX_OK, EX_FAILED, EX_USAGE, EX_DATAERR, EX_NOINPUT = 0, 1, 64, 65, 66
PROG = "agentctx stash"


class _UsageError(Exception):
    """Raised instead of argparse's exit so usage errors map to 64 with one line on stderr."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # type: ignore[override]
        raise _UsageError(message)


class _Failed(Exception):
    """A check that ran and failed (exit 1)."""


def _build_parser() -> _Parser:
    parser = _Parser(prog=PROG, description="Inspect, compare, fork, seal and redact stash recordings.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in ("inspect", "stats"):
        p = sub.add_parser(name, help="summarise a recording")
        p.add_argument("recording")
        p.add_argument("--json", action="store_true", help="machine-readable output")
        p.add_argument("--events", action="store_true", help="also list every event")
    p = sub.add_parser("diff", help="compare two recordings by call identity")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--json", action="store_true")
    p.add_argument("--exit-code", action="store_true", help="exit 1 when the recordings differ")
    p = sub.add_parser("fork", help="keep the events before --at, optionally override the one at --at")
    p.add_argument("recording")
    p.add_argument("--at", type=int, required=True)
    p.add_argument("--override", help="JSON value returned at --at")
    p.add_argument("--id", help="id of the new recording")
    p.add_argument("-o", "--output", help="write here instead of stdout")
    p = sub.add_parser("seal", help="print (or write) the SHA-256 chain seal of a recording")
    p.add_argument("recording")
    p.add_argument("-o", "--output", help="write the seal JSON here")
    p = sub.add_parser("verify", help="check a recording against its seal (exit 1 when broken)")
    p.add_argument("recording")
    p.add_argument("seal")
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("redact", help="run the default secret scrubber over every stored value and input")
    p.add_argument("recording")
    p.add_argument("-o", "--output", help="write here instead of stdout")
    return parser


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise FileNotFoundError(f"cannot read {path}: {getattr(error, 'strerror', None) or error}") from None


def _load(path: str) -> Recording:
    return decode_recording(_read(path))


def _emit(text: str, output: Optional[str], out: IO[str]) -> None:
    if output:
        Path(output).write_text(text, encoding="utf-8")
    else:
        out.write(text)


def _encode_like(recording: Recording, output: Optional[str]) -> str:
    return encode_jsonl(recording) if output and output.endswith(".jsonl") else encode_recording(recording)


def _cmd_inspect(args: argparse.Namespace, out: IO[str]) -> int:
    recording = _load(args.recording)
    stats = recording_stats(recording)
    if args.json:
        data = stats.to_json()
        if args.events:
            data["event_list"] = [e.to_json() for e in recording.events]
        out.write(json.dumps(data, indent=2) + "\n")
        return EX_OK
    out.write(f"recording {stats.id}\n")
    out.write(f"  events {stats.events} (throws {stats.throws}, dropped {stats.dropped}, with input {stats.with_input})\n")
    out.write(f"  blobs  {stats.blobs} ({stats.blob_bytes} bytes)\n")
    for channel, count in sorted(stats.channels.items()):
        out.write(f"  {channel:<12} {count}\n")
    if "fork" in recording.meta:
        out.write(f"  fork of {recording.meta['fork'].get('from')} at {recording.meta['fork'].get('at')}\n")
    if args.events:
        for e in recording.events:
            out.write(f"  {e.seq:>5} {e.name:<40} {e.outcome}{' dropped' if e.dropped else ''}\n")
    return EX_OK


def _cmd_diff(args: argparse.Namespace, out: IO[str]) -> int:
    result = diff_recordings(_load(args.a), _load(args.b))
    out.write(json.dumps(result.to_json(), indent=2, ensure_ascii=False) + "\n" if args.json else format_diff(result))
    return EX_FAILED if args.exit_code and not result.same else EX_OK


def _cmd_fork(args: argparse.Namespace, out: IO[str]) -> int:
    recording = _load(args.recording)
    if args.override is not None:
        try:
            override = json.loads(args.override)
        except json.JSONDecodeError:
            raise _UsageError("--override must be a JSON value") from None
        forked = fork(recording, args.at, override, id=args.id)
    else:
        forked = fork(recording, args.at, id=args.id)
    _emit(_encode_like(forked, args.output), args.output, out)
    return EX_OK


def _cmd_seal(args: argparse.Namespace, out: IO[str]) -> int:
    seal = seal_recording(_load(args.recording))
    _emit(json.dumps(seal.to_json(), indent=1) + "\n", args.output, out)
    return EX_OK


def _cmd_verify(args: argparse.Namespace, out: IO[str]) -> int:
    recording = _load(args.recording)
    try:
        seal = RecordingSeal.from_json(json.loads(_read(args.seal)))
    except json.JSONDecodeError:
        raise StashError("ERR_INVALID_RECORDING", f"{args.seal} is not valid JSON") from None
    except StashError as error:
        raise StashError("ERR_INVALID_RECORDING", error.message) from None
    result = verify_recording(recording, seal)
    if args.json:
        out.write(json.dumps(result.to_json()) + "\n")
    else:
        out.write(f"valid: root {result.root}\n" if result.valid else f"INVALID: {result.reason}\n")
    if not result.valid:
        raise _Failed()
    return EX_OK


def _cmd_redact(args: argparse.Namespace, out: IO[str]) -> int:
    data = json.loads(encode_recording(_load(args.recording)))
    # Blob refs are content hashes, so scrubbed payloads get new refs and events are remapped.
    remap = {}
    blobs = {}
    for ref, value in data["blobs"].items():
        clean = scrub_value(value)
        remap[ref] = content_hash(clean)
        blobs[remap[ref]] = clean
    for event in data["events"]:
        event["ref"] = remap[event["ref"]]
        if "inputRef" in event:
            event["inputRef"] = remap[event["inputRef"]]
    data["blobs"] = blobs
    data["meta"] = {**data["meta"], "redacted": True}
    _emit(_encode_like(recording_from_json(data), args.output), args.output, out)
    return EX_OK


_COMMANDS: dict[str, Callable[[argparse.Namespace, IO[str]], int]] = {
    "inspect": _cmd_inspect,
    "stats": _cmd_inspect,
    "diff": _cmd_diff,
    "fork": _cmd_fork,
    "seal": _cmd_seal,
    "verify": _cmd_verify,
    "redact": _cmd_redact,
}


def main(argv: Optional[Sequence[str]] = None, *, stdout: Optional[IO[str]] = None, stderr: Optional[IO[str]] = None) -> int:
    """Run ``agentctx stash`` with ``argv`` (without the leading "stash"); returns a sysexits code."""
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    parser = _build_parser()
    try:
        args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
        if args.command is None:
            raise _UsageError("a command is required (inspect, stats, diff, fork, seal, verify, redact)")
        return _COMMANDS[args.command](args, out)
    except _UsageError as error:
        err.write(f"{PROG}: usage error: {error}\n")
        return EX_USAGE
    except SystemExit as exit_:  # --help
        return EX_OK if exit_.code in (0, None) else EX_USAGE
    except FileNotFoundError as error:
        err.write(f"{PROG}: {error}\n")
        return EX_NOINPUT
    except _Failed:
        return EX_FAILED
    except StashError as error:
        err.write(f"{PROG}: {error}\n")
        return EX_DATAERR if error.code in ("ERR_INVALID_RECORDING", "ERR_NOT_FOUND") else EX_USAGE
    except OSError as error:
        err.write(f"{PROG}: cannot write output: {error}\n")
        return 73  # EX_CANTCREAT
