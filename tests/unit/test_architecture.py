"""The layers of docs/architecture.md, and no import cycles, enforced on the imports the code
really has.

Every import in every module counts, including those inside functions (a lazy import still runs
when the function does). Read with ``ast``: nothing is imported to check it.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "safemigrate"

#: Lowest first. A module may import its own layer and the layers below, never one above.
LAYERS: dict[str, int] = {
    "pure": 0,
    "db": 1,
    "run": 2,
    "commands": 3,
    "cli": 4,
}


def layer_of(module: str) -> str:
    """The layer of a module of the package (dotted name without ``safemigrate.``)."""
    if module in ("cli", "__main__") or module.startswith("cli."):
        return "cli"
    first = module.split(".")[0]
    if first == "api" or module == "check":
        return "commands"
    if first == "run" or module in ("executor", "fleet", "blockers.watcher"):
        return "run"
    if module == "db" or module.startswith("db."):
        return "db"
    return "pure"


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


PURE = sorted(m for m in MODULES if m and layer_of(m) == "pure")


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


def test_the_layers_cover_a_real_package() -> None:
    assert {"cli", "api", "run", "executor", "db.steps", "policy", "source", "lint"} <= set(MODULES)


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m))
def test_no_module_imports_a_layer_above_its_own(module: str) -> None:
    mine = LAYERS[layer_of(module)]
    above = sorted(
        name
        for name in imports_of(module)
        if name in MODULES and name and LAYERS[layer_of(name)] > mine
    )
    assert above == [], f"{module} ({layer_of(module)}) imports higher layers: {above}"


@pytest.mark.parametrize("module", PURE)
def test_pure_modules_never_reach_psycopg_or_click(module: str) -> None:
    reached = closure(module)
    assert not reached & {"psycopg", "psycopg_pool", "click"}, sorted(reached)


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m))
def test_only_the_db_layer_imports_psycopg_and_only_the_cli_imports_click(module: str) -> None:
    direct = imports_of(module)
    if "psycopg" in direct:
        assert layer_of(module) == "db", f"{module} imports psycopg"
    if "click" in direct:
        assert layer_of(module) == "cli", f"{module} imports click"


def test_the_import_reader_sees_lazy_and_relative_imports() -> None:
    # api.apply imports the run inside up; the watcher imports db relatively.
    assert "run.database_run" in imports_of("api.apply")
    assert "db" in imports_of("blockers.watcher") or "db.session" in imports_of("blockers.watcher")
    assert "psycopg" in closure("db.steps")


def test_no_modules_import_each_other_in_a_cycle() -> None:
    # A cycle, lazy import or not, means neither module can be understood or tested without
    # the other; what both need belongs in a module of its own below them (as db.step_timeouts
    # is for db.steps and db.recipes, source.scanning for source.files and source.layouts).
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
