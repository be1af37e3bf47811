"""The map starts where the task points (issue 31, item 1): names in backticks and code
blocks, dotted names, module and file names and error text rank files before graph centrality,
on trees shaped like the real repositories the live trials used."""

from __future__ import annotations

import json
from pathlib import Path

from gitrepo import make_repo

from summarizers.repomap import build_repo_map
from summarizers.repomap_fit import listed_paths

ROOT = Path(__file__).resolve().parents[2]
HTTP_VERBS = ("get", "options", "head", "post", "put", "patch", "delete")
PARAMS = (
    "url: URL | str, *, content: RequestContent | None = None, data: RequestData | None = None, "
    "files: RequestFiles | None = None, json: typing.Any | None = None, params: QueryParams | None = None, headers: Headers | None = None, "
    "cookies: Cookies | None = None, auth: Auth | None = None, follow_redirects: bool = False, "
    "timeout: Timeout | None = None, extensions: dict | None = None"
)


def _client_class(name: str, base: str, prefix: str = "") -> str:
    methods = [
        f"    {prefix}def {verb}(self, {PARAMS}) -> Response:\n        ...\n" for verb in HTTP_VERBS
    ]
    methods += [
        f"    {prefix}def request(self, method: str, {PARAMS}) -> Response:\n        ...\n",
        f"    {prefix}def stream(self, method: str, {PARAMS}) -> Response:\n        ...\n",
        f"    {prefix}def send(self, request: Request, *, stream: bool = False, auth: Auth | None"
        " = None, follow_redirects: bool = False) -> Response:\n        ...\n",
        f"    {prefix}def close(self) -> None:\n        ...\n",
    ]
    methods += [
        f"    def _send_step_{i}(self, request: Request) -> None:\n        ...\n" for i in range(20)
    ]
    return f"class {name}({base}):\n" + "\n".join(methods) + "\n\n"


def _http_client_tree() -> dict[str, str]:
    """An httpx-shaped package: 123 tracked files, the client module the largest."""
    files = {
        "httpx/__init__.py": "from ._api import get, post\nfrom ._client import AsyncClient, Client\n"
        "from ._config import Timeout\nfrom ._models import Request, Response\n",
        "httpx/_client.py": "from ._config import Timeout\nfrom ._models import Request, Response\n\n\n"
        "class BaseClient:\n    def __init__(self, *, timeout: Timeout = Timeout(5.0)) -> None:\n"
        "        self._timeout = timeout\n\n"
        f"    def build_request(self, method: str, {PARAMS}) -> Request:\n        ...\n\n\n"
        + _client_class("Client", "BaseClient")
        + _client_class("AsyncClient", "BaseClient", "async "),
        "httpx/_models.py": "class Headers:\n    def __init__(self, headers=None) -> None:\n        ...\n\n\n"
        "class Request:\n    def __init__(self, method: str, url: str, *, extensions=None) -> None:\n"
        "        self.extensions = extensions or {}\n\n\nclass Response:\n"
        + "".join(f"    def method_{i}(self) -> None:\n        ...\n" for i in range(40)),
        "httpx/_config.py": "class Timeout:\n    def __init__(self, timeout: float) -> None:\n"
        "        self.connect = self.read = timeout\n\n    def as_dict(self) -> dict:\n        ...\n",
        "httpx/_exceptions.py": "class HTTPError(Exception):\n    pass\n\n\nclass TimeoutException(HTTPError):\n"
        "    pass\n",
        "httpx/_api.py": "from ._client import Client\n\n\ndef get(url, *, timeout=None):\n"
        "    with Client(timeout=timeout) as client:\n        return client.get(url)\n",
        "scripts/build": "#!/bin/sh -e\npython -m build\n",
        "tests/test_timeouts.py": "import httpx\n\n\ndef test_read_timeout(server):\n"
        "    with httpx.Client(timeout=httpx.Timeout(1e-6)) as client:\n        client.get(server.url)\n",
    }
    for i in range(63):
        files[f"docs/page_{i:02d}.md"] = (
            f"# Page {i}\n\nSend a request with a client and a timeout.\n"
        )
    for i in range(52):
        files[f"tests/models/test_model_{i:02d}.py"] = (
            "import httpx\n\n\ndef test_request():\n    request = httpx.Request('GET', 'http://x')\n"
            "    assert request.extensions == {}\n"
        )
    assert len(files) == 123
    return files


HTTP_TASK = """Client timeout is ignored by send() for a Request built by hand

When a client is created with a timeout and I send a request I built myself, the client's
timeout is not applied:

```python
async with httpx.AsyncClient(timeout=httpx.Timeout(1e-6)) as client:
    await client.send(httpx.Request("GET", "http://127.0.0.1:8000/slow_response"))
```

The same request made with `client.build_request("GET", url)` and then `client.send(request)`
times out as expected. Expected: `send()` applies the client's timeout to any `Request`.
"""


def test_the_http_client_case_gets_a_map_that_starts_at_the_client(tmp_path: Path) -> None:
    """Issue 31: this tree's map was "0 of 123 tracked files"."""
    repo = make_repo(tmp_path / "httpx", _http_client_tree())
    text = build_repo_map(repo, HTTP_TASK)
    paths = listed_paths(text)
    assert paths[0] == "httpx/_client.py", text[:400]
    assert "httpx/_models.py" in paths[:5], paths[:8]
    assert paths.index("scripts/build") > max(
        paths.index(p) for p in paths if p.startswith("httpx/")
    ), paths[:12]
    assert "    send(self, request: Request, *, stream: bool = False" in text
    assert "    build_request(self, method, url, *, content, data, files, json, params" in text
    assert "  class Request" in text


LOCALE = """// {name}
import dayjs from 'dayjs'

const locale = {{
  name: '{name}',
  weekdays: 'Sonntag_Montag_Dienstag_Mittwoch_Donnerstag_Freitag_Samstag'.split('_'),
  weekdaysShort: 'So._Mo._Di._Mi._Do._Fr._Sa.'.split('_'),
  months: 'Januar_Februar_Maerz_April_Mai_Juni_Juli_August_September_Oktober'.split('_'),
  ordinal: n => `${{n}}.`,
  formats: {{
    LTS: 'HH:mm:ss', LT: 'HH:mm', L: 'DD.MM.YYYY', LL: 'D. MMMM YYYY',
    LLL: 'D. MMMM YYYY HH:mm', LLLL: 'dddd, D. MMMM YYYY HH:mm'
  }},
  relativeTime: {{ future: 'in %s', past: 'vor %s', s: 'ein paar Sekunden', m: 'eine Minute' }}
}}

dayjs.locale(locale, null, true)

export default locale
"""


def _shipped_task(instance_id: str) -> str:
    for line in (ROOT / "fixtures/swebench/instances.jsonl").read_text().splitlines():
        if json.loads(line)["instance_id"] == instance_id:
            return json.loads(line)["problem_statement"]
    raise AssertionError(instance_id)


def test_a_module_the_tasks_code_imports_outranks_files_full_of_its_words(tmp_path: Path):
    """dayjs-shaped, with the real report (shipped instance iamkun__dayjs-3012): forty-five
    locale tables spell every key of the task's example; the plugin the example imports is
    the one upstream changed (it was the map's 88th entry)."""
    files = {f"src/locale/l{i:02d}.js": LOCALE.format(name=f"l{i:02d}") for i in range(45)}
    files |= {
        "src/index.js": "import * as C from './constant'\nimport en from './locale/en'\n"
        "const dayjs = function (date, c) { return new Dayjs(c) }\n"
        "dayjs.extend = (plugin, option) => { plugin(option, Dayjs, dayjs); return dayjs }\n"
        "dayjs.locale = parseLocale\ndayjs.Ls = Ls\nexport default dayjs\n",
        "src/constant.js": "export const FORMAT_DEFAULT = 'YYYY-MM-DDTHH:mm:ssZ'\n",
        "src/locale/en.js": LOCALE.format(name="en"),
        "src/plugin/updateLocale/index.js": "export default (option, Dayjs, dayjs) => {\n"
        "  dayjs.updateLocale = function (locale, customConfig) {\n"
        "    const localeList = dayjs.Ls\n    const localeConfig = localeList[locale]\n"
        "    if (!localeConfig) return\n"
        "    const customConfigKeys = customConfig ? Object.keys(customConfig) : []\n"
        "    customConfigKeys.forEach((c) => {\n      localeConfig[c] = customConfig[c]\n    })\n"
        "    return localeConfig\n  }\n}\n",
        "src/plugin/localizedFormat/index.js": "import { u, englishFormats } from './utils'\n"
        "export default (o, c, d) => { const proto = c.prototype; const oldFormat = proto.format\n"
        "  d.en.formats = englishFormats\n  proto.format = function (formatStr) { return oldFormat }\n}\n",
        "src/plugin/localizedFormat/utils.js": "export const englishFormats = { LTS: 'h:mm:ss A',"
        " LT: 'h:mm A', L: 'MM/DD/YYYY', LL: 'MMMM D, YYYY', LLL: 'MMMM D, YYYY h:mm A' }\n"
        "export const u = (formatStr, formats) => formatStr\n",
        "src/plugin/relativeTime/index.js": "import * as C from '../../constant'\n"
        "export default (o, c, d) => { d.en.relativeTime = { future: 'in %s', past: '%s ago' } }\n",
        "types/locale/types.d.ts": "declare interface ILocale {\n  name: string\n  weekdays?: string[]\n"
        "  months?: string[]\n  formats: Partial<{LT: string, LTS: string, L: string, LL: string,"
        " LLL: string, LLLL: string}>\n  relativeTime: Partial<{future: string, past: string,"
        " s: string, m: string}>\n}\n",
        "test/plugin/updateLocale.test.js": "import updateLocale from '../../src/plugin/updateLocale'\n"
        "it('updates', () => { dayjs.updateLocale('en', { formats: {} }) })\n",
    }
    repo = make_repo(tmp_path / "dayjs", files)
    paths = listed_paths(build_repo_map(repo, _shipped_task("iamkun__dayjs-3012")))
    assert paths.index("src/plugin/updateLocale/index.js") < 3, paths[:10]


def test_a_dotted_module_name_ranks_its_file_first(tmp_path: Path) -> None:
    files = {
        "pkg/formats/csv.py": "def write_rows(rows, out):\n    for row in rows[:-1]:\n        out.write(row)\n",
        "pkg/csv_tools.py": "# csv helpers: csv rows, csv columns, csv quoting of the last row\n"
        "def quote_csv(value):\n    return value\n",
        "pkg/rows.py": "def last_row(rows):\n    return rows[-1]  # the last row of csv rows\n",
    }
    repo = make_repo(tmp_path / "r", files)
    text = build_repo_map(
        repo, "`pkg.formats.csv` drops the last row of a csv file with three rows"
    )
    assert listed_paths(text)[0] == "pkg/formats/csv.py"


def test_error_text_the_repository_spells_ranks_the_file_that_raises_it(tmp_path: Path) -> None:
    """js-yaml-shaped: the words of the message are all over the tree (and in file names); the
    message itself is spelled in one file."""
    files = {
        "lib/loader.js": "function readBlockMapping(state) {\n"
        "  throwError(state, 'bad indentation of a mapping entry');\n}\n",
        "lib/mapping.js": "// a mapping entry: key and value; bad keys are skipped\nmodule.exports = {}\n",
        "lib/indentation.js": "// indentation of a block: an entry is indented\nmodule.exports = {}\n",
        "lib/entry.js": "// entry of a mapping, bad or good\nmodule.exports = {}\n",
    }
    repo = make_repo(tmp_path / "yaml", files)
    task = (
        "A second `key: value` pair on one line is accepted:\n\n```js\nyaml.load('foo: 1 bar: 2')\n```\n\n"
        "Expected an error, along the lines of `bad indentation of a mapping entry`."
    )
    assert listed_paths(build_repo_map(repo, task))[0] == "lib/loader.js"


def test_files_the_words_leave_level_are_ordered_by_how_many_files_import_them(tmp_path: Path):
    files = {
        f"pkg/mod_{c}.py": "from pkg import engine\n\n\ndef run():\n    pass\n" for c in "abcdefg"
    }
    files["pkg/engine.py"] = "def start():\n    pass\n"
    files["pkg/__init__.py"] = ""
    files["web/app.js"] = "const util = require('./lib/util')\n"
    files["web/page.js"] = "import { fmt } from './lib/util.js'\n"
    files["web/lib/util.js"] = "module.exports = {}\n"
    files["web/lib/aaa.js"] = "module.exports = {}\n"
    repo = make_repo(tmp_path / "r", files)
    paths = listed_paths(build_repo_map(repo, "something is slow"))
    assert paths[0] == "pkg/engine.py", paths
    assert paths.index("web/lib/util.js") < paths.index("web/lib/aaa.js")
