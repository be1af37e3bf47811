"""How central each file is: how many other files of the repository import it.

The map orders files first by the task's own words; among files those words score alike (and
for the many files they never reach) a module the rest of the code imports is the better guess
than one nothing imports. Imports are found with one regular expression over the text the
ranking reads anyway (Python `import`/`from`, JavaScript `import`/`require`/`export … from`),
resolved to tracked files by their module path; what resolves to no file (the standard
library, packages) is left out. Nothing is parsed.
"""

from __future__ import annotations

import posixpath
import re

from summarizers.repomap_words import module_components

_PY_IMPORT = re.compile(
    rb"[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+\(?([\w, \t]+)|import[ \t]+([\w., \t]+))"
)
_JS_IMPORT = re.compile(
    rb"""(?:\bfrom[ \t]*|\brequire[ \t]*\([ \t]*|\bimport[ \t]*\([ \t]*|^[ \t]*import[ \t]+)"""
    rb"""['"]([^'"\n]+)['"]"""
)
_JS_SUFFIXES = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")
MAX_IMPORTS = 200
"""Per file: a generated module may import thousands; the first ones say enough."""


def imports_of(path: str, text: bytes) -> list[tuple[str, ...]]:
    """The modules `path` imports, each as the module paths it may resolve to, the first that
    resolves counting ("pkg/sub/mod", or "./x" made relative to the file's directory):
    `from pkg import engine` is pkg/engine when that is a module, else pkg itself."""
    base = posixpath.dirname(path)
    if path.endswith((".py", ".pyi")):
        found: list[tuple[str, ...]] = []
        for line in _lines_with(text, (b"import",)):
            match = _PY_IMPORT.match(line)
            if match:
                found += _python_import(
                    base, *(g.decode("ascii", "replace") if g else "" for g in match.groups())
                )
        return found[:MAX_IMPORTS]
    if path.endswith(_JS_SUFFIXES):
        specs = [
            m.group(1).decode("utf-8", "replace")
            for line in _lines_with(text, (b"import", b"require", b"from"))
            for m in _JS_IMPORT.finditer(line)
        ]
        relative = [s for s in specs if s.startswith(".")][:MAX_IMPORTS]
        return [("./" + posixpath.normpath(posixpath.join(base, s)),) for s in relative]
    return []


def _lines_with(text: bytes, keywords: tuple[bytes, ...]) -> list[bytes]:
    """The lines holding a keyword, found with `bytes.find`: a regular expression run over
    every byte of a large repository's sources tripled the map's time."""
    starts: set[int] = set()
    for keyword in keywords:
        at = text.find(keyword)
        while at != -1 and len(starts) < MAX_IMPORTS * 2:
            starts.add(text.rfind(b"\n", 0, at) + 1)
            at = text.find(keyword, at + len(keyword))
    lines = []
    for start in sorted(starts):
        end = text.find(b"\n", start)
        lines.append(text[start : end if end != -1 else len(text)])
    return lines


def _python_import(base: str, module: str, names: str, plain: str) -> list[tuple[str, ...]]:
    if plain:
        return [(p.split()[0].replace(".", "/"),) for p in plain.split(",") if p.strip()]
    dots = len(module) - len(module.lstrip("."))
    target = module[dots:].replace(".", "/")
    if dots:
        anchor = base
        for _ in range(dots - 1):
            anchor = posixpath.dirname(anchor)
        target = posixpath.join(anchor, target) if target else anchor
        target = "./" + target if target else "."
    listed = [n.split()[0] for n in names.split(",") if n.strip()] or [""]
    return [(posixpath.join(target, n), target) if n else (target,) for n in listed]


def in_degrees(
    modules: dict[str, tuple[str, ...]], imports: dict[str, list[tuple[str, ...]]]
) -> dict[str, int]:
    """For each file (`modules`: each path's `module_components`), how many other files
    import it. A relative import ("./a/b") must name the file's own module path; an absolute
    one ("pkg/mod") its last components, so a package under `src/` or `lib/` resolves too."""
    by_module: dict[tuple[str, ...], list[str]] = {}
    for path, module in modules.items():
        by_module.setdefault(module, []).append(path)
    by_tail: dict[tuple[str, ...], list[str]] = {}
    for module, files in by_module.items():
        for tail in {module[-2:], module[-1:]}:
            by_tail.setdefault(tail, []).extend(files)
    importers: dict[str, set[str]] = {}
    resolved: dict[str, list[str]] = {}
    for importer, specs in imports.items():
        for alternatives in specs:
            for spec in alternatives:
                targets = resolved.get(spec)
                if targets is None:
                    targets = resolved[spec] = _resolve(spec, modules, by_module, by_tail)
                if targets:
                    for target in targets:
                        if target != importer:
                            importers.setdefault(target, set()).add(importer)
                    break
    return {path: len(files) for path, files in importers.items()}


def _resolve(
    spec: str,
    modules: dict[str, tuple[str, ...]],
    by_module: dict[tuple[str, ...], list[str]],
    by_tail: dict[tuple[str, ...], list[str]],
) -> list[str]:
    if spec.startswith("./") or spec == ".":
        module = module_components(spec[2:]) if spec != "." else ()
        return by_module.get(module, []) if module and ".." not in module else []
    module = tuple(p for p in spec.lower().split("/") if p)
    if not module:
        return []
    candidates = by_tail.get(module[-2:], [])
    return [c for c in candidates if _ends_with(modules[c], module)]


def _ends_with(file_module: tuple[str, ...], module: tuple[str, ...]) -> bool:
    """ "src/pkg/mod" is what `import pkg.mod` means; "other/mod" is not."""
    n = min(len(file_module), len(module))
    return file_module[-n:] == module[-n:] and (len(module) <= len(file_module) or n >= 2)
