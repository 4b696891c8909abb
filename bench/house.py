"""The house's figures: export cells, cells with output, long lines, module sizes, function lengths.

    python bench/house.py            # prints one table and the goals beside each figure

Read from the notebooks in nbs/ and the exported package; no imports of the package, so it runs anywhere.
"""
import ast, json, re, statistics as st
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOALS = dict(export_median_lines=12, export_median_defs=1.3, code_cells_with_output=0.25, long_lines=0.05,
             largest_module=800, median_function_lines=6, longest_function=40)

def notebooks(root:Path|None=None):
    "Every page: the notebooks in nbs/ and its stages' folders (not fixtures, not hidden files)."
    nbs = (root or ROOT)/"nbs"
    return sorted(p for p in nbs.rglob("*.ipynb") if (r := p.relative_to(nbs)).parts[0] != "fixtures"
                  and not any(x.startswith((".", "_")) for x in r.parts))
def cells(nb): return json.loads(nb.read_text())["cells"]
def src(c): return "".join(c["source"])
def is_export(c): return c["cell_type"] == "code" and re.match(r"\s*#\|\s*export", src(c)) is not None

def n_defs(code:str) -> int:
    "Top-level definitions in a cell: functions, classes and assigned names."
    try: tree = ast.parse(code)
    except SyntaxError: return 0
    return sum(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Assign, ast.AnnAssign))
               for n in tree.body)

def functions(pkg:Path|None=None) -> dict[str, int]:
    "Every function and method of the package (nested ones too), by `room.name`: its lines, def to end."
    pkg = pkg or ROOT/"ready_steady_go"
    out = {}
    for p in sorted(pkg.rglob("*.py")):
        if p.name == "_modidx.py": continue
        room = p.relative_to(pkg).with_suffix("").as_posix().replace("/", ".")
        for n in ast.walk(ast.parse(p.read_text())):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out[f"{room}.{n.name}@{n.lineno}"] = n.end_lineno - n.lineno + 1
    return out

def figures() -> dict:
    "Every figure the house is judged by, measured now."
    export = [c for nb in notebooks() for c in cells(nb) if is_export(c)]
    lines = [len([l for l in src(c).splitlines() if l.strip() and not l.lstrip().startswith("#|")]) for c in export]
    defs = [n_defs(src(c)) for c in export if n_defs(src(c))]
    code = [c for nb in notebooks() for c in cells(nb) if c["cell_type"] == "code"]
    pkg = ROOT/"ready_steady_go"
    files = [p for p in pkg.rglob("*.py") if p.name != "_modidx.py"]
    mods = {p.relative_to(pkg).as_posix(): len(p.read_text().splitlines()) for p in files if p.name != "__init__.py"}
    pylines = [l for p in files for l in p.read_text().splitlines()]
    return dict(export_cells=len(export), export_median_lines=st.median(lines), export_median_defs=st.median(defs),
                largest_export_cell=max(lines), code_cells=len(code),
                code_cells_with_output=sum(bool(c.get("outputs")) for c in code) / len(code),
                long_lines=sum(len(l) > 100 for l in pylines) / len(pylines), modules=len(mods),
                largest_module=max(mods.values()), largest_module_name=max(mods, key=mods.get),
                functions=len(fs := functions(pkg)), median_function_lines=st.median(fs.values()),
                longest_function=max(fs.values()))

if __name__ == "__main__":
    f = figures()
    for k, v in f.items():
        goal = GOALS.get(k)
        ok = "" if goal is None else ("  (goal ≥ %s)" % goal if k == "code_cells_with_output" else "  (goal ≤ %s)" % goal)
        print(f"{k:26} {v:.3g}{ok}" if isinstance(v, float) else f"{k:26} {v}{ok}")
    long = {k: n for k, n in functions().items() if n > GOALS["longest_function"]}
    for k, n in sorted(long.items(), key=lambda kv: -kv[1]): print(f"  over 40 lines: {k.split('@')[0]} {n}")
