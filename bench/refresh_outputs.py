"""Regenerate the saved outputs of the site's pages from the current code, and say which are stale.

    python bench/refresh_outputs.py                      # every page, one after the other
    python bench/refresh_outputs.py --workers 2          # two pages at a time
    python bench/refresh_outputs.py --only 05_sweep 09_cli   # pages by file name, in whichever folder
    python bench/refresh_outputs.py --stale              # only the pages whose outputs are older than their code
    python bench/refresh_outputs.py --check              # say which pages are stale; change nothing (exit 1 if any)

Each page runs as `nbdev-test` runs it (the same cells skipped: `#| gpu`, `#| eval: false`, …), in a copy
beside the notebook, so that relative paths resolve as they do there. When every cell has run, the fresh
outputs replace the saved ones (a skipped cell keeps what it had, so a GPU cell's recorded output stays),
progress bars and terminal colours are taken out, and `nbs/outputs.json` records, for that page, a hash of
each module it documents. A page that fails keeps its old outputs and its old record.

A page documents the module(s) it exports (`#| default_exp`, `#| export NAME`); a page that exports
nothing documents the modules it imports, and the command line (`cli`) if it runs a console script.
The hash is of the module's code (its tokens), so a comment, a blank line or a notebook cell number does
not change it, and it is the same on every Python version. `stale_pages` is the check that `10_site` runs in CI.
"""
from __future__ import annotations

import argparse, hashlib, io, json, os, re, shutil, sys, time, tokenize
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NBS, PKG = ROOT / "nbs", ROOT / "ready_steady_go"
RECORD = "outputs.json"

# Strings the code printed once and prints no more: a saved output that holds one was made by older code.
# When a message changes, put its old wording here (the check also fails if the code still prints it).
RETIRED = [
    "status -9",                # a killed child is stored as `killed`
    "clock below 90% of max",   # the verdict says: below 80% of boost
    ": no such page)",          # the site page's sidebar listing names pages that exist
    "ready_steady_go 0.1.0",    # --help ends with the scripts' own text, not fastcore's version line
]

ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][A-Za-z0-9]")
BAR = re.compile(r"^.*\d+%\|.*\|.*$")  # a tqdm bar:  37%|███▋      | 37/100 [00:01<00:02, ...]


def _src(c): return "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
def _cells(nb, kind="code"): return [c for c in nb["cells"] if c["cell_type"] == kind]
def _read(path): return json.loads(Path(path).read_text())


def documented(nb: dict) -> list[str]:
    "The modules of `ready_steady_go` whose output a page shows: its exports, else its imports and console scripts."
    code = [_src(c) for c in _cells(nb)]
    exp = {m for s in code for m in re.findall(r"^#\|\s*(?:default_exp|export)\s+([\w.]+)\s*$", s, re.M)}
    if exp: return sorted(exp)
    mods = set()
    for s in code:
        mods |= set(re.findall(r"^\s*from\s+ready_steady_go\.([\w.]+)\s+import", s, re.M))
        mods |= set(re.findall(r"^\s*import\s+ready_steady_go\.([\w.]+)", s, re.M))
        if re.search(r"^\s*!\s*ready-steady-go", s, re.M): mods.add("cli")
    return sorted(mods)


def module_file(mod: str, pkg: Path = PKG) -> Path | None:
    "The file of module `mod` (`report`, `show.tables`), or None when there is no such module."
    base = pkg.joinpath(*mod.split("."))
    for f in (base.with_suffix(".py"), base / "__init__.py"):
        if f.exists(): return f
    return None


_FSTART = {getattr(tokenize, n) for n in ("FSTRING_START", "TSTRING_START") if hasattr(tokenize, n)}  # Python 3.12+
_FEND = {getattr(tokenize, n) for n in ("FSTRING_END", "TSTRING_END") if hasattr(tokenize, n)}


def code_tokens(src: str) -> list[str]:
    "`src`'s tokens without comments and blank lines, an f-string as one token (as Python before 3.12 has it)."
    lines = src.splitlines(keepends=True)
    at = [0]
    for l in lines: at.append(at[-1] + len(l))
    pos = lambda rc: at[rc[0] - 1] + rc[1]
    out, depth, start = [], 0, 0
    for t in tokenize.generate_tokens(io.StringIO(src).readline):
        if t.type in _FSTART:
            depth += 1; start = pos(t.start) if depth == 1 else start; continue
        if t.type in _FEND:
            depth -= 1
            if depth == 0: out.append(src[start:pos(t.end)])
            continue
        if depth or t.type in (tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER): continue
        out.append({tokenize.NEWLINE: "\n", tokenize.INDENT: "<indent>", tokenize.DEDENT: "<dedent>"}.get(t.type, t.string))
    return out


def code_hash(f: Path) -> str:
    "A hash of a module's code that comments, blank lines and cell markers leave alone, the same on every Python."
    return hashlib.sha256("\x00".join(code_tokens(f.read_text())).encode()).hexdigest()[:16]


def hashes(nb: dict, pkg: Path = PKG) -> dict:
    "Each module the page documents, with the hash of its code now (None: no such module)."
    return {m: (code_hash(f) if (f := module_file(m, pkg)) else None) for m in documented(nb)}


def output_text(o: dict) -> str:
    if "text" in o: return _src({"source": o["text"]})
    d = o.get("data", {})
    return "".join(_src({"source": d[k]}) for k in ("text/plain", "text/markdown", "text/html") if k in d) + \
        ("\n".join(o.get("traceback", [])) if o.get("output_type") == "error" else "")


def _pages(nbs: Path = NBS):
    "The site's pages: every notebook under `nbs`, in its stage's folder or at the top (not fixtures, not hidden)."
    return sorted(p for p in nbs.rglob("*.ipynb") if (r := p.relative_to(nbs)).parts[0] != "fixtures"
                  and not any(x.startswith((".", "_")) for x in r.parts))
def page_name(p: Path, nbs: Path = NBS) -> str: return p.relative_to(nbs).as_posix()  # `measure/05_sweep.ipynb`
def has_outputs(nb: dict) -> bool: return any(c.get("outputs") for c in _cells(nb))


def problems(name: str, nb: dict, record: dict, pkg: Path = PKG, retired=RETIRED) -> list[str]:
    "What makes the saved outputs of page `name` stale; empty when they are current."
    out, now, was = [], hashes(nb, pkg), record.get(name)
    if not now: pass  # a page of prose and checks documents no module: only its outputs' text is checked
    elif was is None: out.append("outputs never recorded by bench/refresh_outputs.py")
    else:
        old = was.get("modules", {})
        if sorted(old) != sorted(now):
            out.append(f"documents {', '.join(sorted(now)) or 'no module'} now, recorded for {', '.join(sorted(old)) or 'none'}")
        out += [f"{m} changed since its outputs were made" for m in sorted(now) if m in old and old[m] != now[m]]
    out += [f"module {m} does not exist" for m, h in now.items() if h is None]
    for i, c in enumerate(_cells(nb)):
        for o in c.get("outputs", []):
            t = output_text(o)
            out += [f"code cell {i} prints {s!r}, which the code no longer prints" for s in retired if s in t]
            if ANSI.search(t) or re.search("\r(?!\n)", t) or any(BAR.match(l) for l in t.splitlines()):
                out.append(f"code cell {i} holds a progress bar or terminal escapes")
    return list(dict.fromkeys(out))


def stale_pages(nbs: Path = NBS, pkg: Path = PKG, retired=RETIRED):
    "`(stale, skipped)`: `{page: [reasons]}` for pages whose outputs are older than their code; pages with no output."
    record = _read(nbs / RECORD) if (nbs / RECORD).exists() else {}
    stale, skipped = {}, []
    for p in _pages(nbs):
        nb = _read(p)
        if not has_outputs(nb): skipped.append(page_name(p, nbs)); continue
        if r := problems(page_name(p, nbs), nb, record, pkg, retired): stale[page_name(p, nbs)] = r
    return stale, skipped


def retired_still_printed(pkg: Path = PKG, retired=RETIRED) -> list[str]:
    "The strings of `RETIRED` that the code still holds (a list that must stay empty)."
    src = "\n".join(f.read_text() for f in pkg.rglob("*.py"))
    return [s for s in retired if s in src]


def clean_text(t: str) -> str:
    "An output as a reader should see it: no terminal escapes, no progress bars, the last state of a `\\r` line."
    t = ANSI.sub("", t)
    lines = [l.rsplit("\r", 1)[-1] if "\r" in l.rstrip("\r") else l.rstrip("\r") for l in t.split("\n")]
    return "\n".join(l for l in lines if not BAR.match(l))


def clean_outputs(outs: list) -> list:
    res = []
    for o in outs:
        o = dict(o)
        if "text" in o:
            o["text"] = clean_text(_src({"source": o["text"]}))
            if not o["text"].strip(): continue
        res.append(o)
    return res


def _flags():
    import tomllib
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["nbdev"].get("tst_flags", "").split()


def execute(path: str) -> tuple[str, float, str | None]:
    "Run page `path` in a copy beside it; on success put the copy's outputs into the page. `(name, seconds, error)`."
    # progress bars stay on (pages test them); `clean_outputs` takes them out of what is saved
    for k, v in {"NO_COLOR": "1", "TERM": "dumb", "HF_HUB_DISABLE_PROGRESS_BARS": "1",
                 "WANDB_SILENT": "true", "COLUMNS": "100"}.items(): os.environ[k] = v
    import multiprocessing
    multiprocessing.set_start_method("fork", force=True)  # as under nbdev-test: a page's DataLoader workers fork
    src = Path(path)
    tmp = src.with_name(f".{src.name}.refresh-{os.getpid()}")  # not *.ipynb: no glob of pages finds it
    t0 = time.time()
    shutil.copy(src, tmp)
    try:
        import io, contextlib, tempfile
        from nbdev.test import test_nb
        err, real = io.StringIO(), sys.__stderr__
        sys.__stderr__ = err  # where test_nb writes a failed cell's traceback
        try:
            with contextlib.redirect_stdout(io.StringIO()): ok, _ = test_nb(tmp, skip_flags=_flags(), save=True)
        finally: sys.__stderr__ = real
        if not ok:
            log = Path(tempfile.gettempdir()) / f"refresh-{src.stem}.log"
            log.write_text(err.getvalue())
            tb = err.getvalue().splitlines()
            cell = next((m[1] for l in tb if (m := re.search(r"Executing Cell #(\d+)", l))), "?")
            exc = [l for l in tb if re.match(r"^([\w.]+\.)?[A-Z]\w*(Error|Exception|Interrupt|Expired|Exit)\b", l)]
            return page_name(src), time.time() - t0, f"cell #{cell}: {(exc or ['a cell failed'])[-1][:120]} (traceback: {log})"
        new, nb = _read(tmp), _read(src)
        fresh = _cells(new)
        if len(fresh) != len(_cells(nb)): return page_name(src), time.time() - t0, "the page changed while it ran"
        for c, f in zip(_cells(nb), fresh): c["outputs"] = clean_outputs(f.get("outputs", []))
        src.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
        from nbdev.clean import nbdev_clean
        nbdev_clean(fname=str(src))
        return page_name(src), time.time() - t0, None
    except Exception as e:
        return page_name(src), time.time() - t0, f"{type(e).__name__}: {e}"[:200]
    finally: tmp.unlink(missing_ok=True)


def _record(name: str, nbs: Path = NBS):
    "Note in `outputs.json` that page `name`'s outputs were made by the code as it is now."
    import fcntl
    f = nbs / RECORD
    with open(nbs / f".{RECORD}.lock", "w") as lock:  # two refreshes at once each keep the other's lines
        fcntl.flock(lock, fcntl.LOCK_EX)
        rec = _read(f) if f.exists() else {}
        rec[name] = {"modules": hashes(_read(nbs / name))}
        f.write_text(json.dumps(dict(sorted(rec.items())), indent=1) + "\n")


def _pick(only, stale_only):
    pages = [page_name(p) for p in _pages()]
    if only:
        # a page by its file name, with or without `.ipynb` and its folder: 05_sweep, nbs/measure/05_sweep.ipynb
        by_name = {Path(p).name: p for p in pages}
        names = [Path(o).name if o.endswith(".ipynb") else f"{Path(o).name}.ipynb" for o in only]
        bad = [n for n in names if n not in by_name]
        if bad:
            print(f"--only: no page {', '.join(bad)} in {NBS}; pages are notebooks such as {Path(pages[0]).name}",
                  file=sys.stderr)
            sys.exit(2)
        pages = [by_name[n] for n in names]
    if stale_only:
        st, skipped = stale_pages()
        pages = [p for p in pages if p in st]
    return pages


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="+", metavar="NOTEBOOK", help="these pages, by file name in any folder (05_sweep or nbs/measure/05_sweep.ipynb)")
    ap.add_argument("--stale", action="store_true", help="only the pages whose outputs are stale or missing")
    ap.add_argument("--check", action="store_true", help="print what is stale and exit 1 if anything is; run nothing")
    ap.add_argument("--workers", type=int, default=1, help="pages run at a time (default 1)")
    a = ap.parse_args(argv)
    if a.workers < 1: print(f"--workers {a.workers}: give 1 or more", file=sys.stderr); sys.exit(2)
    if a.check:
        st, skipped = stale_pages()
        for p in sorted(st): print(f"stale    {p}: {'; '.join(st[p])}")
        for p in skipped: print(f"no output {p}: nothing saved to check")
        bad = retired_still_printed()
        for s in bad: print(f"RETIRED lists {s!r}, which the code still prints: take it out of the list")
        print(f"{len(st)} stale, {len(skipped)} without outputs")
        sys.exit(1 if st or bad else 0)
    pages = _pick(a.only, a.stale)
    if not pages: print("nothing to refresh"); return
    print(f"refreshing {len(pages)} page(s) with {a.workers} worker(s)", flush=True)
    failed = 0
    # a page that checks the others' outputs (10_site) runs after they are refreshed
    last = [p for p in pages if "refresh_outputs" in (NBS / p).read_text()]
    with ProcessPoolExecutor(a.workers, max_tasks_per_child=1) as ex:
        for wave in ([p for p in pages if p not in last], last):
            for fut in as_completed([ex.submit(execute, str(NBS / p)) for p in wave]):
                name, secs, err = fut.result()
                if err: failed += 1; print(f"FAILED   {name:34} {secs:5.0f} s  {err}; its old outputs are kept", flush=True)
                else:
                    _record(name)
                    mods = ", ".join(documented(_read(NBS / name))) or "no module"
                    print(f"ok       {name:34} {secs:5.0f} s  documents {mods}", flush=True)
    print(f"{len(pages) - failed} refreshed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__": main()
