"""What a task says about where to look: its words, sorted by how much each one points.

A bug report names code in ways prose does not: `send()` in backticks, a code block,
`client.build_request`, `boltons.fileutils`, `dayjs/plugin/updateLocale`, an error line copied
from a terminal. Those words point at a file far more surely than "timeout" or "request" in a
sentence, so the map's ranking weighs them above the rest (repomap_rank). Pure functions of the
task's text: no repository is read here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_STOP = set(
    "the and for with that this from into when then than should must make makes add adds use "
    "uses using fix fixes change changes update updates new old all any can not but are was "
    "were its it's has have had does did get set let var def self cls none true false return "
    "function class const import export test tests file files code please also only each "
    "expected actual result example same other gives give like what which would there".split()
)
_FENCED = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n(.*?)^[ \t]*\1", re.M | re.S)
_INLINE = re.compile(r"`([^`\n]+)`")
_PROMPT = re.compile(r"^[ \t]*(?:>>>|\.\.\.|>|\$)[ \t]+(.*)$", re.M)
_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
_DOTTED = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+")
_URL = re.compile(r"\b[A-Za-z][\w+.-]*://\S+")
_PATHLIKE = re.compile(r"[\w@.-]+(?:/[\w@.-]+)+")
_CODE_SHAPED = re.compile(r"_|[a-z][A-Z]|[A-Z][a-z]+[A-Z]|\d[A-Za-z]|[A-Za-z]\d")
_CALLED = re.compile(r"([A-Za-z_$][\w$]*)\(")
_STRINGS_AND_COMMENTS = re.compile(
    r"\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|(?:#|//)[^\n]*|--[ \t][^\n]*"
)
_IMPORT = re.compile(
    r"""(?:^|[\s;])(?:from\s+([\w.]+)\s+import\s+([\w, ]+)|import\s+([\w.]+))"""
    r"""|(?:require|import)\s*\(\s*['"]([^'"]+)['"]|from\s+['"]([^'"]+)['"]""",
    re.M,
)
_ERROR_LINE = re.compile(r"\b[A-Z]\w*(?:Error|Exception|Warning)\b:?[ \t]*([^\n]+)")
_QUOTED_PROSE = re.compile(r"""(?<![\w])["']([A-Za-z][^"'\n]{10,})["']""")
_FILE_WORD = re.compile(r"[\w@./+:-]+")
_EXTENSION_WORD = re.compile(r"\w\.[A-Za-z]\w{0,4}$")
_EXTENSIONS = re.compile(r"\.(?:py|pyi|js|mjs|cjs|jsx|ts|mts|cts|tsx|go|rs|rb|java|c|h|cc|cpp)$")
PACKAGE_STEMS = ("index", "__init__", "mod")
MIN_PHRASE_WORDS = 3
MIN_PHRASE_CHARS = 12


@dataclass(frozen=True)
class TaskWords:
    """The task's words, each kind weighed by the ranking on its own."""

    terms: frozenset[str]
    """Every identifier, whole and split into sub-words, lower-cased, stop words left out."""
    code: frozenset[str]
    """Identifiers the task writes as code (in backticks or a code block, dotted, called,
    snake_case or camelCase), lower-cased and whole: `build_request`, `orderedmultidict`."""
    references: tuple[tuple[str, ...], ...]
    """Module and file paths the task names (`boltons.fileutils`, `src/plugin/x`, imports in
    its code), as lower-cased components without extension."""
    module_pairs: frozenset[tuple[str, str]]
    """Every two adjacent parts of a reference, leading underscores dropped: a file whose last
    two module parts are one of them is named (`boltons.fileutils` names
    `src/boltons/fileutils.py`, `dayjs/plugin/updateLocale` names
    `src/plugin/updateLocale/index.js`)."""
    top_modules: frozenset[str]
    """References of one part (`import tabulate`, `require("js-yaml")`)."""
    owners: frozenset[str]
    """What stands before a dot in a dotted name (`client` of `client.send`), lower-cased."""
    module_ends: frozenset[str]
    """The last parts of every module pair, top module and owner: a file whose module path
    ends otherwise is named by none of them."""
    files: frozenset[str]
    """Words shaped like a file's path or name (`src/auth.ts`, `parser.py`), as written."""
    phrases: tuple[str, ...]
    """Text the repository may spell verbatim: error messages and quoted prose, lower-cased
    fragments between the quoted values (`bad indentation of a mapping entry`)."""


def split_words(identifier: str) -> list[str]:
    """ "verifyCredential" -> ["verify", "credential"]; "token_store" -> ["token", "store"]."""
    out = []
    for part in re.split(r"[_\W]+", identifier):
        out += [w.lower() for w in _CAMEL.findall(part)]
    return out


def task_words(task: str) -> TaskWords:
    spans = code_spans(task)
    code_text = "\n".join(spans)
    terms: set[str] = set()
    for ident in _IDENT.findall(task):
        for word in [ident.lower(), *split_words(ident)]:
            if _worth_a_term(word):
                terms.add(word)
    code = {i.lower() for i in _IDENT.findall(_STRINGS_AND_COMMENTS.sub(" ", code_text))}
    prose = _FENCED.sub(" ", task)
    code |= {i.lower() for i in _IDENT.findall(prose) if _CODE_SHAPED.search(i)}
    code |= {m.group(1).lower() for m in _CALLED.finditer(prose)}
    dotted = _DOTTED.findall(_URL.sub(" ", task))
    code |= {part.lower() for name in dotted for part in name.split(".")}
    code = {c for c in code if c in terms}
    owners = {name.split(".")[-2].lower().lstrip("_") for name in dotted}
    references = sorted(_references(task, code_text, dotted))
    bare = [tuple(part.lstrip("_") for part in r) for r in references]
    pairs = frozenset((r[i], r[i + 1]) for r in bare for i in range(len(r) - 1))
    tops = frozenset(r[0] for r in bare if len(r) == 1)
    owners = {o for o in owners if _worth_a_term(o)}
    return TaskWords(
        terms=frozenset(terms),
        code=frozenset(code),
        references=tuple(references),
        module_pairs=pairs,
        top_modules=tops,
        owners=frozenset(owners),
        module_ends=frozenset({pair[1] for pair in pairs} | tops | owners),
        files=frozenset(_file_words(task)),
        phrases=tuple(sorted(_phrases(task, spans))),
    )


def code_spans(task: str) -> list[str]:
    """Fenced blocks, inline code and interpreter or shell prompt lines, in that order."""
    fenced = [m.group(2) for m in _FENCED.finditer(task)]
    rest = _FENCED.sub(" ", task)
    return fenced + _INLINE.findall(rest) + _PROMPT.findall(rest)


def module_components(path: str) -> tuple[str, ...]:
    """ "src/plugin/updateLocale/index.js" -> ("src", "plugin", "updatelocale");
    "httpx/__init__.py" -> ("httpx",): how an import or a dotted name would spell the file."""
    parts = [p for p in _EXTENSIONS.sub("", path.lower()).split("/") if p]
    if len(parts) > 1 and parts[-1] in PACKAGE_STEMS:
        parts.pop()
    return tuple(parts)


def is_package_file(path: str) -> bool:
    """`__init__.py`, `index.js`, `mod.rs`: a file that stands for its directory."""
    return _EXTENSIONS.sub("", path[path.rfind("/") + 1 :].lower()) in PACKAGE_STEMS


def names_file(words: TaskWords, path: str) -> bool:
    """The task spells out the path, or the file's name when it is long enough to mean that
    file: whole words only (`build_request` does not name `scripts/build`)."""
    name = path[path.rfind("/") + 1 :]
    return path in words.files or (len(name) > 4 and "." in name and name in words.files)


def _file_words(task: str) -> set[str]:
    found = set()
    for word in _FILE_WORD.findall(task):
        word = re.sub(r"(?::\d+)+$", "", word.rstrip(".,:;")).removeprefix("./")
        if "/" in word or _EXTENSION_WORD.search(word):
            found.add(word)
            found.add(word[word.rfind("/") + 1 :])
    return found


def _worth_a_term(word: str) -> bool:
    return len(word) >= 3 and word not in _STOP


def _references(task: str, code_text: str, dotted: list[str]) -> set[tuple[str, ...]]:
    """Paths and modules: dotted names of two parts or more, slash paths, and what the task's
    code imports (`from a.b import c` names both a.b and a.b.c)."""
    found: set[tuple[str, ...]] = set()
    for name in dotted:
        found.add(tuple(p.lower() for p in name.split(".")))
    for path in _PATHLIKE.findall(_URL.sub(" ", task)):
        found.add(module_components(path.lstrip("./")))
    for match in _IMPORT.finditer(code_text):
        module, names, plain, required, imported_from = match.groups()
        for spec in (module, plain):
            if spec:
                found.add(tuple(spec.lower().split(".")))
        if module and names:
            for name in names.split(","):
                if name.strip():
                    found.add((*module.lower().split("."), name.split()[0].lower()))
        for spec in (required, imported_from):
            if spec:
                found.add(module_components(spec.lstrip("./")))
    return {r for r in found if r and all(r)}


def _phrases(task: str, spans: list[str]) -> set[str]:
    """Fragments of error text and quoted prose long enough to be a message the repository
    itself writes: the text between the values a message interpolates."""
    sources = [m.group(1) for m in _ERROR_LINE.finditer(task)]
    sources += [s for s in spans if len(s.split()) >= MIN_PHRASE_WORDS and "\n" not in s]
    sources += [m.group(1) for m in _QUOTED_PROSE.finditer(_FENCED.sub(" ", task))]
    found = set()
    for source in sources:
        for fragment in re.split(r"'[^']*'|\"[^\"]*\"|`[^`]*`|\d+|[(){}\[\]<>:;,=]", source):
            fragment = " ".join(fragment.split()).strip(" .!?-").lower()
            if (
                len(fragment.split()) >= MIN_PHRASE_WORDS
                and len(fragment) >= MIN_PHRASE_CHARS
                and re.search(r"[a-z]{3}", fragment)
            ):
                found.add(fragment)
    return found
