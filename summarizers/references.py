"""Where a name is used across a repository's tracked source files (for the PR bot)."""

from __future__ import annotations

from pathlib import Path

from summarizers.ast_common import language_for, parse_tree
from summarizers.repofiles import read_beneath, tracked_files

_IDENTIFIER_TYPES = {
    "identifier",
    "property_identifier",
    "type_identifier",
    "shorthand_property_identifier",
    "shorthand_property_identifier_pattern",
    "private_property_identifier",
}
MAX_FILE_BYTES = 2_000_000


def find_references(root: Path, name: str) -> list[tuple[str, int]]:
    """(repo-relative path, 1-based line) of every identifier spelled like `name`'s last part.

    Identifiers only, via tree-sitter: mentions in strings and comments are not references.
    """
    word = name.rsplit(".", 1)[-1]
    if not word:
        return []
    needle = word.encode()
    found: list[tuple[str, int]] = []
    for entry in tracked_files(root):
        language = language_for(entry.path)
        if language is None:
            continue
        data = read_beneath(root, entry.path, MAX_FILE_BYTES)
        if data is None:
            continue
        if needle not in data or len(data) > MAX_FILE_BYTES or b"\x00" in data:
            continue
        tree = parse_tree(data.decode("utf-8", "replace"), language)
        lines: set[int] = set()
        stack = [tree.root_node]
        while stack:
            node = stack.pop()
            if node.type in _IDENTIFIER_TYPES and node.text == needle:
                lines.add(node.start_point[0] + 1)
            elif node.child_count and needle in (node.text or b""):
                stack.extend(node.children)
        found += [(entry.path, line) for line in sorted(lines)]
    return found
