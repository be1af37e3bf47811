"""Anthropic's prompt caching, simulated from the request bodies a session sent, billed as billed.

The request is read in cache order (tools, then system, then the messages' content blocks).
Each block with `cache_control` is a breakpoint: the prefix up to it is written to the cache.
A request reads the longest cached prefix that ends at a block boundary no more than 20
blocks before one of its breakpoints; what lies between that and its last breakpoint is a
cache write, and what follows its last breakpoint is plain input. Prefixes shorter than the
model's minimum (1024 tokens for Sonnet and Opus) are never cached. Billed input counts cache
writes at 1.25x, cache reads at 0.1x and plain input at 1x (5-minute cache; a session's calls
come faster than that). Tokens are the project's one estimate (summarizers.tokens) of each
block's JSON: providers count differently, but the ratios between policies hold.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from summarizers.tokens import estimate_tokens

WRITE, READ, PLAIN = 1.25, 0.1, 1.0
LOOKBACK_BLOCKS = 20
MIN_CACHEABLE = 1024


@dataclass
class Bill:
    writes: int = 0
    reads: int = 0
    plain: int = 0
    calls: int = 0
    per_call: list[tuple[int, int, int]] = field(default_factory=list)

    @property
    def billed(self) -> float:
        return self.writes * WRITE + self.reads * READ + self.plain * PLAIN

    @property
    def sent(self) -> int:
        return self.writes + self.reads + self.plain


def blocks(body: dict[str, Any]) -> list[tuple[str, bool]]:
    """(canonical JSON without the cache marker, is a breakpoint) for every block, in order."""
    out: list[tuple[str, bool]] = []
    items: list[dict[str, Any]] = list(body.get("tools") or [])
    system = body.get("system") or []
    items += [{"type": "text", "text": system}] if isinstance(system, str) else list(system)
    for message in body["messages"]:
        content = message["content"]
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        items += [{**block, "role": message["role"]} for block in content]
    for item in items:
        marked = "cache_control" in item
        plain = {k: v for k, v in item.items() if k != "cache_control"}
        out.append((json.dumps(plain, sort_keys=True, ensure_ascii=False), marked))
    return out


def simulate(bodies: Iterable[dict[str, Any]], min_cacheable: int = MIN_CACHEABLE) -> Bill:
    cache: set[str] = set()
    bill = Bill()
    for body in bodies:
        hashes, ends, marks = [], [], []
        digest, total = hashlib.sha256(), 0
        for text, marked in blocks(body):
            digest.update(text.encode("utf-8", "surrogatepass") + b"\0")
            total += estimate_tokens(text)
            hashes.append(digest.copy().hexdigest())
            ends.append(total)
            marks.append(marked)
        breakpoints = [i for i, marked in enumerate(marks) if marked]
        read = 0
        for bp in breakpoints:
            for j in range(bp, max(-1, bp - LOOKBACK_BLOCKS - 1), -1):
                if hashes[j] in cache:
                    read = max(read, ends[j])
                    break
        last = ends[breakpoints[-1]] if breakpoints else 0
        if last < min_cacheable:
            last = read = 0
        write, plain = last - read, total - last
        cache.update(hashes[bp] for bp in breakpoints if ends[bp] >= min_cacheable)
        bill.writes += write
        bill.reads += read
        bill.plain += plain
        bill.calls += 1
        bill.per_call.append((write, read, plain))
    return bill
