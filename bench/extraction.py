"""Extraction cost per session: agentctx's incremental extraction against the original's whole-transcript-every-Stop.

    python bench/extraction.py [--turns 20 200] [--output-tokens 400] [--claude-code PATH/TO/claude]

Synthetic Claude Code sessions (real JSONL shapes: split assistant responses, tool calls and results) grow one
turn at a time. After every turn a Stop fires:
  * baseline  — the original: the whole transcript re-sent on every Stop, its windowing (≤15K t whole; ≤50K t
                12K + 68K chars; larger: 40K-char chunks + one synthesis call), its ~875-token system prompt;
  * ours      — `agentctx.extract.execute` on every Stop through a counting client (what is actually sent:
                system prompt, schema, existing-record list, carry-over and the new part);
  * ours+debounce — the same, but only when the Stop hook's debounce lets it through (transcript grew by
                ≥ DEBOUNCE_BYTES), plus the SessionEnd final pass.
  * claude-code — ours+debounce through the real Claude Code CLI (`--claude-code`), against a local Messages API
                stand-in (tests/e2e/messages_standin.py) that counts what the CLI actually sends per request (its
                own system blocks, the StructuredOutput tool, the date reminder) and answers like the counting client.
Input tokens are chars/4 of each request; output is a fixed allowance per call (the same for every strategy).
Cost uses claude-haiku-4-5's price table entry. Figures are ratios against the baseline measured in this run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MODEL = "claude-haiku-4-5"
ORIGINAL_SYSTEM_TOKENS = 875  # the original's extraction prompt (reference/agentctx-original.md §1)
DEBOUNCE_BYTES = 24 * 1024  # agentctx.hooks.lifecycle.DEBOUNCE_BYTES at the time of writing

TOPICS = ["the export command", "the auth module", "pagination", "the CSV importer", "logging", "the cache",
          "retry logic", "the CLI parser", "migrations", "the test fixtures"]
TOOLS = ["pytest", "ruff", "sqlite3", "httpx", "click", "mypy", "uv", "structlog", "hypothesis", "alembic"]


class Writer:
    """Appends transcript lines in Claude Code's shapes."""

    def __init__(self, path: Path, cwd: str) -> None:
        self.path, self.cwd, self.n = path, cwd, 0

    def _line(self, kind: str, **extra: Any) -> None:
        self.n += 1
        line = {"parentUuid": f"u{self.n - 1}", "isSidechain": False, "userType": "external", "cwd": self.cwd,
                "sessionId": "bench", "version": "2.1.200", "type": kind, "uuid": f"u{self.n}",
                "timestamp": f"2026-09-01T10:00:{self.n % 60:02d}.000Z", **extra}
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(line) + "\n")

    def turn(self, i: int, rng: random.Random) -> None:
        topic, tool = TOPICS[i % len(TOPICS)], TOOLS[rng.randrange(len(TOOLS))]
        ask = f"Turn {i}: let's work on {topic}. " + " ".join(
            rng.choice(["Keep it simple.", "Make sure errors are clear.", "Add a test for the edge case.",
                        "It should handle empty input.", "Don't break the public API."]) for _ in range(rng.randint(2, 6)))
        if i % 5 == 0:
            ask += f" We decided to use {tool} for {topic}, because the team already knows it."
        self._line("user", message={"role": "user", "content": ask})
        mid = f"msg_{i:04d}"
        reply = f"I'll handle {topic}. " + "Here is the plan and the change. " * rng.randint(10, 30)
        for block in ({"type": "thinking", "thinking": "plan " * 80, "signature": "s"}, {"type": "text", "text": reply},
                      {"type": "tool_use", "id": f"t{i}", "name": "Bash", "input": {"command": f"{tool} check"}}):
            self._line("assistant", requestId=f"r{i}", message={"id": mid, "role": "assistant", "model": "m",
                                                                 "content": [block]})
        output = "\n".join(f"line {k}: ok" for k in range(rng.randint(20, 120)))
        self._line("user", message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{i}",
                                                                  "content": output}]},
                   toolUseResult={"stdout": output, "stderr": "", "interrupted": False})
        self._line("assistant", message={"id": f"{mid}b", "role": "assistant", "model": "m",
                                         "content": [{"type": "text", "text": "Done; tests pass."}]})


class CountingClient:
    """Duck-typed client: counts what each request sends; answers like a model that finds the stated decisions."""

    def __init__(self, output_tokens: int) -> None:
        self.output_tokens, self.sent, self.calls = output_tokens, 0, 0
        outer = self

        class Messages:
            def create(self, **kw: Any) -> Any:
                return outer.create(**kw)

        self.messages = Messages()

    def create(self, **kw: Any) -> dict[str, Any]:
        from agentctx.base.tokens import estimate

        tokens = estimate(json.dumps(kw["system"]) + json.dumps(kw["messages"]) + json.dumps(kw.get("output_config")))
        self.sent += tokens
        self.calls += 1
        data = _answer_for(kw["messages"][0]["content"])
        return {"model": MODEL, "content": [{"type": "text", "text": json.dumps(data)}],
                "usage": {"input_tokens": tokens, "output_tokens": self.output_tokens}}


def original_tokens(path: Path) -> tuple[int, int]:
    """(input tokens, calls) of one original extraction over the whole transcript (its parse and windows)."""
    from agentctx.base.tokens import estimate

    parts = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = json.loads(raw)
        content = line.get("message", {}).get("content")
        if line.get("type") not in ("user", "assistant") or line.get("isMeta"):
            continue
        texts = [content] if isinstance(content, str) else [b.get("text", "") for b in content or []
                                                              if isinstance(b, dict) and b.get("type") == "text"]
        label = "Developer" if line["type"] == "user" else "Assistant"
        parts += [f"{label}: {t}" for t in texts if t]
    text = "\n\n".join(parts)
    tokens = estimate(text)
    if tokens <= 15_000:
        return ORIGINAL_SYSTEM_TOKENS + tokens, 1
    if tokens <= 50_000:
        return ORIGINAL_SYSTEM_TOKENS + estimate(text[:12_000] + text[-68_000:]) + 8, 1
    chunks = [text[i:i + 40_000] for i in range(0, len(text), 40_000)]
    return (ORIGINAL_SYSTEM_TOKENS * (len(chunks) + 1) + tokens + 400 * len(chunks)), len(chunks) + 1


def _answer_for(user: str) -> dict[str, Any]:
    new = user.split("NEW TRANSCRIPT:\n", 1)[-1]
    decisions = []
    for line in new.splitlines():
        if "We decided to use" in line:
            quote = line[line.index("We decided"):].split(",")[0]
            decisions.append({"what": quote[len("We decided to "):], "rationale": "", "supersedes": None,
                              "confidence": "explicit", "evidence": quote})
    return {"decisions": decisions, "preferences": [], "conventions": [], "gotchas": [], "flush_ok": False,
            "active_work": {"current_task": "continue", "blockers": [], "next_steps": [], "open_questions": []}}


class CLICounter:
    """The Messages API stand-in the real CLI talks to: counts each extraction request, answers via StructuredOutput."""

    def __init__(self) -> None:
        sys.path.insert(0, str(ROOT / "tests" / "e2e"))
        from messages_standin import MessagesStandIn, text_of  # noqa: E402

        self.sent = self.calls = 0
        outer = self

        def model(body: dict[str, Any]) -> list[dict[str, Any]]:
            from agentctx.base.tokens import estimate

            outer.sent += estimate(json.dumps(body.get("system")) + json.dumps(body.get("tools"))
                                   + json.dumps(body.get("messages")))
            outer.calls += 1
            user = text_of(body["messages"][-1]["content"])
            return [{"type": "tool_use", "id": f"toolu_bench{outer.calls}", "name": "StructuredOutput",
                     "input": _answer_for(user)}]

        self.server = MessagesStandIn(model)


def simulate(turns: int, output_tokens: int, debounce: bool, seed: int = 7,
             claude: str | None = None) -> dict[str, float]:
    """Run one synthetic session in a fresh home; returns calls, tokens and cost for ours (and the baseline)."""
    from agentctx.store import db
    from agentctx.extract import cost as price
    from agentctx.extract import cursor, engine

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["AGENTCTX_HOME"] = str(Path(tmp) / "home")
        project = Path(tmp) / "app"
        project.mkdir()
        db.connect(create=True).close()
        path = Path(tmp) / "bench.jsonl"
        writer, rng = Writer(path, str(project)), random.Random(seed)
        client: Any = CountingClient(output_tokens)
        counter = None
        if claude:
            from agentctx.extract.claude_code import ClaudeCodeClient

            counter = CLICounter()
            counter.server.__enter__()
            os.environ.update(ANTHROPIC_BASE_URL=counter.server.base_url, ANTHROPIC_API_KEY="sk-ant-standin",
                              CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", HOME=str(Path(tmp) / "userhome"))
            (Path(tmp) / "userhome").mkdir()
            client = ClaudeCodeClient(claude, cwd=tmp)
        base_sent = base_calls = 0
        last_spawn = -1
        for i in range(turns):
            writer.turn(i, rng)
            sent, calls = original_tokens(path)
            base_sent, base_calls = base_sent + sent, base_calls + calls
            size = path.stat().st_size
            if not debounce or last_spawn < 0 or size - last_spawn >= DEBOUNCE_BYTES:
                last_spawn = size
                engine.execute("bench", path, cwd=str(project), client=client)
        engine.execute("bench", path, cwd=str(project), client=client, final=True)  # SessionEnd
        if counter is not None:
            counter.server.__exit__(None, None, None)
            client = counter
        records = len(db.connect().execute("SELECT id FROM records WHERE type = 'decision'").fetchall())
        state = cursor.load("bench")
        transcript_tokens = path.stat().st_size // 4
    ours = price.usd(price.Usage(input=client.sent, output=output_tokens * client.calls), MODEL)
    base = price.usd(price.Usage(input=base_sent, output=output_tokens * base_calls), MODEL)
    return {"turns": turns, "ours_calls": client.calls, "ours_tokens": client.sent, "ours_usd": ours,
            "base_calls": base_calls, "base_tokens": base_sent, "base_usd": base, "decisions": records,
            "jsonl_tokens": transcript_tokens, "cursor_sent": state.sent_tokens}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, nargs="+", default=[20, 200])
    parser.add_argument("--output-tokens", type=int, default=400)
    parser.add_argument("--claude-code", metavar="CLAUDE", help="also run ours+debounce through this Claude Code CLI")
    args = parser.parse_args(argv)
    os.environ.pop("ANTHROPIC_API_KEY", None)
    summary = []
    print(f"{'turns':>5} {'strategy':<15} {'calls':>6} {'input tokens':>13} {'cost $':>9} {'vs baseline':>12}")
    for turns in args.turns:
        every = simulate(turns, args.output_tokens, debounce=False)
        deb = simulate(turns, args.output_tokens, debounce=True)
        rows = [("baseline", every["base_calls"], every["base_tokens"], every["base_usd"]),
                ("ours", every["ours_calls"], every["ours_tokens"], every["ours_usd"]),
                ("ours+debounce", deb["ours_calls"], deb["ours_tokens"], deb["ours_usd"])]
        if args.claude_code:
            cli = simulate(turns, args.output_tokens, debounce=True, claude=args.claude_code)
            rows.append(("claude-code", cli["ours_calls"], cli["ours_tokens"], cli["ours_usd"]))
            summary += [f"t{turns}_cli_tokens={cli['ours_tokens']}", f"t{turns}_api_tokens={deb['ours_tokens']}",
                        f"t{turns}_cli_vs_api={cli['ours_tokens'] / deb['ours_tokens']:.3f}",
                        f"t{turns}_cli_decisions={cli['decisions']}"]
        for name, calls, tokens, usd in rows:
            ratio = usd / every["base_usd"]
            print(f"{turns:>5} {name:<15} {calls:>6} {tokens:>13,} {usd:>9.4f} {ratio:>11.3f}x")
        print(f"      (transcript file ~{every['jsonl_tokens']:,} t as raw JSONL; decisions stored: "
              f"{every['decisions']} every-Stop, {deb['decisions']} debounced)")
        summary += [f"t{turns}_base_usd={every['base_usd']:.4f}", f"t{turns}_ours_usd={every['ours_usd']:.4f}",
                    f"t{turns}_debounced_usd={deb['ours_usd']:.4f}",
                    f"t{turns}_ratio={every['ours_usd'] / every['base_usd']:.3f}",
                    f"t{turns}_debounced_ratio={deb['ours_usd'] / every['base_usd']:.3f}"]
    print(" ".join(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
