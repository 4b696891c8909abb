"""Tidy the notebooks' cells mechanically: one definition per export cell, lines of 100 characters.

    python bench/tidy_cells.py --check               # figures now and after; writes nothing
    python bench/tidy_cells.py --check --keep DIR    # ... and keeps the tidied copy in DIR
    python bench/tidy_cells.py --write               # tidy every notebook in nbs/ in place, then nbdev-export
    python bench/tidy_cells.py --write --docstrings  # also split long one-line docstrings

What it does, and only this:
- An `#| export` / `#| exporti` cell with several top-level definitions becomes one cell per
  definition. Comments and decorators directly above a definition stay with it; assignments to
  attributes (`f.__signature__ = …`) stay with the definition above them; a run of imports and
  constants becomes a small cell of its own. Every new cell carries the cell's `#|` directives.
- A line over 100 characters is shortened by the first of these that keeps the cell's AST:
  a trailing comment moved onto its own line above, at the line's indent (never a docment: not in
  a signature, on a dataclass field or just above either; never `# noqa`); a one-line compound
  statement (`if x: y`) given its body on the next line; a break inside brackets after a comma or
  before `if`/`else`/`and`/`or`/`for`; a value, condition or import list put in parentheses to
  break inside them; a long string cut at a space into adjacent literals (never inside an
  f-string's `{…}`); a long comment wrapped into its paragraph.

Before anything is written, the whole tree is tidied in a temporary copy and exported; every
exported module's AST, and every function's and class's docstring and docments, are compared with
today's, and a second tidy of the copy must change nothing. Cells that do not parse as Python
(shell or magic lines) keep their lines.
"""
import argparse, ast, hashlib, io, json, re, shutil, subprocess, sys, tempfile, tokenize
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import house

ROOT = Path(__file__).resolve().parents[1]
WIDTH = 100
KEEP = re.compile(r"#\s*(noqa|type:|pragma|fmt:)")  # comments that act on their own line
OPEN, CLOSE = "([{", ")]}"

def src(c): return "".join(c["source"])
def lines_src(text): return text.splitlines(keepends=True)
def same_ast(a:str, b:str) -> bool:
    "Do two sources parse to the same tree (positions and comments ignored)?"
    try: return ast.dump(ast.parse(b)) == ast.dump(ast.parse(a))
    except SyntaxError: return False

def directives(text:str) -> tuple[list, list]:
    "The cell's leading `#|` lines and the rest."
    ls = text.splitlines()
    n = 0
    while n < len(ls) and ls[n].startswith("#|"): n += 1
    return ls[:n], ls[n:]

# --- where docments live: lines a comment must not leave
# ---------------------------------------------------------

def docment_lines(tree:ast.Module, ls:list) -> set:
    "Lines whose comments are docments: signatures, dataclass fields, the comment lines above."
    out = set()
    def above(row):
        while row > 1 and ls[row - 2].lstrip().startswith("#"): row -= 1; out.add(row)
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            # the signature's last line, not the comments below it
            end = max(n.body[0].lineno - 1, n.lineno)
            while end > n.lineno and (not ls[end - 1].strip()
                                      or ls[end - 1].lstrip().startswith("#")):
                end -= 1
            out.update(range(n.lineno, end + 1))
            above(n.lineno)
        if isinstance(n, ast.ClassDef):
            for b in n.body:
                if isinstance(b, ast.AnnAssign):
                    out.update(range(b.lineno, b.end_lineno + 1)); above(b.lineno)
    return out

# --- tokens with the brackets open around them
# ---------------------------------------------------------------------

def tokens(text:str) -> list:
    "Each token with the stack of brackets open before it: `(tok, [(char, row, col), …])`."
    out, stack = [], []
    for t in tokenize.generate_tokens(io.StringIO(text).readline):
        out.append((t, list(stack)))
        if t.type == tokenize.OP and t.string in OPEN: stack.append((t.string, *t.start))
        elif t.type == tokenize.OP and t.string in CLOSE and stack: stack.pop()
    return out

def on_line(toks, row): return [(t, s) for t, s in toks if t.start[0] == row and t.type not in
                                (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)]

def first_after(toks, row, col):
    "The first real token after position (row, col)."
    for t, _ in toks:
        if t.start > (row, col) and t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT):
            return t

# --- the ways to shorten one line; each returns the line's replacement lines or None
# ---------------------------------

def move_comment(ls, i, toks, doc):
    "A trailing comment onto its own line above, at the line's indent."
    row = i + 1
    line = ls[i].rstrip("\n")
    if row in doc: return None
    com = [t for t, _ in on_line(toks, row) if t.type == tokenize.COMMENT]
    if not com or not line[:com[0].start[1]].strip() or KEEP.match(com[0].string): return None
    ind = line[:len(line) - len(line.lstrip())]
    return [ind + com[0].string, line[:com[0].start[1]].rstrip()]

HEADS = {"if", "elif", "else", "for", "while", "with", "try", "except", "finally", "def", "class",
         "async"}

def split_compound(ls, i, toks, doc):
    "`if x: y` → `if x:` and `y` on the next line, one indent deeper."
    row = i + 1
    line = ls[i].rstrip("\n")
    lt = on_line(toks, row)
    if (not lt or lt[0][0].string not in HEADS or lt[0][1]
        or lt[0][0].start[1] != len(line) - len(line.lstrip())):
        return None
    for k, (t, st) in enumerate(lt):
        if t.type == tokenize.OP and t.string == ":" and not st:
            rest = [x for x, _ in lt[k + 1:]]
            if not rest or rest[0].type == tokenize.COMMENT or rest[0].start[0] != row: return None
            ind = line[:len(line) - len(line.lstrip())]
            com = [x for x in rest if x.type == tokenize.COMMENT]
            # a docment stays on the signature's line
            if lt[0][0].string in ("def", "async") and com:
                return [line[:t.end[1]] + "  " + com[0].string,
                        ind + "    " + line[rest[0].start[1]:com[0].start[1]].rstrip()]
            return [line[:t.end[1]], ind + "    " + line[rest[0].start[1]:]]
        if t.type == tokenize.OP and t.string == "lambda": return None
    return None

def _indent_for(toks, stack):
    "The column a continuation inside the innermost open bracket lines up with."
    _, r, c = stack[-1]
    nxt = first_after(toks, r, c)
    return nxt.start[1] if nxt is not None else c + 1

def _closes_last(after) -> bool:
    "Does the bracket a break sits in stay open to the line's end, or close among its last closers?"
    depth = 0
    for k, (t, _) in enumerate(after):
        if t.type != tokenize.OP: continue
        if t.string in OPEN: depth += 1
        elif t.string in CLOSE:
            if depth: depth -= 1
            else:
                return all(x.type == tokenize.COMMENT or x.type == tokenize.OP
                           and x.string in ")]},:;"
                             for x, _ in after[k + 1:])
    return True

KEYS = {"if", "else", "and", "or", "for"}

def break_inside(ls, i, toks, doc):
    "A break in brackets after a comma or before a `KEYS` word: the outermost filling half a line."
    row = i + 1
    line = ls[i].rstrip("\n")
    if row in doc and "#" in line: return None
    lt = on_line(toks, row)
    cands, lambdas = [], set()  # depths where a lambda's parameters are being read
    for k in range(1, len(lt)):
        (p, pst), (t, st) = lt[k - 1], lt[k]
        if p.type == tokenize.NAME and p.string == "lambda": lambdas.add(len(pst))
        if p.type == tokenize.OP and p.string == ":": lambdas.discard(len(pst))
        if p.type == tokenize.OP and p.string == "," and len(pst) in lambdas: continue
        if p.type == tokenize.OP and p.string == ",": st = lt[k - 1][1]
        elif not (t.type == tokenize.NAME and t.string in KEYS): continue
        if not st or p.end[1] > WIDTH or t.type == tokenize.COMMENT or (t.type == tokenize.OP
                                                                        and t.string in CLOSE):
            continue
        if t.type == tokenize.STRING and "\n" in t.string or not _closes_last(lt[k:]): continue
        cands.append((len(st), p.end[1], st, t))
    if not cands: return None
    full = [c for c in cands if c[1] >= WIDTH // 2]
    _, end, st, nxt = min(full, key=lambda c: (c[0], -c[1])) if full else max(cands,
                                                                              key=lambda c: c[1])
    ind = _indent_for(toks, st)
    if ind >= nxt.start[1]: return None  # would not shorten anything
    return [line[:end], " " * ind + line[nxt.start[1]:]]

def parenthesize(ls, i, toks, doc):
    "A value returned or assigned, a condition or imported names put in parentheses to break there."
    row = i + 1
    line = ls[i].rstrip("\n")
    lt = on_line(toks, row)
    if not lt or lt[0][1] or row in doc: return None
    nl = [t for t, _ in toks if t.type == tokenize.NEWLINE and t.start[0] == row]
    if not nl: return None
    code = [(t, st) for t, st in lt if t.type != tokenize.COMMENT]
    first = code[0][0].string
    if first in ("return", "if", "elif", "while"): k0 = 1
    elif first == "from" and any(t.string == "import" for t, _ in code):
        k0 = next(k for k, (t, _) in enumerate(code) if t.string == "import") + 1
    else:
        eq = [k for k, (t, st) in enumerate(code) if t.type == tokenize.OP and t.string == "="
              and not st]
        if not eq: return None
        k0 = eq[0] + 1
    k1 = len(code)
    if first in ("if", "elif", "while"):
        if code[-1][0].string != ":": return None
        k1 -= 1
    if k0 >= k1 or code[k0][0].string == "(" and code[k1 - 1][0].string == ")" and k1 - k0 > 1 and \
            not any(not st for t, st in code[k0 + 1:k1 - 1]): return None
    if first != "from" and not any(t.type == tokenize.NAME and t.string in KEYS and not st for t,
                                   st in code[k0:k1]):
        return None
    a, b = code[k0][0].start[1], code[k1 - 1][0].end[1]
    new = line[:a] + "(" + line[a:b] + ")" + line[b:]
    cand = ls[:i] + [new] + ls[i + 1:]
    text = "\n".join(cand)
    try: out = break_inside(cand, i, tokens(text), doc)
    except (tokenize.TokenError, SyntaxError): return None
    return out

def _literal_spaces(body:str, is_f:bool) -> list:
    "Offsets of spaces where a string's body may be cut: not in `{…}` fields or `\\N{…}`."
    out, depth, k, quote = [], 0, 0, None
    while k < len(body):
        ch = body[k]
        if depth == 0:
            if ch == "\\":
                if body[k + 1:k + 2] == "N" and body[k + 2:k + 3] == "{":
                    k = body.find("}", k) + 1 or len(body); continue
                k += 2; continue
            if is_f and ch in "{}":
                if body[k + 1:k + 2] == ch: k += 2; continue
                if ch == "{": depth = 1
                k += 1; continue
            if ch == " ": out.append(k)
        else:
            if quote:
                if ch == quote: quote = None
            elif ch in "'\"": quote = ch
            elif ch == "{": depth += 1
            elif ch == "}": depth -= 1
        k += 1
    return out

def split_string(ls, i, toks, doc, docstrings=False):
    "A long string cut at a space into adjacent literals (one value), in parentheses if need be."
    row = i + 1
    line = ls[i].rstrip("\n")
    for t, st in on_line(toks, row):
        if t.type != tokenize.STRING or t.end[1] <= WIDTH or t.start[0] != t.end[0]: continue
        m = re.match(r"([A-Za-z]*)('''|\"\"\"|'|\")", t.string)
        prefix, q = m.groups()
        if len(q) == 3 or "b" in prefix.lower() or t.start[1] > WIDTH - 30: continue
        body = t.string[len(prefix) + 1:-1]
        is_f = "f" in prefix.lower()
        wrap = not st
        if wrap and not docstrings and line.lstrip() == t.string: continue
        room = WIDTH - t.start[1] - len(prefix) - 2 - wrap
        cuts = [p for p in _literal_spaces(body, is_f) if p + 1 <= room and p + 1 < len(body)]
        if not cuts: continue
        p = cuts[-1] + 1
        one, two = body[:p], body[p:]
        pre2 = prefix
        if is_f and not re.search(r"[{}]", two): pre2 = prefix.replace("f", "").replace("F", "")
        pre1 = prefix
        if is_f and not re.search(r"[{}]", one): pre1 = prefix.replace("f", "").replace("F", "")
        c = t.start[1]
        head = line[:c] + ("(" if wrap else "") + pre1 + q + one + q
        tail = " " * (c + wrap) + pre2 + q + two + q + (")" if wrap else "") + line[t.end[1]:]
        return [head, tail]
    return None

def wrap_comment(ls, i, toks, doc):
    "A comment-only line cut at a space into two comment lines."
    line = ls[i].rstrip("\n")
    s = line.lstrip()
    if not s.startswith("#") or s.startswith("#|") or (i + 1) in doc or KEEP.match(s): return None
    lead = line[:len(line) - len(s)] + re.match(r"#+\s*", s).group()
    cut = line.rfind(" ", len(lead), WIDTH + 1)
    if cut <= len(lead): return None
    rest = line[cut + 1:].lstrip()
    nxt = ls[i + 1] if i + 1 < len(ls) else ""
    body = nxt[len(lead):]
    # the cut words join the comment's next line where it goes on the same paragraph
    if (nxt.startswith(lead) and body.strip() and not body.startswith((" ", "-", "*", "|"))
        and (i + 2) not in doc
            and re.match(r"#+\s*", nxt.lstrip()).group() == lead.lstrip()):
        return [line[:cut].rstrip(), lead + rest + " " + body, None]
    return [line[:cut].rstrip(), lead + rest]

def tidy_lines(text:str, docstrings=False) -> str:
    "Every line of a cell over `WIDTH` shortened where a way above keeps the cell's AST."
    try: tree = ast.parse(text)
    except SyntaxError: return text
    ls = text.split("\n")
    ways = [move_comment, split_compound, break_inside, parenthesize,
            lambda *a: split_string(*a, docstrings=docstrings),
            wrap_comment]
    i = 0
    while i < len(ls):
        if len(ls[i]) <= WIDTH or ls[i].startswith("#|"): i += 1; continue
        cur = "\n".join(ls)
        toks, doc = tokens(cur), docment_lines(ast.parse(cur), ls)
        for way in ways:
            new = way(ls, i, toks, doc)
            if new is None: continue
            cand = (ls[:i] + new + ls[i + 1:] if new[-1] is not None
                    else ls[:i] + new[:-1] + ls[i + 2:])
            if same_ast(text, "\n".join(cand)) and "\n".join(cand) != cur:
                ls = cand
                break
        else: i += 1
    return "\n".join(ls)

# --- one definition per export cell
# ----------------------------------------------------------------------------------

DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)

def _patches(n):
    "An assignment only to attributes (`f.__signature__ = …`): it goes with the definition above."
    if not isinstance(n, ast.Assign): return False
    tg = [e for t in n.targets for e in (t.elts if isinstance(t, ast.Tuple) else [t])]
    return all(isinstance(e, ast.Attribute) for e in tg)

def units(body:list) -> list:
    "The statements grouped: each definition (and the patches after it), runs of the rest."
    out = []
    for n in body:
        if isinstance(n, DEFS): out.append(("def", [n]))
        elif _patches(n) and out and out[-1][0] == "def": out[-1][1].append(n)
        elif out and out[-1][0] == "rest": out[-1][1].append(n)
        else: out.append(("rest", [n]))
    return out

def _start(n): return min([n.lineno] + [d.lineno for d in getattr(n, "decorator_list", [])])

def split_code(code:str) -> list:
    "An export cell's code (no directives) as one text per unit; `[code]` if it holds one unit."
    try: tree = ast.parse(code)
    except SyntaxError: return [code]
    us = units(tree.body)
    if len(us) < 2: return [code]
    ls = code.split("\n")
    bounds = [_start(u[0]) - 1 for _, u in us]
    # comments and blank lines above a unit go with it; indented comments just below a unit stay
    # with it
    for k in range(1, len(us)):
        end = us[k - 1][1][-1].end_lineno
        j = end
        while j < bounds[k] and ls[j].startswith((" ", "\t")) and ls[j].lstrip().startswith("#"):
            j += 1
        b = bounds[k]
        while b > j and (ls[b - 1].lstrip().startswith("#") or not ls[b - 1].strip()): b -= 1
        bounds[k] = b
    bounds[0], ends = 0, bounds[1:] + [len(ls)]
    return ["\n".join(ls[s:e]).strip("\n") for s, e in zip(bounds, ends)]

def is_export(c): return c["cell_type"] == "code" and re.match(r"#\|\s*export", src(c)) is not None

def as_source(text): return lines_src(text)

def tidy_cell(c:dict, docstrings=False) -> list:
    "One cell tidied: its lines shortened and, for an export cell, one cell per definition."
    if c["cell_type"] != "code": return [c]
    text = src(c)
    dirs, rest = directives(text)
    code = "\n".join(rest)
    new = tidy_lines(code, docstrings)
    if not is_export(c):
        if new == code: return [c]
        return [dict(c, source=as_source("\n".join(dirs + [new]) if dirs else new))]
    parts = split_code(new)
    head = [d for d in dirs if d.strip()]
    if len(parts) == 1:
        if new == code: return [c]
        return [dict(c, source=as_source("\n".join(head + [new])))]
    out = []
    for k, p in enumerate(parts):
        last = k == len(parts) - 1
        out.append(dict(cell_type="code", execution_count=c.get("execution_count") if last
                        else None,
                        id=c.get("id") if k == 0
                        else hashlib.sha1(f"{c.get('id')}:{k}".encode()).hexdigest()[:8],
                        metadata=dict(c.get("metadata", {})),
                        outputs=c.get("outputs", []) if last else [],
                        source=as_source("\n".join(head + [p]))))
    return out

def tidy_nb(path:Path, docstrings=False) -> bool:
    "Tidy one notebook in place; did it change?"
    nb = json.loads(path.read_text())
    cells = [n for c in nb["cells"] for n in tidy_cell(c, docstrings)]
    if cells == nb["cells"]: return False
    nb["cells"] = cells
    path.write_text(json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False) + "\n")
    return True

# --- the whole tree, checked in a copy before anything is written
# ------------------------------------------------

def copy_tree(root:Path, to:Path) -> Path:
    "The files nbdev-export needs, copied."
    to.mkdir(parents=True)
    for name in ("pyproject.toml", "settings.ini", "setup.py"):
        if (root/name).exists(): shutil.copy(root/name, to/name)
    shutil.copytree(root/"nbs", to/"nbs")
    shutil.copytree(root/"ready_steady_go", to/"ready_steady_go")
    return to

def export(root:Path):
    subprocess.run(["nbdev-export"], cwd=root, check=True, capture_output=True)

def modules(root:Path) -> dict:
    pkg = root/"ready_steady_go"
    return {p.relative_to(pkg).as_posix(): p.read_text() for p in sorted(pkg.rglob("*.py"))
            if p.name != "_modidx.py"}

def compare(before:dict, after:dict) -> list:
    "Modules whose AST differs (or that appear or vanish)."
    return sorted(n for n in set(before) | set(after) if n not in before or n not in after
                  or not same_ast(before[n], after[n]))

DOCS = """
import importlib, inspect, json, sys
from pathlib import Path
from fastcore.docments import docments
sys.path.insert(0, sys.argv[1])
out = {}
pkg = Path(sys.argv[1], "ready_steady_go")
for p in sorted(pkg.rglob("*.py")):
    if p.stem.startswith("_"): continue
    m = importlib.import_module(".".join(("ready_steady_go", *p.relative_to(pkg).with_suffix("").parts)))
    for k, o in vars(m).items():
        mine = getattr(o, "__module__", "") == m.__name__
        if (inspect.isfunction(o) or inspect.isclass(o)) and mine:
            try: d = docments(o, full=False)
            except Exception as e: d = type(e).__name__
            out[f"{p.stem}.{k}"] = [o.__doc__, d]
print(json.dumps(out, default=str))
"""

def docs(root:Path) -> dict:
    "Every function's and class's docstring and docments, as the package in `root` gives them."
    r = subprocess.run([sys.executable, "-c", DOCS, str(root)], cwd=root, check=True,
                       capture_output=True, text=True)
    return json.loads(r.stdout.splitlines()[-1])

QUIET = ("test", "assert_", "close", "join", "start", "mkdir", "write_text", "unlink", "rmtree")

def shows(c:dict) -> bool:
    "Will a code cell show output once run: it has some, prints, displays or ends in an expression?"
    s = src(c)
    if c.get("outputs"): return True
    if re.search(r"^#\|\s*(export|exporti|hide|eval:\s*false)", s, re.M): return False
    if re.search(r"\b(print|display)\(", s) or re.search(r"^\s*!", s, re.M): return True
    try: body = ast.parse(s).body
    except SyntaxError: return False
    if not body or not isinstance(body[-1], ast.Expr): return False
    f = getattr(body[-1].value, "func", None)
    name = getattr(f, "id", None) or getattr(f, "attr", "")
    return not name.startswith(QUIET)

def figures_of(root:Path) -> dict:
    "`house.figures` of the tree in `root`, and the share of code cells that will show output."
    old = house.ROOT
    house.ROOT = root
    try: f = house.figures()
    finally: house.ROOT = old
    code = [c for p in house.notebooks(root) for c in house.cells(p)
            if c["cell_type"] == "code"]
    return f | dict(code_cells_showing_once_run=sum(map(shows, code)) / len(code))

def tidy_tree(root:Path, docstrings=False) -> list:
    return [p.relative_to(root/"nbs").as_posix() for p in house.notebooks(root) if tidy_nb(p, docstrings)]

def show(before:dict, after:dict):
    for k, v in before.items():
        f = lambda x: f"{x:.3g}" if isinstance(x, float) else str(x)
        goal = house.GOALS.get(k)
        print(f"{k:26} {f(v):>8} → {f(after[k]):>8}" + ("" if goal is None
                                                        else f"   (goal {goal})"))

def selftest():
    "The cases each way must get right, on small cells."
    long = "x" * 60
    # a trailing comment goes above, at the line's indent; a docment stays where docments reads it
    code = f"def f(a, # {long} {long}\n      b=1):\n    y = g(a)  # {long} {long}\n    return y"
    t = tidy_lines(code).splitlines()
    assert t[0] == code.splitlines()[0] and t[2:5] == [f"    # {long}", f"    # {long}", "    y = g(a)"], t
    # an f-string is cut at a space outside its fields, into one value
    code = f'raise ValueError(f"{{a!r}} is {long} not {{\', \'.join(b)}} accepted are {long}")'
    t = tidy_lines(code)
    assert same_ast(code, t) and all(len(l) <= WIDTH for l in t.splitlines()), t
    assert "{', '.join(b)}" in t
    # a one-line `if` gets its body below; a long condition breaks inside added parentheses
    code = f"if {long} and {long[:30]}: return 1"
    t = tidy_lines(code)
    assert same_ast(code, t) and t.splitlines()[1].strip() == "return 1", t
    # one definition per cell: comments and decorators stay above it, patches below it
    code = "import os\nX = 1\n\n# the first\n@dataclass\nclass A: pass\nA.b = 2\n\ndef f(): pass"
    assert split_code(code) == ["import os\nX = 1",
                                "# the first\n@dataclass\nclass A: pass\nA.b = 2",
                                "def f(): pass"], split_code(code)
    # never between a lambda's parameters
    code = f"xs = sorted(({long[:40]}, {long[:40]}), key=lambda a, b: a)"
    assert "lambda a, b: a" in tidy_lines(code), tidy_lines(code)
    # cells that are not Python keep their lines
    assert tidy_lines("!ls " + long * 2) == "!ls " + long * 2
    print("selftest: ok")

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--check", action="store_true",
                   help="print the figures now and after a tidy; write nothing")
    g.add_argument("--write", action="store_true", help="tidy every notebook in nbs/ in place and export")
    g.add_argument("--selftest", action="store_true", help="check the ways on small cells")
    ap.add_argument("--docstrings", action="store_true", help="also split long one-line docstrings")
    ap.add_argument("--root", type=Path, default=ROOT, help="the project's folder")
    ap.add_argument("--keep", type=Path,
                    help="with --check: leave the tidied, exported copy in this new folder")
    a = ap.parse_args()
    if a.selftest: return selftest()
    root = a.root.resolve()
    with tempfile.TemporaryDirectory() as d:
        base = copy_tree(root, Path(d)/"base")
        export(base)
        before = figures_of(base)
        work = copy_tree(base, Path(d)/"work")
        changed = tidy_tree(work, a.docstrings)
        export(work)
        bad = compare(modules(base), modules(work))
        was, now = docs(base), docs(work)
        bad += sorted(k for k in set(was) | set(now) if was.get(k) != now.get(k))
        after = figures_of(work)
        again = tidy_tree(work, a.docstrings)
        show(before, after)
        print(f"notebooks changed: {len(changed)}; modules whose AST differs, or docs: "
              f"{bad or 'none'}; "
              f"a second tidy changes: {again or 'nothing'}")
        if a.keep: shutil.copytree(work, a.keep)
        if bad or again: sys.exit(1)
        if a.write:
            for n in changed: shutil.copy(work/"nbs"/n, root/"nbs"/n)
            export(root)
            subprocess.run(["nbdev-clean"], cwd=root, check=True, capture_output=True)
            print(f"wrote {len(changed)} notebooks ({', '.join(changed)}), exported and cleaned")

if __name__ == "__main__": main()
