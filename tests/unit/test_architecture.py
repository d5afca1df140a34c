"""The layers of docs/architecture.md, and no import cycles, enforced on the imports the code
really has.

The layer of a module is the layer of its first path component under ``safemigrate/`` (``db/``,
``run/``, ``core/``...), and that table is read from one place: the "The layers" table of
docs/architecture.md, so the page and this test cannot disagree. Every import in every module
counts, including those inside functions (a lazy import still runs when the function does).
Read with ``ast``: nothing is imported to check it.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "safemigrate"
ARCHITECTURE = ROOT / "docs" / "architecture.md"

#: The files allowed at the top of the package beside the packages that are the layers.
FLAT_ALLOWED = {"__init__.py", "__main__.py"}

#: What a pure module may import from outside the package: the standard library's pure parts,
#: pglast (the parser), tomllib/tomli (the settings file) and _blake2 (hashlib's own BLAKE2, for
#: check's memo keys). ``os`` and ``sys`` are for the environment and sys.path, ``pathlib`` for
#: reading migration files: no process, no socket, no database, no terminal.
PURE_MAY_IMPORT = frozenset(
    {
        "__future__",
        "_blake2",
        "bisect",
        "collections",
        "copy",
        "dataclasses",
        "datetime",
        "decimal",
        "difflib",
        "enum",
        "functools",
        "hashlib",
        "importlib",
        "itertools",
        "json",
        "math",
        "os",
        "pathlib",
        "pglast",
        "random",
        "re",
        "sys",
        "tomli",
        "tomllib",
        "types",
        "typing",
        "unicodedata",
        "zlib",
    }
)

#: What no pure module reaches, directly or through the package modules it imports.
NOT_PURE = frozenset({"psycopg", "psycopg_pool", "click", "subprocess", "socket", "threading"})


def read_layer_table(page: Path) -> tuple[dict[str, str], dict[str, int]]:
    """The "The layers" table of the architecture page: each first path component (``""`` for
    the package's ``__init__``) -> its layer, and each layer -> its rank (lowest first)."""
    packages: dict[str, str] = {}
    ranks: dict[str, int] = {}
    inside = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            inside = line.strip() == "## The layers"
            continue
        if not (inside and line.startswith("| `")):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        names, layer, rank = cells[0], cells[1], int(cells[2])
        assert ranks.setdefault(layer, rank) == rank, f"layer {layer} has two ranks"
        for name in names.split(","):
            entry = name.strip().strip("`").removesuffix("/").removesuffix(".py")
            packages["" if entry == "__init__" else entry] = layer
    return packages, ranks


PACKAGES, LAYERS = read_layer_table(ARCHITECTURE)


def layer_of(module: str) -> str:
    """The layer of a module of the package (dotted name without ``safemigrate.``)."""
    first = module.split(".")[0] if module else ""
    if first not in PACKAGES:
        raise AssertionError(f"{module}: {first!r} is not in docs/architecture.md's layer table")
    return PACKAGES[first]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts) if parts else ""


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


@cache
def imports_of(module: str) -> frozenset[str]:
    """Every module ``module`` imports, anywhere in its file: package modules without the
    ``safemigrate.`` prefix, others by their top-level name."""
    path = MODULES[module]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                name = alias.name
                found.add(
                    name.removeprefix("safemigrate.")
                    if name.startswith("safemigrate.")
                    else name.split(".")[0]
                )
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".") if package else []
                base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                target = ".".join([*base, *([node.module] if node.module else [])])
                candidates = [f"{target}.{a.name}" if target else a.name for a in node.names]
                # ``from . import x`` names a module when x is one; else it names a symbol.
                hits = [c for c in candidates if c in MODULES]
                found.update(hits or [target])
            elif node.module and node.module.startswith("safemigrate"):
                name = node.module.removeprefix("safemigrate").lstrip(".")
                candidates = [f"{name}.{a.name}" if name else a.name for a in node.names]
                hits = [c for c in candidates if c in MODULES]
                found.update(hits or [name])
            elif node.module:
                found.add(node.module.split(".")[0])
    return frozenset(found)


def closure(module: str) -> set[str]:
    """``module`` and every package module it reaches through imports, with the outside
    packages they import."""
    seen: set[str] = set()
    todo = [module]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        for name in imports_of(current):
            if name in MODULES:
                todo.append(name)
                # Importing a submodule runs its package's __init__ first.
                parent = name.rpartition(".")[0]
                while parent:
                    todo.append(parent)
                    parent = parent.rpartition(".")[0]
            else:
                seen.add(name)
    return seen


NAMED = sorted(m for m in MODULES if m)
PURE = sorted(m for m in NAMED if layer_of(m) == "pure")


def import_cycles(graph: dict[str, frozenset[str]]) -> list[list[str]]:
    """The groups of modules that import each other in a cycle (the graph's strongly
    connected components of more than one module, or of one importing itself), each sorted."""
    reach: dict[str, set[str]] = {}
    for start in graph:
        seen: set[str] = set()
        todo = list(graph[start])
        while todo:
            current = todo.pop()
            if current not in seen:
                seen.add(current)
                todo.extend(graph.get(current, ()))
        reach[start] = seen
    groups = {
        frozenset({m, *(n for n in reach[m] if m in reach[n])}) for m in graph if m in reach[m]
    }
    return sorted(sorted(group) for group in groups)


def package_import_graph() -> dict[str, frozenset[str]]:
    """Each module of the package and the package modules its own import statements name.

    The implicit import of a submodule's package (``import a.b`` runs ``a/__init__`` first) is
    not an edge: every ``__init__`` that re-exports its submodules would otherwise close a
    cycle with each of them that imports a sibling, and Python handles that one (the package
    is in ``sys.modules`` before its ``__init__`` imports anything).
    """
    return {m: frozenset(n for n in imports_of(m) if n in MODULES) for m in MODULES}


def test_the_layer_table_is_the_architecture_pages() -> None:
    # Lowest first: pure; db and infra side by side; run; the commands; the command line.
    assert LAYERS == {"pure": 0, "db": 1, "infra": 1, "run": 2, "commands": 3, "cli": 4}
    assert {PACKAGES[p] for p in ("cli", "__main__", "api", "", "run", "db", "infra")} == {
        "cli",
        "commands",
        "run",
        "db",
        "infra",
    }
    assert PACKAGES["core"] == PACKAGES["lint"] == "pure"


def test_the_layers_cover_a_real_package() -> None:
    assert {"cli", "api", "run", "run.executor", "db.steps", "planning.policy", "source"} <= set(
        MODULES
    )


def test_every_entry_at_the_top_of_the_package_has_a_layer_and_every_layer_row_exists() -> None:
    top = {
        p.name.removesuffix(".py")
        for p in PACKAGE.iterdir()
        if (p.is_dir() and (p / "__init__.py").exists()) or p.suffix == ".py"
    }
    top = {"" if name == "__init__" else name for name in top}
    assert top == set(PACKAGES), (
        f"not in the table: {sorted(top - set(PACKAGES))}; "
        f"in the table, not in the package: {sorted(set(PACKAGES) - top)}"
    )


def test_no_flat_module_beside_init_and_main() -> None:
    # A module's layer is its folder: a flat module would have none.
    flat = sorted(p.name for p in PACKAGE.glob("*.py") if p.name not in FLAT_ALLOWED)
    assert flat == [], f"flat modules at the top of safemigrate/: {flat}"


@pytest.mark.parametrize("module", NAMED)
def test_no_module_imports_a_layer_above_its_own(module: str) -> None:
    mine = LAYERS[layer_of(module)]
    above = sorted(
        name
        for name in imports_of(module)
        if name in MODULES and name and LAYERS[layer_of(name)] > mine
    )
    assert above == [], f"{module} ({layer_of(module)}) imports higher layers: {above}"


@pytest.mark.parametrize("module", sorted(m for m in NAMED if layer_of(m) in ("db", "infra")))
def test_db_and_infra_do_not_import_each_other(module: str) -> None:
    # Side by side on one rank: the database and the other I/O stay apart, so each can be
    # understood (and faked) without the other.
    other = "infra" if layer_of(module) == "db" else "db"
    crossing = sorted(n for n in imports_of(module) if n in MODULES and n and layer_of(n) == other)
    assert crossing == [], f"{module} ({layer_of(module)}) imports {other}: {crossing}"


@pytest.mark.parametrize("module", PURE)
def test_pure_modules_never_reach_the_database_the_terminal_or_processes(module: str) -> None:
    reached = closure(module)
    assert not reached & NOT_PURE, sorted(reached & NOT_PURE)


@pytest.mark.parametrize("module", PURE)
def test_pure_modules_import_only_what_a_pure_module_may(module: str) -> None:
    outside = sorted(n for n in imports_of(module) if n not in MODULES and n != "")
    assert set(outside) <= PURE_MAY_IMPORT, sorted(set(outside) - PURE_MAY_IMPORT)


@pytest.mark.parametrize("module", NAMED)
def test_only_the_db_layer_imports_psycopg_and_only_the_cli_imports_click(module: str) -> None:
    direct = imports_of(module)
    if "psycopg" in direct:
        assert layer_of(module) == "db", f"{module} imports psycopg"
    if "click" in direct:
        assert layer_of(module) == "cli", f"{module} imports click"


#: The packages ``source`` may import: it reads files into facts (issue 23). The runner's
#: policy on those facts (CONCURRENTLY, a recipe, batches) is planning's, which imports source:
#: source importing planning back would be the policy inside the parser again.
SOURCE_MAY_IMPORT = frozenset({"core", "statements", "source"})


@pytest.mark.parametrize("module", sorted(m for m in NAMED if m.split(".")[0] == "source"))
def test_source_imports_only_the_vocabulary_and_the_statement_facts(module: str) -> None:
    reached = sorted(
        name
        for name in imports_of(module)
        if name in MODULES and name.split(".")[0] not in SOURCE_MAY_IMPORT
    )
    assert reached == [], f"{module} imports {reached}"


def test_no_module_basename_is_both_a_db_and_a_pure_module() -> None:
    # db/recipes.py beside a pure recipes.py meant two things under one name: the db module is
    # named for what it does with the server (recipe_runs, batch_queries, recovery_checks).
    def basenames(layer: str) -> set[str]:
        return {
            MODULES[m].stem
            for m in NAMED
            if layer_of(m) == layer and MODULES[m].name != "__init__.py"
        }

    assert sorted(basenames("db") & basenames("pure")) == []


def test_the_import_reader_sees_lazy_and_relative_imports() -> None:
    # The commands import the run layer inside their functions; the watcher imports db
    # relatively; the command line imports the commands lazily.
    api_modules = [m for m in NAMED if m == "api" or m.startswith("api.")]
    assert any(n.split(".")[0] == "run" for m in api_modules for n in imports_of(m))
    assert any(n == "db" or n.startswith("db.") for n in imports_of("run.watcher"))
    cli_modules = [m for m in NAMED if layer_of(m) == "cli"]
    assert any(n.split(".")[0] == "api" for m in cli_modules for n in imports_of(m))
    assert "psycopg" in closure("db.steps")


def test_no_modules_import_each_other_in_a_cycle() -> None:
    # A cycle, lazy import or not, means neither module can be understood or tested without
    # the other; what both need belongs in a module of its own below them (as db.step_timeouts
    # is for db.steps and db.recipe_runs, source.scanning for source.files and source.layouts).
    cycles = import_cycles(package_import_graph())
    assert cycles == [], "modules that import each other in a cycle: " + "; ".join(
        " <-> ".join(group) for group in cycles
    )


def test_the_cycle_finder_finds_cycles_and_only_cycles() -> None:
    graph = {
        "a": frozenset({"b"}),
        "b": frozenset({"c"}),
        "c": frozenset({"a", "d"}),
        "d": frozenset({"e"}),
        "e": frozenset(),
        "f": frozenset({"f"}),
    }
    assert import_cycles(graph) == [["a", "b", "c"], ["f"]]
    assert import_cycles({"a": frozenset({"b"}), "b": frozenset()}) == []
