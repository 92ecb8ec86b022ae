"""python/safespec.pyi against the module: the stub names exactly the
module's public functions, each with the binding's parameter names in order,
and every function has a docstring. A function added, renamed or given a new
parameter without its stub fails here."""
import ast
import re
from pathlib import Path

import safespec

STUB = Path(__file__).resolve().parents[1] / "safespec.pyi"


def stub_functions():
    """{name: [parameter names]} of the stub's top-level functions (the last
    definition of an overloaded one, which carries every parameter)."""
    out = {}
    for node in ast.parse(STUB.read_text()).body:
        if isinstance(node, ast.FunctionDef):
            a = node.args
            out[node.name] = [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs]
    return out


def module_functions():
    return sorted(n for n in dir(safespec)
                  if not n.startswith("_") and callable(getattr(safespec, n)) and not isinstance(getattr(safespec, n), type))


def stub_classes():
    """{name: [base names]} of the stub's top-level classes."""
    return {node.name: [ast.unparse(b) for b in node.bases]
            for node in ast.parse(STUB.read_text()).body if isinstance(node, ast.ClassDef)}


def test_the_stub_names_exactly_the_error_classes_with_their_bases():
    module = {n: [b.__name__ for b in getattr(safespec, n).__bases__] for n in dir(safespec)
              if isinstance(getattr(safespec, n), type)}
    assert stub_classes() == module


def binding_parameters(fn):
    """The parameter names of pybind11's signature line, `name(a: T, *, b: T = ...) -> R`."""
    line = fn.__doc__.splitlines()[0]
    inside = line[line.index("(") + 1:line.rindex(") ->")]
    depth, names, current = 0, [], ""
    for ch in inside + ",":
        depth += ch in "[(" and 1 or ch in "])" and -1 or 0
        if ch == "," and depth == 0:
            m = re.match(r"\s*(\w+)", current)
            if m and current.strip() != "*":
                names.append(m.group(1))
            current = ""
        else:
            current += ch
    return names


def test_the_stub_names_exactly_the_public_functions():
    assert sorted(stub_functions()) == module_functions()


def test_the_stub_has_the_binding_s_parameters():
    for name, params in stub_functions().items():
        assert params == binding_parameters(getattr(safespec, name)), name


def test_every_function_and_the_module_have_docstrings():
    assert safespec.__doc__
    for name in module_functions():
        # pybind11's docstring is the signature line, a blank line, then ours.
        assert len(getattr(safespec, name).__doc__.strip().splitlines()) >= 3, name
