"""The package's layering: each module imports only from its own layer and the layers
below it, no import cycle, no private name used outside its module.

Every ``import`` of a dualsvm module counts, at module level or inside a function
(an import hidden in a function still ties the two modules together), so a cycle
cannot be held apart by deferring one of its imports. Read with ``ast`` from the
sources: nothing is imported to check it.
"""

import ast
from pathlib import Path

PACKAGE = "dualsvm"
SOURCE = Path(__file__).resolve().parents[1] / "src" / PACKAGE


def _modules():
    """{module name: (path, is_package)} of every module of the package."""
    modules = {}
    for path in SOURCE.rglob("*.py"):
        parts = list(path.relative_to(SOURCE.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        modules[".".join(parts)] = (path, is_package)
    return modules


def _imports(name, path, is_package, modules):
    """(imported module, names taken from it, line) for every dualsvm import in a module."""
    package = name if is_package else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(alias.name, [], node.lineno) for alias in node.names
                      if alias.name.split(".")[0] == PACKAGE]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != PACKAGE:
                continue
            names = []
            for alias in node.names:
                submodule = f"{target}.{alias.name}"
                if submodule in modules:  # `from package import module`
                    found.append((submodule, [], node.lineno))
                else:
                    names.append(alias.name)
            if names:
                found.append((target, names, node.lineno))
    return found


def _graph():
    modules = _modules()
    graph, private = {}, []
    for name, (path, is_package) in modules.items():
        edges = set()
        for target, names, line in _imports(name, path, is_package, modules):
            assert target in modules, f"{name}:{line} imports {target}, which does not exist"
            if target != name:
                edges.add(target)
            private += [f"{name}:{line} imports {n} from {target}" for n in names
                        if n.startswith("_") and not n.startswith("__")]
        graph[name] = edges
    return graph, private


def _cycles(graph):
    """The strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on_stack, components = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in graph[node]:
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return components


#: The layers, bottom (1) to top (8), by module prefix (the longest that matches); the
#: package's own ``__init__`` is the top. The docs' "Architecture" page draws them.
LAYERS = {
    "dualsvm.exceptions": 1, "dualsvm.constants": 1,
    "dualsvm.data": 2,
    "dualsvm.kernels": 3, "dualsvm.problems": 3,
    "dualsvm.solvers": 4,
    "dualsvm.training": 5, "dualsvm.outofcore": 5, "dualsvm.dask.cocoa": 5,
    "dualsvm.dask.inputs": 5, "dualsvm.dask.kernel_solver": 5, "dualsvm.dask.divide_conquer": 5,
    "dualsvm.persistence": 6,
    "dualsvm.estimators": 7, "dualsvm.plotting": 7, "dualsvm.dask": 7, "dualsvm.onnx": 7,
    "dualsvm.cli": 8, "dualsvm.__main__": 8, "dualsvm": 8,
}


def _layer(module):
    """The layer of a module: that of the longest prefix in LAYERS (the package itself
    only by its exact name, so that a new top-level module must be given a layer)."""
    matches = [prefix for prefix in LAYERS if module == prefix or
               (prefix != PACKAGE and module.startswith(prefix + "."))]
    return LAYERS[max(matches, key=len)] if matches else None


def test_every_module_has_a_layer_and_imports_only_its_own_and_lower_ones():
    graph, _ = _graph()
    assert [module for module in graph if _layer(module) is None] == []
    upward = [f"{module} (layer {_layer(module)}) imports {target} (layer {_layer(target)})"
              for module, targets in sorted(graph.items()) for target in sorted(targets)
              if _layer(target) > _layer(module)]
    assert upward == []


def test_the_layer_check_sees_an_upward_import():
    assert _layer("dualsvm.solvers.smo") == 4 and _layer("dualsvm.dask.cocoa") == 5
    assert _layer("dualsvm.dask.estimator") == 7 and _layer("dualsvm.new_module") is None
    assert _layer("dualsvm.estimators.svc") > _layer("dualsvm.training.kernel")


def test_no_import_cycle():
    graph, _ = _graph()
    assert len(graph) > 30  # the sources were found
    assert _cycles(graph) == []


def test_no_private_name_used_outside_its_module():
    _, private = _graph()
    assert private == []


def test_the_checks_see_a_cycle_and_a_private_import(tmp_path):
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from .solvers.dcd import _hidden, DualCD\n")
    modules = {"dualsvm.solvers.dcd": None}
    assert _imports("dualsvm.m", module, False, modules) == [
        ("dualsvm.solvers.dcd", ["_hidden", "DualCD"], 2)]
