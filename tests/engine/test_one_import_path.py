"""One import path per name outside the engine too: the tests, the scripts and the benchmarks import each
engine name from its room's facade (``from engine.corpus import read_tsv``) or from the module that defines
it, never from a module that merely imports it (read from the source, nothing imported, with the helpers
tests/engine/test_rooms.py reads the engine with: fast tier)."""

from __future__ import annotations

import ast
import re
from functools import cache

from tests.engine import test_rooms
from tests.engine.test_rooms import ROOT, engine_modules
from tests.source_tree import python_files, source_text

OUTSIDE = ("tests", "scripts", "bench")  # the folders whose files import the engine from outside it
defined_names = cache(test_rooms.defined_names)  # each engine module read once
ENGINE_MODULES = engine_modules()
# a whole statement: its names on one line, or in parentheses over several (a trailing comment left out)
ENGINE_IMPORT = re.compile(r"^[ \t]*from (?P<module>engine(?:\.\w+)+) import (?:\([^)]*\)|[^\n#]*)", re.MULTILINE)


def re_exported_imports(source: str, where: str) -> list[str]:
    """``from engine.a.b import X`` statements of the file ``where`` holding ``source`` (at any depth: a test
    imports inside its functions too) whose module engine.a.b does not define X; a room's facade (its
    ``__init__``) is the public path and is not checked here. The statements are found by a pattern and
    only they are parsed (parsing every test file whole took seconds)."""
    wrong = []
    for match in ENGINE_IMPORT.finditer(source):
        module = match["module"]
        if module not in ENGINE_MODULES or ENGINE_MODULES[module].name == "__init__.py":
            continue
        line = source.count("\n", 0, match.start()) + 1
        (node,) = ast.parse(match[0].strip()).body
        assert isinstance(node, ast.ImportFrom)
        wrong += [f"{where}:{line} imports {alias.name} from {module}, which does not define it"
                  for alias in node.names if alias.name not in defined_names(module)]
    return wrong


def test_no_file_outside_the_engine_imports_a_name_through_a_module_that_only_re_exports_it():
    files = [path for folder in OUTSIDE for path in python_files(folder)]
    assert len(files) > 100  # the folders were found
    wrong = [line for path in files
             for line in re_exported_imports(source_text(path), str(path.relative_to(ROOT)))]
    assert wrong == []


def test_the_check_tells_a_re_export_from_a_definition_and_leaves_the_facades_alone():
    source = ("def f():\n    from engine.training.metrics_log import MetricsLog, SchemaError\n"
              "from engine.corpus import read_tsv\nfrom engine.corpus.corpus_read import Pair\n")
    assert re_exported_imports(source, "probe.py") == [
        "probe.py:2 imports SchemaError from engine.training.metrics_log, which does not define it"]
