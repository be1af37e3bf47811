"""What a task says about where to look (summarizers/repomap_words.py) and which files import
which (summarizers/repomap_graph.py): pure functions, no repository."""

from __future__ import annotations

from summarizers.repomap_graph import imports_of, in_degrees
from summarizers.repomap_words import module_components, names_file, task_words

HTTP = """Client timeout is ignored by send() for a Request built by hand

```python
async with httpx.AsyncClient(timeout=httpx.Timeout(1e-6)) as client:
    await client.send(httpx.Request("GET", "http://127.0.0.1:8000/slow"))  # the parser waits
```

The same request made with `client.build_request("GET", url)` times out as expected.
"""


def test_names_written_as_code_are_told_from_words_of_prose():
    words = task_words(HTTP)
    assert {"send", "build_request", "request", "client", "asyncclient"} <= words.code
    assert "timeout" in words.code  # httpx.Timeout
    assert {"ignored", "hand", "built"} <= words.terms - words.code
    assert "parser" in words.terms and "parser" not in words.code  # a comment in the code block
    assert "get" not in words.code  # a string in the code block


def test_snake_camel_and_called_names_in_prose_are_code():
    words = task_words("Calling parseFilename or token_store() drops data; the run() fails.")
    assert {"parsefilename", "token_store", "run"} <= words.code
    assert "calling" not in words.code and "drops" not in words.code


def test_modules_and_paths_the_task_names_are_references():
    words = task_words(
        "In `boltons.fileutils` and dayjs/plugin/updateLocale:\n\n"
        "```python\nfrom tomlkit.items import item, Integer\nimport pkg.sub\n```\n"
        "```js\nconst y = require('./lib/loader.js')\n```\nsee https://example.com/a/b too"
    )
    refs = set(words.references)
    assert ("boltons", "fileutils") in refs
    assert ("dayjs", "plugin", "updatelocale") in refs
    assert {("tomlkit", "items"), ("tomlkit", "items", "integer"), ("pkg", "sub")} <= refs
    assert ("lib", "loader") in refs
    assert not any("example" in part for ref in refs for part in ref)


def test_owners_of_dotted_names():
    assert {"client", "fileutils"} <= task_words("`client.send` and fileutils.AtomicSaver").owners


def test_error_text_and_quoted_messages_become_phrases():
    words = task_words(
        "DeprecationWarning: No '__dict__' attribute on 'NoneType' instance to cache 'get' property.\n"
        "Expected an error along the lines of `bad indentation of a mapping entry`; libyaml says "
        '"did not find expected key".'
    )
    assert {
        "instance to cache",
        "bad indentation of a mapping entry",
        "did not find expected key",
    } <= set(words.phrases)
    assert "attribute on" not in words.phrases  # two words say too little


def test_a_file_is_named_by_whole_words_only():
    words = task_words("`build_request()` fails; see src/auth.ts:41 and parser.py")
    assert not names_file(words, "scripts/build")
    assert names_file(words, "src/auth.ts")
    assert names_file(words, "tomlkit/parser.py")  # its name, long enough to mean it
    assert not names_file(words, "src/auth.tsx")


def test_module_components_spell_a_file_as_an_import_would():
    assert module_components("src/plugin/updateLocale/index.js") == (
        "src",
        "plugin",
        "updatelocale",
    )
    assert module_components("httpx/__init__.py") == ("httpx",)
    assert module_components("httpx/_client.py") == ("httpx", "_client")


def test_imports_are_read_for_python_and_javascript():
    py = imports_of(
        "pkg/sub/mod.py",
        b"import os, pkg.engine\nfrom . import sibling\nfrom ..util import helper, Other\n"
        b"from pkg.models import (Request,\n    Response)\n",
    )
    assert ("os",) in py and ("pkg/engine",) in py
    assert ("./pkg/sub/sibling", "./pkg/sub") in py
    assert ("./pkg/util/helper", "./pkg/util") in py
    assert ("pkg/models/Request", "pkg/models") in py
    js = imports_of(
        "src/plugin/duration/index.js",
        b"import * as C from '../../constant'\nconst u = require('./utils')\n"
        b"export { x } from '../other/index.js'\nimport dayjs from 'dayjs'\n",
    )
    assert js == [
        ("./src/constant",),
        ("./src/plugin/duration/utils",),
        ("./src/plugin/other/index.js",),
    ]


def test_in_degree_counts_distinct_importers_of_the_module_an_import_means():
    paths = [
        "src/pkg/__init__.py",
        "src/pkg/engine.py",
        "src/pkg/a.py",
        "src/pkg/b.py",
        "other/engine.py",
        "web/lib/util.js",
        "web/app.js",
    ]
    imports = {
        "src/pkg/a.py": [("pkg/engine", "pkg"), ("pkg/engine", "pkg")],
        "src/pkg/b.py": [("./src/pkg/engine",), ("pkg",)],
        "src/pkg/engine.py": [("pkg/engine",)],
        "web/app.js": [("./web/lib/util",)],
    }
    degrees = in_degrees({path: module_components(path) for path in paths}, imports)
    assert degrees["src/pkg/engine.py"] == 2  # a and b; its import of itself does not count
    assert (
        degrees["src/pkg/__init__.py"] == 1
    )  # b's `import pkg`; a's `from pkg import engine` is engine
    assert "other/engine.py" not in degrees  # pkg.engine is not other/engine
    assert degrees["web/lib/util.js"] == 1
