#!/usr/bin/env python3
"""The GPU acceptance run: the first minutes on any GPU machine, turned into checked, stored, compared numbers.

    python bench/gpu_acceptance.py --plan --for h100   # the plan, call by call, each item's seconds, nothing run
    python bench/gpu_acceptance.py                     # one call: the next items not done yet, within --budget

The plan is in calls of at most `--budget` seconds (480: a call fits in a 10-minute command with the start). The first
call covers what changed since the last GPU run: GPT-2 generating as a server does (bf16 weights, each token to the
host), the same compiled with `reduce-overhead` (a static KV cache, CUDA graphs), ResNet-50 fp16 in Lambda's setting as
NVIDIA's script runs it (their batch size, a GradScaler that syncs every step), a one-process torchrun run (NCCL), and
the notebooks' `#| gpu` cells (those cells only, on their pages' code and imports). The next call resumes the rest: the
health check, ResNet-50 (compiled, a fixed loss scale without the per-step sync, fused, bf16, channels_last, tf32 at
Lambda's fp32 batch, inference), GPT-2 (bf16 and fp16 training, inference), ViT-B/16 and the 3D U-Net. Each point runs
twice (`run_number` 1 and 2), at least 5 s timed. Each item's real time is kept in `results/<device>-acceptance-
times.json`, and the plan uses it in place of its estimate from then on.

Every point is measured under the device's lock with the store's journal, as a sweep measures, and stored as it
finishes (the project's SQLite store, its point identity): a rerun skips what is stored, so an interrupted call loses
nothing and the next call goes on where the last stopped. At the end it writes `results/<device>-acceptance.csv` and a markdown summary
comparing each point with the newest earlier snapshot of the same GPU model (`results/<device>-*.csv`) and ResNet-50
with Lambda's published row for that GPU (`nbs/fixtures/published/lambda-v2-resnet50.csv`), with intervals, flagging
anything more than 5% off. Needs no W&B. Bad input: one line on stderr, exit status 2, nothing written.

On a GPU machine whose python3 lacks fastcore, MONAI or nbdev, carry them as wheels: `bench/gpu_wheels.sh` fetches
them into `.whl/`; there, `python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl` and
`export PYTHONPATH=/tmp/site` first.
"""
from __future__ import annotations
import argparse, json, math, os, re, shutil, signal, subprocess, sys, time
from dataclasses import dataclass, field, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the checkout's library, installed or not (the GPU machine has only a copy)
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))  # torchrun's ranks
from ready_steady_go.schema import Point  # torch-free: `--plan` imports no torch
from ready_steady_go.env import BadInput

LAMBDA = ROOT / "nbs/fixtures/published/lambda-v2-resnet50.csv"
RESULTS = ROOT / "results"
OFF = 0.05  # a point further than this from its reference is flagged
# Lambda's ResNet-50 settings (their logs, `shared/published/README.md`): batch per GPU for fp16 (AMP, fixed loss scale
# 256) and for "fp32" (TF32), on one GPU
LAMBDA_BS = dict(h200=dict(fp16=2560, tf32=1280), h100=dict(fp16=1280, tf32=640))
LOSS_SCALE = 256
# the peak table's row (`measure.peaks`) of the parts Lambda's rows are of: the SXM ones, nothing else
KEYS = {"H100 SXM": "h100", "H200": "h200"}
BUDGET = 480.0  # seconds one call may take: a 10-minute command, less the start and the summary
FIXED_BS = dict(resnet50=256, gpt2=64, vit_base_patch16_224=128, unet3d=2)  # when no snapshot has the model
# seconds one run costs beside its timed seconds (build, cuDNN's search, warm-up; compile's first graph), by GPU kind:
# estimates until a measured acceptance run replaces them (its summary gives the real time beside each)
OVERHEAD = dict(gpu=dict(image=6, lm=5, unet3d=6, compile=55, compile_again=20, torchrun=15, health=70, warmup=15,
                         cells=15, lambda_bs=12, generate=8),
                cpu=dict(image=1, lm=1, unet3d=2, compile=30, compile_again=10, torchrun=8, health=0, warmup=1,
                         cells=5, lambda_bs=0, generate=1))
# a notebook's `#| gpu` cells, their own seconds on an H100 or H200 (estimates until measured), beside the page's set-up
CELL_SECONDS = {"measure/02_benchmark.ipynb": 70, "measure/04c_runner.ipynb": 40, "measure/05_sweep.ipynb": 60,
                "measure/05aa_check.ipynb": 40}


@dataclass
class Item:
    "One line of the plan: a point run twice, the health check, a device warm-up, or a notebook's `#| gpu` cells."
    name:str                    # what it is, as the summary names it
    kind:str                    # point, health, warmup or cells
    expected_s:float            # seconds it should take, both runs together
    point:Point|None=None       # the point (kind point)
    torchrun:bool=False         # run under torchrun (one process)
    lambda_precision:str|None=None  # compared with Lambda's ResNet-50 row at this precision
    # kind cells: (page from nbs/, (ids of its `#| gpu` cells)) pairs, e.g. ("measure/02_benchmark.ipynb", ("5c48…",))
    cells:tuple=()
    measured:bool=False         # `expected_s` is the real time of an earlier run of it


def die(msg:str):
    "A bad input: one line, exit status 2, nothing written."
    print(f"gpu_acceptance: {msg}", file=sys.stderr); sys.exit(2)


def _slug(s:str) -> str: return re.sub(r"[^a-z0-9]+", "-", s.lower().replace("nvidia", "")).strip("-") or "gpu"


def device_key(name:str) -> str:
    """The GPU model's short name from the name CUDA reports, by its row in the peak table: `h100` and `h200` for the
    SXM parts Lambda measured, the row's slug for the others (`h100-pcie`, `h200-nvl`), else the name's slug."""
    from ready_steady_go.measure.peaks import peak_row
    row = peak_row(name)
    return KEYS.get(row) or _slug(row or name)


def snapshots(dev:str, folder:Path=RESULTS, exclude:Path|None=None):
    "Every earlier snapshot of GPU model `dev` (`<folder>/<dev>-*.csv`), as one table (None: none)."
    import pandas as pd
    files = [f for f in sorted(folder.glob(f"{dev}-*.csv")) if exclude is None or f.resolve() != exclude.resolve()]
    frames = [pd.read_csv(f).assign(snapshot=f.name) for f in files]
    return pd.concat(frames, ignore_index=True) if frames else None


def best_bs(snap, model:str, fallback:int) -> int:
    "The batch size of the fastest ok fp16 training row of `model` in the snapshot, else `fallback`."
    if snap is None: return fallback
    r = snap[(snap.model == model) & (snap.precision == "fp16") & (snap["mode"] == "train") & (snap.status == "ok")]
    return int(r.loc[r.throughput.idxmax(), "bs"]) if len(r) else fallback


def _point(model, bs, precision, mode="train", seconds=5.0, **kw) -> Point:
    return Point.of(model=model, bs=bs, precision=precision, mode=mode, n_seconds=seconds, **kw)


def gpu_plan(dev:str, seconds:float=5.0) -> list[Item]:
    "The plan for a GPU of model `dev` (h100, h200, or another): what changed since the last GPU run first."
    snap, o = snapshots(dev), OVERHEAD["gpu"]
    rn, gpt, unet = best_bs(snap, "resnet50", 256), best_bs(snap, "gpt2", 64), best_bs(snap, "unet3d", 2)
    lam = LAMBDA_BS.get(dev, dict(fp16=rn, tf32=rn))  # another GPU: the snapshot's batch (no Lambda row to compare)
    known = lambda said: said if dev in LAMBDA_BS else ""
    vit = best_bs(snap, "vit_base_patch16_224", FIXED_BS["vit_base_patch16_224"])
    run = lambda fam, extra=0: 2 * (o[fam] + seconds) + extra
    big = o["lambda_bs"] if dev in LAMBDA_BS else 0  # Lambda's batch: cuDNN's first-step search at 1,280-2,560 images
    compiled = 2 * seconds + o["compile"] + o["compile_again"]
    P = lambda *a, **kw: _point(*a, seconds=seconds, **kw)
    G = lambda **kw: P("gpt2", 8, "bf16", "generate", weights="bf16", prompt_len=512, gen_len=128, **kw)
    first = [
        Item("device warm-up", "warmup", o["warmup"]),
        Item("gpt2 generate bf16 weights, 8 sequences, 512 + 128 tokens", "point", run("lm", 2 * o["generate"]), G()),
        Item("gpt2 generate bf16 weights, 8 sequences, 512 + 128 tokens, compiled (reduce-overhead)", "point",
             compiled + 2 * o["generate"], G(compile=True, compile_mode="reduce-overhead")),
        Item(f"resnet50 bf16 bs {rn} torchrun, one process (NCCL)", "point", run("torchrun"),
             P("resnet50", rn, "bf16"), torchrun=True),
        *cell_items(o["cells"])]
    rest = [
        Item(f"resnet50 fp16 bs {lam['fp16']} GradScaler" + known(" (Lambda's setting, as NVIDIA's script runs it)"),
             "point", run("image", big), P("resnet50", lam["fp16"], "fp16"), lambda_precision="fp16"),
        Item(f"gpt2 bf16 bs {gpt} compiled fused (--fast)", "point", compiled,
             P("gpt2", gpt, "bf16", compile=True, fused=True)),
        Item(f"gpt2 fp8 bs {gpt} compiled fused (tensorwise)", "point", compiled,
             P("gpt2", gpt, "fp8", compile=True, fused=True, fp8_recipe="tensorwise")),
        Item("health check", "health", o["health"]),
        Item(f"resnet50 bf16 bs {rn} compiled", "point", compiled, P("resnet50", rn, "bf16", compile=True)),
        Item(f"resnet50 fp16 bs {lam['fp16']} loss scale {LOSS_SCALE} (fixed: no per-step sync)", "point",
             run("image", big), P("resnet50", lam["fp16"], "fp16", loss_scale=LOSS_SCALE), lambda_precision="fp16"),
        Item(f"resnet50 fp16 bs {lam['fp16']} loss scale {LOSS_SCALE} fused", "point", run("image", big),
             P("resnet50", lam["fp16"], "fp16", loss_scale=LOSS_SCALE, fused=True), lambda_precision="fp16"),
        Item(f"resnet50 fp16 bs {rn} (GradScaler)", "point", run("image"), P("resnet50", rn, "fp16")),
        Item(f"resnet50 bf16 bs {rn}", "point", run("image"), P("resnet50", rn, "bf16")),
        Item(f"resnet50 bf16 bs {rn} channels_last", "point", run("image"),
             P("resnet50", rn, "bf16", channels_last=True)),
        Item(f"resnet50 tf32 bs {lam['tf32']}" + known(" (Lambda's fp32 batch)"), "point", run("image", big),
             P("resnet50", lam["tf32"], "tf32"), lambda_precision="fp32-default"),
        Item(f"resnet50 bf16 bs {rn} infer", "point", run("image"), P("resnet50", rn, "bf16", "infer")),
        Item(f"gpt2 bf16 bs {gpt}", "point", run("lm"), P("gpt2", gpt, "bf16")),
        Item(f"gpt2 fp16 bs {gpt}", "point", run("lm"), P("gpt2", gpt, "fp16")),
        Item(f"gpt2 bf16 bs {gpt} infer", "point", run("lm"), P("gpt2", gpt, "bf16", "infer")),
        Item(f"vit_base_patch16_224 bf16 bs {vit}", "point", run("image"), P("vit_base_patch16_224", vit, "bf16")),
        Item(f"unet3d bf16 bs {unet} channels_last_3d", "point", run("unet3d"),
             P("unet3d", unet, "bf16", channels_last=True))]
    return with_times([*first, *rest], times_file(dev))


def cell_items(setup:float) -> list[Item]:
    "One item: every notebook's `#| gpu` cells, by id, in one child process; seconds: its start and the cells'."
    found = gpu_cells()
    if not found: return []
    n = sum(map(len, found.values()))
    return [Item(f"#| gpu cells ({n} in {len(found)} notebooks)", "cells",
                 setup + sum(CELL_SECONDS.get(nb, 5) for nb in found),
                 cells=tuple((nb, tuple(ids)) for nb, ids in found.items()))]


def times_file(dev:str, folder:Path=RESULTS) -> Path:
    "Where the real time of each item of `dev`'s plan is kept: `<folder>/<dev>-acceptance-times.json`."
    return folder / f"{dev}-acceptance-times.json"


def with_times(items:list[Item], f:Path) -> list[Item]:
    "`items` with each one's real time from an earlier run (`f`) in place of its estimate, where there is one."
    seen = json.loads(f.read_text()) if f.exists() else {}
    return [replace(it, expected_s=float(seen[it.name]), measured=True) if it.name in seen else it for it in items]


def cpu_plan(seconds:float=0.3) -> list[Item]:
    "The tiny plan a CPU runs for real (CI exercises the same code): test models, two points run twice."
    o = OVERHEAD["cpu"]
    P = lambda *a, **kw: _point(*a, seconds=seconds, warmup=1, **kw)
    run = lambda fam: 2 * (o[fam] + seconds)
    return [Item(f"test-gpt2 fp16 bs 2 loss scale {LOSS_SCALE} fused", "point", run("lm"),
                 P("test-gpt2", 2, "fp16", seq_len=32, loss_scale=LOSS_SCALE, fused=True), lambda_precision="fp16"),
            Item("test_resnet bf16 bs 2 infer", "point", run("image"), P("test_resnet", 2, "bf16", "infer", size=16)),
            Item("test-gpt2 generate bf16 weights, 2 sequences, 16 + 4 tokens", "point", run("generate"),
                 P("test-gpt2", 2, "bf16", "generate", weights="bf16", prompt_len=16, gen_len=4))]


def gpu_cells(root:Path=ROOT / "nbs") -> dict[str, list[str]]:
    "The `#| gpu` cells of every notebook under `root`, by the notebook's path from it (`measure/02_benchmark.ipynb`)."
    out = {}
    for f in sorted(root.rglob("*.ipynb")):
        if "#| gpu" not in f.read_text(): continue
        ids = [c["id"] for c in json.loads(f.read_text())["cells"] if c["cell_type"] == "code" and _gpu(c)]
        if ids: out[f.relative_to(root).as_posix()] = ids
    return out


def _source(cell) -> str: return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _gpu(cell) -> bool:
    "Whether a cell carries the `gpu` flag (`#| gpu` among its leading directives)."
    for line in _source(cell).splitlines():
        if not line.startswith("#|"): return False
        if line[2:].split() == ["gpu"]: return True
    return False


def calls(items:list[Item], budget:float) -> list[list[Item]]:
    "The plan in calls of at most `budget` seconds each, in order (an item longer than `budget` is a call alone)."
    out, total = [[]], 0.0
    for it in items:
        if out[-1] and total + it.expected_s > budget: out.append([]); total = 0.0
        out[-1].append(it); total += it.expected_s
    return out


def plan_text(parts:list[list[Item]], budget:float) -> str:
    "The plan as printed: call by call, each item with its seconds (measured, or estimated), and the total."
    lines, i = [], 0
    for c, part in enumerate(parts, 1):
        lines.append(f"call {c}: {sum(it.expected_s for it in part):.0f} s")
        for it in part:
            i += 1
            lines.append(f"{i:3d}. {it.name}: {it.expected_s:.0f} s" + (" measured" if it.measured else "")
                         + (" (each point twice)" if it.kind == "point" else "")
                         + (f" ({', '.join(nb for nb, _ in it.cells)})" if it.kind == "cells" else ""))
    total = sum(it.expected_s for part in parts for it in part)
    return "\n".join(lines + [f"estimated: {total:.0f} s in all, {len(parts)} call(s) of at most {budget:.0f} s"])


# ------------------------------------------------------------------ running


def _stored(store:Path, env_id:str) -> set:
    from ready_steady_go.measure.plan import stored_points
    return set(stored_points(store, env_id)) if store.exists() else set()


def _key(p:Point, torchrun:bool) -> tuple:
    "The store's identity of point `p` (its run number included), from its record as the engine writes it."
    from ready_steady_go.measure.benchmark import check_point
    from ready_steady_go.measure.runner import record_of
    from ready_steady_go.measure.plan import point_key
    return point_key(record_of(check_point(p), "torchrun" if torchrun else "inline").row())


def run_point(it:Item, dev, fp:dict, store:Path, done:set, say) -> list[dict]:
    """Both runs of a point under the device's lock, each in the store's journal while it runs and stored as it
    finishes (skipped where the store has it), as a sweep measures: their rows."""
    from ready_steady_go.measure.benchmark import check_point
    from ready_steady_go.measure.runner import record_of
    from ready_steady_go.measure.session import DeviceSession
    rows, how = [], "torchrun" if it.torchrun else "inline"
    with DeviceSession(store, dev) as session:
        for n in (1, 2):
            p = replace(it.point, device=str(dev), run_number=n)
            if _key(p, it.torchrun) in done: say(f"  run {n}: stored already"); continue
            with session.measuring(record_of(check_point(p), how).row(fp)):
                rows.append(_run_stored(p, it, n, fp, store, say))
    return rows


def _run_stored(p:Point, it:Item, n:int, fp:dict, store:Path, say) -> dict:
    "Run `n` of item `it`'s point, stored as it finishes; its row."
    from ready_steady_go.measure.runner import run
    from ready_steady_go.keep.store import save_runs
    t0 = time.monotonic()
    r = run(p, "torchrun" if it.torchrun else None)
    r.runtime_s = time.monotonic() - t0
    row = r.row(fp)
    if kept := save_runs(row, store): say(f"  {kept}")
    tp = f"{r.throughput:,.1f} {r.unit}/s ± {100 * (r.ci_rel or 0):.1f}%" if r.status == "ok" else r.error
    say(f"  run {n}: {r.status}: {tp} ({r.runtime_s:.0f} s; conditions {r.conditions})")
    return row


def run_health(dev, store:Path, say) -> str:
    "The health check (shorter sustained load), its lines stored; skipped when the store has a check of this GPU."
    from ready_steady_go.measure.check import run_check
    from ready_steady_go.keep.side_tables import read_checks
    from ready_steady_go.measure.health import check_table_text
    if store.exists() and len(read_checks(store)): return "stored already"
    table, kept = run_check(dev, folder=store.parent, store=store, seconds=10, disk_bytes=2**28)
    if kept: say(f"  {kept}")
    say(check_table_text(table))
    return f"{(table.verdict == 'ok').sum()} of {len(table)} lines ok"


def _marker(out:Path, nb:str) -> Path: return out / f".cells-{nb.replace('/', '-')}.done"


def run_cells(it:Item, out:Path, timeout:float) -> str:
    """The item's notebooks' named `#| gpu` cells in one child process (`--cells`), ended past `timeout` seconds;
    those that passed are not run again. The outcome."""
    todo = [(nb, ids) for nb, ids in it.cells if not _marker(out, nb).exists()]
    if not todo: return "passed already"
    ok, text = _child([sys.executable, str(Path(__file__).resolve()), "--cells",
                       *(f"{nb}:{','.join(ids)}" for nb, ids in todo)], timeout)
    for line in text.splitlines():
        if line.startswith("passed "): _marker(out, line.split()[1].rstrip(":")).write_text("ok\n")
    failed = [l for l in text.splitlines() if l.startswith("failed ")]
    return (f"passed: {len(todo)} notebooks" if ok else "failed: " + ("; ".join(failed) or text.splitlines()[-1]))


def _child(cmd:list, timeout:float) -> tuple[bool, str]:
    "Run `cmd` in a process group of its own, ended whole past `timeout` s: (exit status 0, its output)."
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT,
                         start_new_session=True)
    try: text, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL); p.communicate()
        return False, f"timed out after {timeout:.0f} s"
    return p.returncode == 0, (text or "").strip() or "(no output)"


def _setup(src:str) -> bool:
    "Whether a cell is what a page's flagged cells build on: its code (`#| export`), or hidden imports and names."
    import ast
    first = (src.splitlines() or [""])[0].strip()
    if first in ("#| export", "#| exporti"): return True
    if first != "#| hide" or "nbdev_export" in src: return False
    try: body = ast.parse(src).body
    except SyntaxError: return False
    return all(isinstance(n, (ast.Import, ast.ImportFrom, ast.Assign)) for n in body)


def cells_main(specs:list[str]) -> int:
    "Each `NOTEBOOK:ID,ID` of `specs` (`run_notebook_cells`), one after the other; exit status 1 if any failed."
    bad = 0
    for spec in specs:
        nb, _, ids = spec.rpartition(":")
        if not nb or not ids: die(f"--cells {spec!r}: accepted is NOTEBOOK:ID[,ID…], a notebook under nbs/")
        bad += not run_notebook_cells(nb, ids.split(","))
    return int(bad > 0)


def run_notebook_cells(nb:str, ids:list[str]) -> bool:
    "Run notebook `nb`'s code and set-up (`_setup`), then only its cells `ids`; say which ran, or which failed."
    from fastcore.nbio import read_nb
    from execnb.shell import CaptureShell
    from fastcore.xtras import working_directory
    path = ROOT / "nbs" / nb
    if not path.is_file(): die(f"--cells {nb!r}: no such notebook under nbs/")
    book = read_nb(path)
    if miss := sorted(set(ids) - {c.id for c in book.cells}): die(f"--cells: no cell {miss[0]!r} in {nb}")
    want, ran = set(ids), []
    skip = lambda c: c.cell_type != "code" or not (c.id in want or _setup(c.source))
    os.environ["IN_TEST"] = "1"
    with working_directory(path.parent):
        try: CaptureShell(path).run_all(book, exc_stop=True, preproc=skip, postproc=lambda c: ran.append(c.id))
        except Exception as e:
            print(f"failed {nb}: cell {ran[-1] if ran else '?'}: {type(e).__name__}: {str(e)[:200]}", flush=True)
            return False
    print(f"passed {nb}: ran {' '.join(r for r in ran if r in ids)}", flush=True)
    return True


# ------------------------------------------------------------------ comparing


def _u(rows) -> float:
    "Relative uncertainty of the mean of a point's runs: their CIs, or the runs' own spread when that is wider."
    tp, ci = rows.throughput.astype(float), rows.ci_rel.astype(float).fillna(0)
    spread = (tp.max() - tp.min()) / (tp.max() + tp.min()) if len(tp) > 1 else 0.0
    return max(math.sqrt((ci ** 2).mean()), spread)


def _same(df, p:Point, torchrun:bool):
    "Rows of `df` measuring `p`'s settings (model, batch, precision, mode, layout, compile, optimizer, scale, world)."
    import pandas as pd
    col = lambda k, default: df[k] if k in df else pd.Series(default, index=df.index)
    flag = lambda k, v: col(k, False).astype(str).str.lower().isin(["true", "1", "1.0"]) == bool(v)
    ws, ls = col("world_size", 0).fillna(0).astype(float), col("loss_scale", None).astype(float)
    m = ((df.model == p.model) & (df.bs == (p.bs or 0)) & (df.precision == p.precision) & (df["mode"] == p.mode)
         & flag("channels_last", p.channels_last) & flag("compile", p.compile) & flag("fused", p.fused)
         & (df.status == "ok") & ((ws == 1) if torchrun else (ws <= 1))
         & (ls.isna() if p.loss_scale is None else ls.eq(float(p.loss_scale))))
    return df[m]


def _ratio(ours:float, u:float, ref:float, u_ref:float) -> tuple:
    "Ours / reference, its 95% interval, and whether it is more than `OFF` away from 1."
    r, w = ours / ref, math.sqrt(u ** 2 + u_ref ** 2)
    return r, (r * (1 - w), r * (1 + w)), abs(r - 1) > OFF


def compare(items:list[Item], ran:dict, dev:str, snap) -> list[dict]:
    "One line per point: its two runs, the mean with its interval, the previous snapshot's and Lambda's, flags."
    import pandas as pd
    lam = pd.read_csv(LAMBDA)
    out = []
    for it in items:
        if it.kind != "point": continue
        rows = ran.get(it.name)
        line = dict(point=it.name, runs="", ours="", previous="", vs_previous="", lambda_="", vs_lambda="", flag="")
        if rows is None or not len(rows) or not (ok := rows[rows.status == "ok"]).shape[0]:
            why = ("; ".join(sorted(set(rows.status + ": " + rows.error.fillna(""))))
                   if rows is not None and len(rows) else "not run")
            out.append(dict(line, runs=why)); continue
        mean, u = ok.throughput.mean(), _u(ok)
        unit = ok.unit.iloc[0]
        line.update(runs=", ".join(f"{t:,.0f}" for t in ok.throughput), ours=f"{mean:,.1f} ± {100 * u:.1f}% {unit}/s",
                    conditions="; ".join(sorted(set(ok.conditions.fillna("")) - {"ok", ""})) or "ok")
        flags = []
        prev = _same(snap, it.point, it.torchrun) if snap is not None else None
        if prev is not None and len(prev):
            last = prev[prev.timestamp == prev.timestamp.max()]
            pm, pu = last.throughput.mean(), _u(last)
            r, (lo, hi), off = _ratio(mean, u, pm, pu)
            line.update(previous=f"{pm:,.1f} ± {100 * pu:.1f}% ({last.snapshot.iloc[0]})",
                        vs_previous=f"{r:.3f} [{lo:.3f}, {hi:.3f}]")
            if off: flags.append(f"{100 * (r - 1):+.1f}% vs previous")
        else: line["previous"] = "no earlier point"
        if it.lambda_precision:
            ref = lam[(lam.gpu == dev) & (lam.precision == it.lambda_precision)]
            if len(ref):
                lm = ref.resnet50.median()
                lu = (ref.resnet50.max() - ref.resnet50.min()) / 2 / lm  # the fleet's spread, where there are many
                r, (lo, hi), off = _ratio(mean, u, lm, lu)
                line.update(lambda_=f"{lm:,.0f}" + (f" (median of {len(ref)}, {ref.resnet50.min():,.0f}–"
                                                    f"{ref.resnet50.max():,.0f})" if len(ref) > 1 else "")
                            + f" at bs {int(ref.bs.iloc[0])}", vs_lambda=f"{r:.3f} [{lo:.3f}, {hi:.3f}]")
                if off: flags.append(f"{100 * (r - 1):+.1f}% vs Lambda")
            else: line["lambda_"] = f"no Lambda row for {dev}"
        line["flag"] = "; ".join(flags)
        out.append(line)
    return out


def summary_md(dev:str, name:str, lines:list[dict], timing:list[tuple], estimated:float, real:float,
               notes:list[str], dropped:list[Item]) -> str:
    "The markdown summary: the points against their references, then each item's real time beside its estimate."
    head = ["| point | runs | mean ± 95% | conditions | previous snapshot | ratio [95%] | Lambda | ratio [95%] | flag |",
            "|---|---|---|---|---|---|---|---|---|"]
    rows = [f"| {l['point']} | {l['runs']} | {l['ours']} | {l.get('conditions', '')} | {l['previous']} | "
            f"{l['vs_previous']} | {l['lambda_']} | {l['vs_lambda']} | {('**' + l['flag'] + '**') if l['flag'] else ''} |"
            for l in lines]
    t = ["| item | estimated s | real s | outcome |", "|---|---|---|---|"]
    t += [f"| {n} | {e:.0f} | {r:.0f} | {o} |" for n, e, r, o in timing]
    flagged = [l for l in lines if l["flag"]]
    return "\n".join([
        f"# Acceptance run: {name} ({dev})", "",
        f"Real time {real:.0f} s against the plan's estimate of {estimated:.0f} s. Each point ran twice; its mean "
        "carries the wider of the runs' 95% intervals and their own spread. A point more than "
        f"{100 * OFF:.0f}% from the previous snapshot of this GPU model, or ResNet-50 from Lambda's published row, is "
        f"flagged ({len(flagged)} flagged).", "", *head, *rows, "", "## Time", "", *t,
        *([""] + [f"Left for the next call (the same command): {', '.join(it.name for it in dropped)}"]
          if dropped else []),
        *(["", "## Notes", ""] + [f"- {n}" for n in notes] if notes else []), ""])


def health_md(store:Path) -> str:
    "The newest health check kept in `store`, as a section of the summary (empty without one)."
    from ready_steady_go.keep.side_tables import read_checks
    from ready_steady_go.measure.health import check_table_text
    checks = read_checks(store) if store.exists() else None
    if checks is None or not len(checks): return ""
    last = checks[checks.check_id == checks.sort_values("timestamp").check_id.iloc[-1]]
    return "\n".join(["", "## Health check", "", f"{last.timestamp.iloc[0]}, {last.device_name.iloc[0]}:", "",
                      "```", check_table_text(last.reset_index(drop=True)), "```", ""])


# ------------------------------------------------------------------ main


def parse(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--plan", action="store_true", help="print the plan and its estimated seconds; run nothing")
    ap.add_argument("--for", dest="for_", default=None,
                    help="the GPU model to plan for: h100, h200, cpu, or another's short name (default: the device here)")
    ap.add_argument("--budget", type=float, default=BUDGET,
                    help=f"seconds one call may take (default {BUDGET:.0f}); the next call goes on where it stopped")
    ap.add_argument("--seconds", type=float, default=None, help="timed seconds per run (default 5 on a GPU, 0.3 on a CPU)")
    ap.add_argument("--store", default=None, help="the SQLite store (default: results/<device>-acceptance.db)")
    ap.add_argument("--out", default=str(RESULTS), help="folder of the CSV and the summary (default: results/)")
    ap.add_argument("--snapshots", default=str(RESULTS),
                    help="folder of the earlier snapshots, <device>-*.csv, compared with (default: results/)")
    a = ap.parse_args(argv)
    if not (math.isfinite(a.budget) and a.budget > 0):
        die(f"--budget {a.budget:g}: accepted is a positive number of seconds")
    if a.seconds is not None and not (math.isfinite(a.seconds) and a.seconds > 0):
        die(f"--seconds {a.seconds:g}: accepted is a positive number of seconds, e.g. 5")
    if a.for_ is not None and not re.fullmatch(r"[a-z0-9][a-z0-9-]*", a.for_):
        die(f"--for {a.for_!r}: accepted is h100, h200, cpu or another GPU model's short name (lower case)")
    for k in ("out", "snapshots"):
        if not Path(getattr(a, k)).is_dir(): die(f"--{k} {getattr(a, k)!r} is not an existing folder")
    return a


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["--cells"]:  # the child `run_cells` starts
        if len(argv) < 2: die("--cells NOTEBOOK:ID[,ID…] …: notebooks under nbs/ and the ids of their cells to run")
        return cells_main(argv[1:])
    a, t0 = parse(argv), time.monotonic()
    if a.plan and a.for_:  # no device needed: no torch imported
        dev_key, name = a.for_, a.for_
    else:
        import torch
        gpu = torch.cuda.is_available()
        name = torch.cuda.get_device_name(0) if gpu else "CPU"
        dev_key = device_key(name) if gpu else "cpu"
        if a.for_ and a.for_ != dev_key: die(f"--for {a.for_} without --plan: this machine's device is {dev_key}")
    cpu = dev_key == "cpu"
    seconds = a.seconds or (0.3 if cpu else 5.0)
    items = cpu_plan(seconds) if cpu else gpu_plan(dev_key, seconds)
    print(plan_text(calls(items, a.budget), a.budget), flush=True)
    if a.plan: return 0
    return execute(a, dev_key, name, items, t0)


def _done(it:Item, dev, done:set, out:Path, store:Path) -> bool:
    "Whether an earlier call did item `it`: both runs of its point stored, its cells passed, a health check stored."
    if it.kind == "point":
        return all(_key(replace(it.point, device=str(dev), run_number=n), it.torchrun) in done for n in (1, 2))
    if it.kind == "cells": return all(_marker(out, nb).exists() for nb, _ in it.cells)
    if it.kind == "health":
        from ready_steady_go.keep.side_tables import read_checks
        return store.exists() and len(read_checks(store)) > 0
    return False


def _item(it:Item, dev, fp:dict, store:Path, done:set, out:Path, say) -> str:
    "Do one item of the plan; its outcome in words."
    from ready_steady_go.measure.calibrate import warm_up_device
    if it.kind == "warmup":
        w = warm_up_device(dev, 15 if dev.type == "cuda" else 1)
        return "steady" if w and w["steady"] else "not steady within its cap"
    if it.kind == "health": return run_health(dev, store, say)
    if it.kind == "cells": return run_cells(it, out, max(120.0, 3 * it.expected_s))
    run_point(it, dev, fp, store, done, say)
    return "stored"


def keep_times(f:Path, timing:list[tuple]):
    "The real seconds of each item that ran (not one found done, nor one that failed) into `f`, beside earlier ones."
    seen = json.loads(f.read_text()) if f.exists() else {}
    seen.update({n: round(r, 1) for n, _, r, o in timing if not o.endswith("already") and not o.startswith("failed")})
    f.write_text(json.dumps(seen, indent=1, sort_keys=True) + "\n")


def execute(a, dev_key:str, name:str, items:list[Item], t0:float) -> int:
    """One call: the plan's items not done yet, in order, each stored as it finishes, until the budget ends (the rest
    is left for the next call); the CSV, the summary and the items' real times written."""
    import pandas as pd
    from ready_steady_go.measure.device import fingerprint, pick_device
    from ready_steady_go.keep.store import read_runs
    from ready_steady_go.keep.rows import export_csv
    out = Path(a.out)
    csv, md = out / f"{dev_key}-acceptance.csv", out / f"{dev_key}-acceptance.md"
    snap = snapshots(dev_key, Path(a.snapshots), exclude=csv)  # read before this run's CSV replaces the last one
    if csv.exists():  # the last acceptance run is the previous snapshot too
        old = pd.read_csv(csv).assign(snapshot=csv.name + " (before this run)")
        snap = old if snap is None else pd.concat([snap, old], ignore_index=True)
    store = Path(a.store) if a.store else out / f"{dev_key}-acceptance.db"
    dev = pick_device("cuda" if dev_key != "cpu" else "cpu")
    fp = fingerprint(dev)
    done = _stored(store, fp["env_id"])
    say = lambda m: print(m, flush=True)
    timing, ran, notes, dropped = [], {}, [], []
    for it in items:
        if it.kind != "warmup" and _done(it, dev, done, out, store):
            timing.append((it.name, it.expected_s, 0.0, "done already")); continue
        left = a.budget - (time.monotonic() - t0)
        if it.expected_s > left:  # what no longer fits waits for the next call; a later, shorter item may still run
            dropped.append(it); notes.append(f"left for the next call: {it.name} ({it.expected_s:.0f} s expected, "
                                             f"{left:.0f} s of this call's budget left)")
            continue
        say(f"[{time.monotonic() - t0:5.0f} s] {it.name} (expected {it.expected_s:.0f} s)")
        s0 = time.monotonic()
        try: outcome = _item(it, dev, fp, store, done, out, say)
        except Exception as e:  # one item's failure is said and kept; the others still run
            outcome = f"failed: {type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
        say(f"  {outcome}")
        timing.append((it.name, it.expected_s, time.monotonic() - s0, outcome))
    keep_times(times_file(dev_key, out), timing)
    kept = [it for it in items if it not in dropped]
    runs = read_runs(store, env_id=fp["env_id"]) if store.exists() else pd.DataFrame()
    for it in kept:
        if it.kind == "point" and len(runs):
            ran[it.name] = _same_run(runs, it, str(dev))
    if snap is not None and len(runs): snap = snap[~snap.run_id.isin(runs.run_id)]  # a resumed run's own rows: not earlier
    n = export_csv(store, csv, env_id=fp["env_id"]) if store.exists() else 0
    real = time.monotonic() - t0
    lines = compare(kept, ran, dev_key, snap)
    estimated = sum(e for _, e, _, o in timing if o != "done already")
    text = summary_md(dev_key, name, lines, timing, estimated, real, notes, dropped)
    md.write_text(text + health_md(store))
    print(f"{n} runs in {csv}; summary in {md}; real time {real:.0f} s")
    return 0


def _same_run(runs, it:Item, dev:str):
    "This store's rows of item `it`'s point, any status."
    p = it.point
    m = ((runs.model == p.model) & (runs.bs == p.bs) & (runs.precision == p.precision) & (runs["mode"] == p.mode)
         & (runs.device == dev))
    rows = runs[m]
    ok = _same(rows, p, it.torchrun)
    bad = rows[rows.status != "ok"]
    if len(bad):  # failed runs of exactly this point (same settings, any status)
        bad = _same(bad.assign(status="ok"), p, it.torchrun).assign(status=bad.status)
    return pd_concat(ok, bad)


def pd_concat(a, b):
    import pandas as pd
    return pd.concat([a, b], ignore_index=True)


if __name__ == "__main__":
    try: sys.exit(main())
    except BadInput as e: die(str(e))
