"""The package's modules import one another one way (values and wire, then layers and videos, then
the link, the replay and the connection): no cycle among the lamina modules, counting imports
made only for type checking, and no lamina import inside a function, where it would hide a
cycle rather than remove it. Reads the sources; needs no laminad."""

from __future__ import annotations

import ast
import pathlib
from typing import Dict, List, Optional, Set, Tuple

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "lamina"
MODULES = {p.stem for p in PACKAGE.glob("*.py")}


def _imports(path: pathlib.Path) -> List[Tuple[str, int, bool]]:
    """Each lamina module `path` imports, with the line and whether the import is in a function
    (``__init__`` stands for the package itself)."""
    found: List[Tuple[str, int, bool]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        if isinstance(node, ast.ImportFrom):
            # Relative imports are the package's own (it has no subpackages).
            source = (node.module or "") if node.level == 0 else ".".join(["lamina"] + ([node.module] if node.module else []))
            if source == "lamina":
                # `from . import x`: module x, or a name the package's __init__ defines.
                found.extend((a.name if a.name in MODULES else "__init__", node.lineno, in_function) for a in node.names)
            elif source.startswith("lamina."):
                found.append((source.split(".")[1], node.lineno, in_function))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "lamina" or alias.name.startswith("lamina."):
                    found.append((alias.name.split(".")[1] if "." in alias.name else "__init__", node.lineno, in_function))
        for child in ast.iter_child_nodes(node):
            visit(child, in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    visit(ast.parse(path.read_text(), str(path)), False)
    return found


def _graph() -> Dict[str, Set[str]]:
    return {p.stem: {name for name, _, _ in _imports(p)} for p in PACKAGE.glob("*.py")}


def _cycle(graph: Dict[str, Set[str]]) -> Optional[List[str]]:
    """A cycle of imports (its modules, the first repeated at the end), or None."""
    done: Set[str] = set()
    path: List[str] = []

    def walk(module: str) -> Optional[List[str]]:
        if module in path:
            return path[path.index(module):] + [module]
        if module in done:
            return None
        path.append(module)
        for imported in sorted(graph.get(module, ())):
            cycle = walk(imported)
            if cycle:
                return cycle
        path.pop()
        done.add(module)
        return None

    for module in sorted(graph):
        cycle = walk(module)
        if cycle:
            return cycle
    return None


def test_the_lamina_modules_import_one_another_without_a_cycle() -> None:
    graph = _graph()
    # The reading of imports works: the connection sits on the replay, which sits on the link.
    assert {"replay", "requests", "session"} <= graph["connection"] and "link" in graph["replay"]
    cycle = _cycle(graph)
    assert cycle is None, "lamina modules import one another in a circle: " + " -> ".join(cycle or [])


def test_no_lamina_import_is_made_inside_a_function() -> None:
    late = [f"{p.name}:{line} imports lamina.{name}" for p in sorted(PACKAGE.glob("*.py"))
            for name, line, in_function in _imports(p) if in_function]
    assert not late, "import at the top of the module instead: " + "; ".join(late)


def test_the_cycle_finder_finds_one() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
