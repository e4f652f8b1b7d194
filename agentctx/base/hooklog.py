"""The hooks' log file, ~/.agentctx/logs/hooks.log: one scrubbed line per event; writing it never fails."""

import os


def log(event: str, message: str) -> None:
    """Append one line to ~/.agentctx/logs/hooks.log; logging itself must never fail the hook."""
    try:
        from . import paths
        from .ids import now_iso

        from .redact import scrub_text  # only on the (rare) logging path: the prompt path stays free of `re`

        directory = paths.ensure_private_dir_str(paths.logs_dir_str())
        line = scrub_text(f"{now_iso()} {event or '-'} {message}").replace("\n", " | ")[:2000]
        fd = os.open(os.path.join(directory, "hooks.log"),
                     os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0), 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as fh:
            fh.write(line + "\n")
    except Exception:
        pass
