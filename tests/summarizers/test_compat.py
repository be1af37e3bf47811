"""Compatible or breaking, one rule at a time, on the shapes real libraries change their code in.

Each case is (what the rule is, language, old source, new source, symbol, compatible?, words
the verdict must say). The words are checked against the reasons when breaking and against the
notes when compatible, so a verdict always says why.
"""

from __future__ import annotations

import pytest

from summarizers.ast_scope import diff_symbols, extract_symbols
from summarizers.compat import CallVerdict, judge_symbol

HUMANIZE_OLD = '''
def natural_list(items: list[Any]) -> str:
    """Natural list: ["a", "b", "c"] -> "a, b and c"."""
    if len(items) == 1:
        return str(items[0])
    return f"{', '.join(map(str, items[:-1]))} and {items[-1]!s}"
'''
HUMANIZE_NEW = '''
def natural_list(
    items: Iterable[Any], *, conjunction: str = "and", oxford_comma: bool = False
) -> str:
    """Natural list: ["a", "b", "c"] -> "a, b and c"."""
    items = list(items)
    if len(items) == 1:
        return str(items[0])
    comma = "," if oxford_comma and len(items) > 2 else ""
    return f"{', '.join(map(str, items[:-1]))}{comma} {conjunction} {items[-1]!s}"
'''
HUMANIZE_NO_ITEMS = """
def natural_list(*, conjunction: str = "and", oxford_comma: bool = False) -> str:
    return conjunction
"""

PY = "python"
JS = "javascript"
TS = "typescript"

Case = tuple[str, str, str, str, str, bool, str]

PYTHON_CASES: list[Case] = [
    (
        "humanize natural_list: Iterable and keyword-only options",
        PY,
        HUMANIZE_OLD,
        HUMANIZE_NEW,
        "natural_list",
        True,
        'added keyword-only parameter `conjunction` (default `"and"`)',
    ),
    (
        "humanize natural_list without its positional items",
        PY,
        HUMANIZE_OLD,
        HUMANIZE_NO_ITEMS,
        "natural_list",
        False,
        "parameter `items` removed",
    ),
    (
        "new positional parameter with a default (urljoin's allow_fragments)",
        PY,
        "def urljoin(base, url):\n    pass\n",
        "def urljoin(base, url, allow_fragments=True):\n    pass\n",
        "urljoin",
        True,
        "added optional parameter `allow_fragments` (default `True`)",
    ),
    (
        "a parameter gains a default",
        PY,
        "def parse_date(text: str, default_year: int) -> date:\n    pass\n",
        "def parse_date(text: str, default_year: int = 2024) -> date:\n    pass\n",
        "parse_date",
        True,
        "`default_year` is now optional",
    ),
    (
        "*args added (logging's msg, *args)",
        PY,
        "def info(msg):\n    pass\n",
        "def info(msg, *args):\n    pass\n",
        "info",
        True,
        "added `*args`",
    ),
    (
        "**kwargs added",
        PY,
        "def render(template, context):\n    pass\n",
        "def render(template, context, **options):\n    pass\n",
        "render",
        True,
        "added `**options`",
    ),
    (
        "renamed parameter (keyword callers break)",
        PY,
        "def parse_date(text: str, default_year: int | None = None) -> date:\n    pass\n",
        "def parse_date(text: str, year: int | None = None) -> date:\n    pass\n",
        "parse_date",
        False,
        "`default_year` renamed `year`",
    ),
    (
        "reordered parameters",
        PY,
        "def copyfile(src, dst):\n    pass\n",
        "def copyfile(dst, src):\n    pass\n",
        "copyfile",
        False,
        "`src` moved to position 2",
    ),
    (
        "new required positional parameter",
        PY,
        "def connect(host):\n    pass\n",
        "def connect(host, port):\n    pass\n",
        "connect",
        False,
        "new required parameter `port`",
    ),
    (
        "new required parameter inserted before an existing one",
        PY,
        "def send(to, body):\n    pass\n",
        "def send(to, subject, body):\n    pass\n",
        "send",
        False,
        "new required parameter `subject` inserted at position 2: `body` shifts 1 place right",
    ),
    (
        "optional parameter inserted in the middle (tabulate 0.9's intfmt)",
        PY,
        "def tabulate(data, headers=(), tablefmt='simple', floatfmt='g', numalign='decimal',"
        " stralign='left', missingval=''):\n    pass\n",
        "def tabulate(data, headers=(), tablefmt='simple', floatfmt='g', intfmt='',"
        " numalign='decimal', stralign='left', missingval=''):\n    pass\n",
        "tabulate",
        False,
        "new parameter `intfmt` inserted at position 5: `numalign` and the 2 after it shift 1"
        " place right",
    ),
    (
        "a removed parameter shifts the ones after it",
        JS,
        "function range(start, step, stop, inclusive) {}\n",
        "function range(start, stop, inclusive) {}\n",
        "range",
        False,
        "parameter 2 `step` removed",
    ),
    (
        "new required keyword-only parameter",
        PY,
        "def fetch(url, *, retries=3):\n    pass\n",
        "def fetch(url, *, retries=3, timeout):\n    pass\n",
        "fetch",
        False,
        "new required keyword-only parameter `timeout`",
    ),
    (
        "removed default",
        PY,
        "def connect(host, port=5432):\n    pass\n",
        "def connect(host, port):\n    pass\n",
        "connect",
        False,
        "`port` lost its default",
    ),
    (
        "positional-or-keyword turned keyword-only",
        PY,
        "def dumps(obj, indent=None):\n    pass\n",
        "def dumps(obj, *, indent=None):\n    pass\n",
        "dumps",
        False,
        "`indent` is now keyword-only",
    ),
    (
        "positional-or-keyword turned positional-only",
        PY,
        "def isclose(a, b, rel_tol=1e-09):\n    pass\n",
        "def isclose(a, b, /, rel_tol=1e-09):\n    pass\n",
        "isclose",
        False,
        "`a` is now positional-only",
    ),
    (
        "positional-only renamed: callers cannot name it",
        PY,
        "def fabs(x, /):\n    pass\n",
        "def fabs(value, /):\n    pass\n",
        "fabs",
        True,
        "`x` renamed `value` (callers cannot name it)",
    ),
    (
        "removed *args",
        PY,
        "def log(msg, *args, **kwargs):\n    pass\n",
        "def log(msg, **kwargs):\n    pass\n",
        "log",
        False,
        "parameter `*args` removed",
    ),
    (
        "removed **kwargs",
        PY,
        "def request(method, url, **kwargs):\n    pass\n",
        "def request(method, url):\n    pass\n",
        "request",
        False,
        "parameter `**kwargs` removed",
    ),
    (
        "removed keyword-only parameter",
        PY,
        "def sorted_by(items, *, key=None, reverse=False):\n    pass\n",
        "def sorted_by(items, *, key=None):\n    pass\n",
        "sorted_by",
        False,
        "keyword-only parameter `reverse` removed",
    ),
    (
        "a new positional parameter would take what went to *args",
        PY,
        "def format_row(sep, *cells):\n    pass\n",
        "def format_row(sep, width=0, *cells):\n    pass\n",
        "format_row",
        False,
        "new parameter `width` takes an argument that went to `*cells`",
    ),
    (
        "annotation change: reported, not judged",
        PY,
        "def load(path: str) -> dict:\n    pass\n",
        "def load(path: str | Path) -> dict:\n    pass\n",
        "load",
        True,
        "annotation of `path`: `str` → `str | Path`",
    ),
    (
        "return type change: reported, not judged",
        PY,
        "def mean(xs) -> int:\n    pass\n",
        "def mean(xs) -> float:\n    pass\n",
        "mean",
        True,
        "return type: `int` → `float`",
    ),
    (
        "default value change: reported, not judged",
        PY,
        "def retry(call, attempts=3):\n    pass\n",
        "def retry(call, attempts=5):\n    pass\n",
        "retry",
        True,
        "default of `attempts`: `3` → `5`",
    ),
    (
        "a function made async",
        PY,
        "def fetch(url):\n    pass\n",
        "async def fetch(url):\n    pass\n",
        "fetch",
        False,
        "now async",
    ),
    (
        "method, same rules: new optional parameter",
        PY,
        "class Session:\n    def get(self, url, **kwargs):\n        pass\n",
        "class Session:\n    def get(self, url, params=None, **kwargs):\n        pass\n",
        "Session.get",
        True,
        "added optional parameter `params`",
    ),
    (
        "method, same rules: new required parameter",
        PY,
        "class Session:\n    def get(self, url):\n        pass\n",
        "class Session:\n    def get(self, url, timeout):\n        pass\n",
        "Session.get",
        False,
        "new required parameter `timeout`",
    ),
    (
        "method turned static keeps its instance calls",
        PY,
        "class Path:\n    def join(self, other):\n        pass\n",
        "class Path:\n    @staticmethod\n    def join(other):\n        pass\n",
        "Path.join",
        True,
        "`join(self, other)` → `@staticmethod join(other)`",
    ),
    (
        "method turned into a property",
        PY,
        "class Store:\n    def size(self):\n        return 0\n",
        "class Store:\n    @property\n    def size(self):\n        return 0\n",
        "Store.size",
        False,
        "`Store.size` is now a property",
    ),
    (
        "__init__ for the class: new optional parameter",
        PY,
        "class Retry:\n    def __init__(self, total=10):\n        pass\n",
        "class Retry:\n    def __init__(self, total=10, backoff_factor=0):\n        pass\n",
        "Retry",
        True,
        "`Retry` constructor: added optional parameter `backoff_factor`",
    ),
    (
        "__init__ for the class: new required parameter",
        PY,
        "class Retry:\n    def __init__(self, total=10):\n        pass\n",
        "class Retry:\n    def __init__(self, total, backoff_factor):\n        pass\n",
        "Retry",
        False,
        "`Retry` constructor: `total` lost its default",
    ),
    (
        "a class without __init__ gains a required one",
        PY,
        "class Cache:\n    size = 0\n",
        "class Cache:\n    size = 0\n\n    def __init__(self, backend):\n        pass\n",
        "Cache",
        False,
        "`Cache` constructor: new required parameter `backend`",
    ),
    (
        "a public method removed from the class",
        PY,
        "class Session:\n    def get(self, url):\n        pass\n\n    def close(self):\n        pass\n",
        "class Session:\n    def get(self, url):\n        pass\n",
        "Session",
        False,
        "method `Session.close` removed",
    ),
    (
        "a public method of the class changed incompatibly",
        PY,
        "class Session:\n    def get(self, url):\n        pass\n",
        "class Session:\n    def get(self, endpoint):\n        pass\n",
        "Session",
        False,
        "`Session.get`: `url` renamed `endpoint`",
    ),
    (
        "a private method may change as it likes",
        PY,
        "class Session:\n    def _send(self, req):\n        pass\n",
        "class Session:\n    def _send(self, req, stream):\n        pass\n",
        "Session",
        True,
        "",
    ),
    (
        "removed function",
        PY,
        "def obsolete(x):\n    return x\n\n\ndef keep():\n    pass\n",
        "def keep():\n    pass\n",
        "obsolete",
        False,
        "function `obsolete` removed",
    ),
    (
        "dropped from __all__",
        PY,
        '__all__ = ["f", "g"]\n\n\ndef f():\n    pass\n\n\ndef g():\n    pass\n',
        '__all__ = ["g"]\n\n\ndef f():\n    pass\n\n\ndef g():\n    pass\n',
        "f",
        False,
        "`f` is no longer public",
    ),
]

JS_CASES: list[Case] = [
    (
        "new trailing options object with a default (slugify)",
        JS,
        "function slugify(text) {\n  return text;\n}\nmodule.exports = { slugify };\n",
        "function slugify(text, { separator = '-', maxLength = 60 } = {}) {\n  return text;\n}\n"
        "module.exports = { slugify };\n",
        "slugify",
        True,
        "added optional parameter 2 `{separator = '-', maxLength = 60}` (default `{}`)",
    ),
    (
        "names do not matter to callers",
        JS,
        "function pageCount(total, perPage) {}\n",
        "function pageCount(count, size) {}\n",
        "pageCount",
        True,
        "parameter 1 `total` renamed `count` (callers cannot name it)",
    ),
    (
        "removed parameter",
        JS,
        "function quoteTotal(items, region, options) {}\n",
        "function quoteTotal(items, region) {}\n",
        "quoteTotal",
        False,
        "parameter 3 `options` removed",
    ),
    (
        "reordered parameters",
        JS,
        "function cartTotal(items, region) {}\n",
        "function cartTotal(region, items) {}\n",
        "cartTotal",
        False,
        "parameter 1 `items` moved to position 2",
    ),
    (
        "new required trailing parameter",
        JS,
        "function createPost(title, body) {}\n",
        "function createPost(title, body, author) {}\n",
        "createPost",
        False,
        "new required parameter 3 `author`",
    ),
    (
        "optional made required",
        JS,
        "function truncate(text, max = 80) {}\n",
        "function truncate(text, max) {}\n",
        "truncate",
        False,
        "parameter 2 `max` is now required",
    ),
    (
        "rest parameter removed",
        JS,
        "function log(level, ...args) {}\n",
        "function log(level, args) {}\n",
        "log",
        False,
        "rest parameter `...args` removed",
    ),
    (
        "rest parameter added",
        JS,
        "function sum(a, b) {}\n",
        "function sum(a, b, ...more) {}\n",
        "sum",
        True,
        "added `...more`",
    ),
    (
        "arrow function: new parameter with a default",
        JS,
        "const sub = (a, b) => a - b;\nmodule.exports = { sub };\n",
        "const sub = (a, b, c = 0) => a - b - c;\nmodule.exports = { sub };\n",
        "sub",
        True,
        "added optional parameter 3 `c` (default `0`)",
    ),
    (
        "class constructor gains an options default",
        JS,
        "class Emitter {\n  constructor() {\n    this.l = [];\n  }\n}\n",
        "class Emitter {\n  constructor(options = {}) {\n    this.l = [];\n  }\n}\n",
        "Emitter",
        True,
        "`Emitter` constructor: added optional parameter 1 `options`",
    ),
    (
        "class method: new required parameter",
        JS,
        "class Calc {\n  mul(y) {\n    return y;\n  }\n}\n",
        "class Calc {\n  mul(y, z) {\n    return y * z;\n  }\n}\n",
        "Calc.mul",
        False,
        "new required parameter 2 `z`",
    ),
    (
        "a public method removed from the class; a #private one does not count",
        JS,
        "class Calc {\n  mul(y) {}\n  div(y) {}\n  #log() {}\n}\n",
        "class Calc {\n  mul(y) {}\n}\n",
        "Calc",
        False,
        "method `Calc.div` removed",
    ),
]

TS_CASES: list[Case] = [
    (
        "new trailing `?` parameter",
        TS,
        "export function verifyCredential(c: Credential): boolean {\n  return true;\n}\n",
        "export function verifyCredential(c: Credential, strict?: boolean): boolean {\n"
        "  return true;\n}\n",
        "verifyCredential",
        True,
        "added optional parameter 2 `strict`",
    ),
    (
        "`?` made required",
        TS,
        "export function verifyCredential(c: Credential, strict?: boolean): boolean {}\n",
        "export function verifyCredential(c: Credential, strict: boolean): boolean {}\n",
        "verifyCredential",
        False,
        "parameter 2 `strict` is now required",
    ),
    (
        "type change: reported, not judged",
        TS,
        "export function pad(text: string, width: number): string {}\n",
        "export function pad(text: string, width: number | string): string {}\n",
        "pad",
        True,
        "type of parameter 2 `width`: `number` → `number | string`",
    ),
    (
        "return type change: reported, not judged",
        TS,
        "export function parse(s: string): Config {}\n",
        "export function parse(s: string): Readonly<Config> {}\n",
        "parse",
        True,
        "return type: `Config` → `Readonly<Config>`",
    ),
    (
        "new required parameter",
        TS,
        "export function greet(name: string): string {}\n",
        "export function greet(name: string, loud: boolean): string {}\n",
        "greet",
        False,
        "new required parameter 2 `loud`",
    ),
    (
        "removed parameter",
        TS,
        "export function encode(value: unknown, space?: number): string {}\n",
        "export function encode(value: unknown): string {}\n",
        "encode",
        False,
        "parameter 2 `space` removed",
    ),
    (
        "reordered parameters",
        TS,
        "export function clamp(value: number, min: number, max: number): number {}\n",
        "export function clamp(min: number, max: number, value: number): number {}\n",
        "clamp",
        False,
        "parameter 1 `value` moved to position 3",
    ),
    (
        "rest parameter removed",
        TS,
        "export function cx(...names: string[]): string {}\n",
        "export function cx(names: string[]): string {}\n",
        "cx",
        False,
        "rest parameter `...names` removed",
    ),
    (
        "a `this` parameter is not one callers pass",
        TS,
        "export function handler(event: Event): void {}\n",
        "export function handler(this: Window, event: Event): void {}\n",
        "handler",
        True,
        "`handler(event: Event): void` → `handler(this: Window, event: Event): void`",
    ),
    (
        "async method: new optional parameter",
        TS,
        "export class Auth {\n  async login(c: Credential): Promise<User> {\n    return u;\n  }\n}\n",
        "export class Auth {\n  async login(c: Credential, opts?: LoginOptions): Promise<User> {\n"
        "    return u;\n  }\n}\n",
        "Auth.login",
        True,
        "added optional parameter 2 `opts`",
    ),
    (
        "made async with the same declared Promise type",
        TS,
        "export function load(): Promise<Data> {\n  return fetchData();\n}\n",
        "export async function load(): Promise<Data> {\n  return fetchData();\n}\n",
        "load",
        True,
        "async now, with the same declared return type",
    ),
    (
        "constructor parameter property made required",
        TS,
        "export class Client {\n  constructor(private url: string, retries?: number) {}\n}\n",
        "export class Client {\n  constructor(private url: string, retries: number) {}\n}\n",
        "Client",
        False,
        "`Client` constructor: parameter 2 `retries` is now required",
    ),
    (
        "a method made private",
        TS,
        "export class Auth {\n  refresh(): void {}\n}\n",
        "export class Auth {\n  private refresh(): void {}\n}\n",
        "Auth",
        False,
        "`Auth.refresh` is no longer public",
    ),
]


def judge(language: str, old: str, new: str, name: str) -> CallVerdict:
    before = extract_symbols(old, language)
    after = extract_symbols(new, language)
    assert before.error is None and after.error is None, (before.error, after.error)
    table = {s.name: s for s in before.symbols}
    now = {s.name: s for s in after.symbols}
    return judge_symbol(name, table, now, language)


CASES = PYTHON_CASES + JS_CASES + TS_CASES


@pytest.mark.parametrize(
    ("rule", "language", "old", "new", "name", "compatible", "words"),
    CASES,
    ids=[f"{c[1]}: {c[0]}" for c in CASES],
)
def test_each_rule(
    rule: str, language: str, old: str, new: str, name: str, compatible: bool, words: str
) -> None:
    verdict = judge(language, old, new, name)
    said = verdict.notes if compatible else verdict.reasons
    assert verdict.compatible is compatible, verdict
    assert verdict.compatible == (not verdict.reasons)
    if words:
        assert any(words in line for line in said), said


def test_every_language_has_a_case_of_each_verdict() -> None:
    for language in (PY, JS, TS):
        assert {c[5] for c in CASES if c[1] == language} == {True, False}


def test_the_humanize_change_is_compatible_and_says_what_was_reported() -> None:
    verdict = judge(PY, HUMANIZE_OLD, HUMANIZE_NEW, "natural_list")
    assert verdict.compatible and verdict.extended
    assert verdict.text().startswith("compatible: annotation of `items`: `list[Any]`")
    assert "added keyword-only parameter `oxford_comma` (default `False`)" in verdict.notes


def test_unchanged_symbol_is_compatible_with_nothing_to_say() -> None:
    verdict = judge(PY, HUMANIZE_OLD, HUMANIZE_OLD + "\n# more\n", "natural_list")
    assert verdict == CallVerdict(True)


def test_file_verdict_lists_breaking_and_compatible_changes_apart() -> None:
    old = HUMANIZE_OLD + "\n\ndef obsolete(x):\n    pass\n\n\ndef connect(host):\n    pass\n"
    new = HUMANIZE_NEW + "\n\ndef connect(host, port):\n    pass\n"
    api = diff_symbols(old, new, PY).api
    assert set(api.compatible) == {"natural_list"}
    assert set(api.breaking) == {"obsolete", "connect"}
    assert api.reasons() == [
        "function `obsolete` removed",
        "`connect`: new required parameter `port`",
    ]
    assert not api.ok


def test_members_of_a_removed_class_are_not_listed_again() -> None:
    old = "class Session:\n    def get(self, url):\n        pass\n\n    def close(self):\n        pass\n"
    api = diff_symbols(old, "x = 1\n", PY).api
    assert list(api.breaking) == ["Session"]


def test_removing_an_init_that_took_nothing_keeps_the_class_callable() -> None:
    old = "class Token:\n    def __init__(self):\n        self.v = 1\n"
    new = "class Token:\n    v = 1\n"
    api = diff_symbols(old, new, PY).api
    assert api.ok, api.reasons()
    inherits = "class Token(Base):\n    v = 1\n"
    notes = judge(PY, old, inherits, "Token").notes
    assert any("constructor now inherited" in n for n in notes)


def test_a_function_that_became_a_variable_cannot_be_judged_compatible() -> None:
    verdict = judge(PY, "def f(x):\n    pass\n", "f = make_f()\n", "f")
    assert not verdict.compatible
    assert "cannot tell which calls it accepts" in verdict.reasons[0]


CLICK_TYPES_OLD = """
class ParamType:
    def convert(self, value, param, ctx):
        return value


class IntParamType(ParamType):
    def convert(self, value, param, ctx):
        return int(value)


class IntRange(IntParamType):
    def __init__(self, min=None, max=None, clamp=False):
        self.clamp = clamp
"""
CLICK_TYPES_NEW = """
class ParamType:
    def convert(self, value, param, ctx):
        return value


class _NumberParamTypeBase(ParamType):
    def convert(self, value, param, ctx):
        return self._number_class(value)


class _NumberRangeBase(_NumberParamTypeBase):
    def __init__(self, min=None, max=None, min_open=False, max_open=False, clamp=False):
        self.clamp = clamp


class IntParamType(_NumberParamTypeBase):
    _number_class = int


class IntRange(_NumberRangeBase, IntParamType):
    pass
"""


def test_a_method_moved_to_a_base_class_of_the_same_file_is_inherited_not_removed() -> None:
    """click 7.1 -> 8.0: IntParamType.convert moved to _NumberParamTypeBase."""
    api = diff_symbols(CLICK_TYPES_OLD, CLICK_TYPES_NEW, PY).api
    assert "IntParamType.convert" not in api.breaking
    assert "`IntParamType.convert` is now inherited from a base class" in (
        api.compatible["IntParamType.convert"].notes
    )
    assert judge(PY, CLICK_TYPES_OLD, CLICK_TYPES_NEW, "IntParamType").compatible


def test_an_inherited_constructor_is_judged_against_the_old_one() -> None:
    """click 8.0's IntRange takes min_open, max_open before clamp from its new base."""
    verdict = judge(PY, CLICK_TYPES_OLD, CLICK_TYPES_NEW, "IntRange")
    assert not verdict.compatible
    assert verdict.reasons == (
        "`IntRange` constructor: new parameters `min_open`, `max_open` inserted at positions "
        "3, 4: `clamp` shifts 2 places right",
    )
    api = diff_symbols(CLICK_TYPES_OLD, CLICK_TYPES_NEW, PY).api
    assert list(api.breaking) == ["IntRange.__init__"]
    assert api.reasons() == [
        "`IntRange.__init__`: new parameters `min_open`, `max_open` inserted at positions 3, 4: "
        "`clamp` shifts 2 places right"
    ]


def test_a_constructor_inherited_from_another_file_is_not_judged() -> None:
    old = "class Token:\n    def __init__(self, value):\n        self.value = value\n"
    new = "class Token(BaseModel):\n    value: str\n"
    verdict = judge(PY, old, new, "Token")
    assert verdict.compatible
    assert any(
        "constructor now inherited from a base class; not judged" in n for n in verdict.notes
    )


def test_a_member_whose_name_holds_a_dot_goes_with_its_class() -> None:
    old = "export class LRU {\n  get(k) {}\n  [Symbol.iterator]() {}\n}\n"
    api = diff_symbols(old, "export const x = 1;\n", TS).api
    assert list(api.breaking) == ["LRU"]


QS_STYLE_OLD = """\
var stringify = function stringify(object, prefix, encoder) {
    return prefix + encoder(object);
};

module.exports = function (object, opts) {
    return stringify(object, '', opts.encoder);
};
"""
QS_STYLE_NEW = """\
var stringify = function stringify(object, prefix, skipEmpty, encoder) {
    return skipEmpty && object === '' ? '' : prefix + encoder(object);
};

module.exports = function (object, opts, extra) {
    return stringify(object, '', opts.skipEmpty, opts.encoder);
};
"""


def test_a_module_that_exports_one_function_exports_only_that() -> None:
    """qs's lib/stringify.js: `module.exports = function (...)`; its helpers are private, so
    a helper's new parameter is no API change; the exported function is judged as `default`."""
    old = {s.name: s.public for s in extract_symbols(QS_STYLE_OLD, JS).symbols}
    assert old == {"stringify": False, "default": True}
    api = diff_symbols(QS_STYLE_OLD, QS_STYLE_NEW, JS).api
    assert api.reasons() == ["`default`: new required parameter 3 `extra`"]
