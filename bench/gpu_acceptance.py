#!/usr/bin/env python3
"""The GPU acceptance run: the first minutes on any GPU machine, turned into checked, stored, compared numbers.

    python bench/gpu_acceptance.py --plan --for h100   # the plan, each point's expected seconds, nothing run
    python bench/gpu_acceptance.py                     # run it on the device here (a CPU runs a tiny plan)

The plan is in priority order and cut where `--budget` seconds (5 minutes) end: the health check; ResNet-50 training
(fp16 in Lambda's setting: their batch size and a fixed loss scale; the same with a fused optimizer; fp16 at the last
snapshot's batch size; bf16; bf16 channels_last; tf32 at Lambda's fp32 batch size; bf16 compiled; bf16 inference);
GPT-2 (bf16 and fp16 training, bf16 inference); ViT-B/16 and the 3D U-Net; a one-process torchrun run (NCCL); the
notebooks' `#| gpu` cells when time is left. Each point runs twice (`run_number` 1 and 2), at least 5 s timed.

Every point is stored as it finishes (the project's SQLite store, its point identity): a rerun skips what is stored,
so an interrupted call loses nothing. At the end it writes `results/<device>-acceptance.csv` and a markdown summary
comparing each point with the newest earlier snapshot of the same GPU model (`results/<device>-*.csv`) and ResNet-50
with Lambda's published row for that GPU (`nbs/fixtures/published/lambda-v2-resnet50.csv`), with intervals, flagging
anything more than 5% off. Needs no W&B. Bad input: one line on stderr, exit status 2, nothing written.

On a GPU machine whose python3 lacks fastcore, MONAI or nbdev, carry them as wheels: `bench/gpu_wheels.sh` fetches
them into `.whl/`; there, `python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl` and
`export PYTHONPATH=/tmp/site` first.
"""
from __future__ import annotations
import argparse, json, math, os, re, shutil, subprocess, sys, time
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
FIXED_BS = dict(resnet50=256, gpt2=64, vit_base_patch16_224=128, unet3d=2)  # when no snapshot has the model
# seconds one run costs beside its timed seconds (build, cuDNN's search, warm-up; compile's first graph), by GPU kind:
# estimates until a measured acceptance run replaces them (its summary gives the real time beside each)
OVERHEAD = dict(gpu=dict(image=6, lm=5, unet3d=6, compile=55, compile_again=20, torchrun=15, health=70, warmup=15,
                         cells=90),
                cpu=dict(image=1, lm=1, unet3d=2, compile=30, compile_again=10, torchrun=8, health=0, warmup=1,
                         cells=0))


@dataclass
class Item:
    "One line of the plan: a point run twice, the health check, a device warm-up, or a notebook's `#| gpu` cells."
    name:str                    # what it is, as the summary names it
    kind:str                    # point, health, warmup or cells
    expected_s:float            # seconds it should take, both runs together
    point:Point|None=None       # the point (kind point)
    torchrun:bool=False         # run under torchrun (one process)
    lambda_precision:str|None=None  # compared with Lambda's ResNet-50 row at this precision
    notebook:str|None=None      # kind cells


def die(msg:str):
    "A bad input: one line, exit status 2, nothing written."
    print(f"gpu_acceptance: {msg}", file=sys.stderr); sys.exit(2)


def device_key(name:str) -> str:
    "The GPU model's short name from the name CUDA reports: `h100`, `h200`, else a slug (`cpu` for a CPU)."
    n = name.lower()
    for k in ("h200", "h100", "a100", "l40s", "l4"):
        if re.search(rf"\b{k}\b", n): return k
    return re.sub(r"[^a-z0-9]+", "-", n.replace("nvidia", "")).strip("-") or "gpu"


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
    "The plan for a GPU of model `dev` (h100, h200, or another), in priority order, uncut."
    snap, o = snapshots(dev), OVERHEAD["gpu"]
    rn, gpt, unet = best_bs(snap, "resnet50", 256), best_bs(snap, "gpt2", 64), best_bs(snap, "unet3d", 2)
    lam = LAMBDA_BS.get(dev, dict(fp16=rn, tf32=rn))  # another GPU: the snapshot's batch (no Lambda row to compare)
    known = lambda said: said if dev in LAMBDA_BS else ""
    vit = best_bs(snap, "vit_base_patch16_224", FIXED_BS["vit_base_patch16_224"])
    run = lambda fam, extra=0: 2 * (o[fam] + seconds) + extra
    P = lambda *a, **kw: _point(*a, seconds=seconds, **kw)
    items = [Item("device warm-up", "warmup", o["warmup"]), Item("health check", "health", o["health"])]
    items += [
        Item(f"resnet50 fp16 bs {lam['fp16']} loss scale {LOSS_SCALE}" + known(" (Lambda's setting)"), "point",
             run("image", 4),
             P("resnet50", lam["fp16"], "fp16", loss_scale=LOSS_SCALE), lambda_precision="fp16"),
        Item(f"resnet50 fp16 bs {lam['fp16']} loss scale {LOSS_SCALE} fused", "point", run("image", 4),
             P("resnet50", lam["fp16"], "fp16", loss_scale=LOSS_SCALE, fused=True), lambda_precision="fp16"),
        Item(f"resnet50 fp16 bs {rn} (GradScaler)", "point", run("image"), P("resnet50", rn, "fp16")),
        Item(f"resnet50 bf16 bs {rn}", "point", run("image"), P("resnet50", rn, "bf16")),
        Item(f"resnet50 bf16 bs {rn} channels_last", "point", run("image"),
             P("resnet50", rn, "bf16", channels_last=True)),
        Item(f"resnet50 tf32 bs {lam['tf32']}" + known(" (Lambda's fp32 batch)"), "point", run("image", 4),
             P("resnet50", lam["tf32"], "tf32"), lambda_precision="fp32-default"),
        Item(f"resnet50 bf16 bs {rn} compiled", "point", 2 * seconds + o["compile"] + o["compile_again"],
             P("resnet50", rn, "bf16", compile=True)),
        Item(f"resnet50 bf16 bs {rn} infer", "point", run("image"), P("resnet50", rn, "bf16", "infer")),
        Item(f"gpt2 bf16 bs {gpt}", "point", run("lm"), P("gpt2", gpt, "bf16")),
        Item(f"gpt2 fp16 bs {gpt}", "point", run("lm"), P("gpt2", gpt, "fp16")),
        Item(f"gpt2 bf16 bs {gpt} infer", "point", run("lm"), P("gpt2", gpt, "bf16", "infer")),
        Item(f"vit_base_patch16_224 bf16 bs {vit}", "point", run("image"), P("vit_base_patch16_224", vit, "bf16")),
        Item(f"unet3d bf16 bs {unet} channels_last_3d", "point", run("unet3d"),
             P("unet3d", unet, "bf16", channels_last=True)),
        Item(f"resnet50 bf16 bs {rn} torchrun, one process (NCCL)", "point", run("torchrun"),
             P("resnet50", rn, "bf16"), torchrun=True)]
    items += [Item(f"#| gpu cells of {nb}", "cells", o["cells"], notebook=nb) for nb in gpu_notebooks()]
    return items


def cpu_plan(seconds:float=0.3) -> list[Item]:
    "The tiny plan a CPU runs for real (CI exercises the same code): test models, two points run twice."
    o = OVERHEAD["cpu"]
    P = lambda *a, **kw: _point(*a, seconds=seconds, warmup=1, **kw)
    run = lambda fam: 2 * (o[fam] + seconds)
    return [Item(f"test-gpt2 fp16 bs 2 loss scale {LOSS_SCALE} fused", "point", run("lm"),
                 P("test-gpt2", 2, "fp16", seq_len=32, loss_scale=LOSS_SCALE, fused=True), lambda_precision="fp16"),
            Item("test_resnet bf16 bs 2 infer", "point", run("image"), P("test_resnet", 2, "bf16", "infer", size=16))]


def gpu_notebooks() -> list[str]:
    "The notebooks with `#| gpu` cells, by name."
    return sorted(f.name for f in (ROOT / "nbs").rglob("*.ipynb") if "#| gpu" in f.read_text())


def cut(items:list[Item], budget:float) -> tuple[list[Item], list[Item]]:
    "The items that fit in `budget` seconds, in priority order (a later, shorter one may fit), and those cut."
    kept, dropped, total = [], [], 0.0
    for it in items:
        if total + it.expected_s > budget: dropped.append(it); continue
        kept.append(it); total += it.expected_s
    return kept, dropped


def plan_text(kept:list[Item], dropped:list[Item], budget:float) -> str:
    "The plan as printed: each item with its expected seconds, what was cut, and the estimated total."
    lines = [f"{i + 1:2d}. {it.name}: {it.expected_s:.0f} s" + (" (each point twice)" if it.kind == "point" else "")
             for i, it in enumerate(kept)]
    lines += [f"    cut (would pass {budget:.0f} s): {it.name}: {it.expected_s:.0f} s" for it in dropped]
    return "\n".join(lines + [f"estimated: {sum(it.expected_s for it in kept):.0f} s in all"])


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
    "Both runs of a point, each stored as it finishes (skipped where the store has it): their rows."
    from ready_steady_go.measure.runner import run
    from ready_steady_go.keep.store import save_runs
    rows = []
    for n in (1, 2):
        p = replace(it.point, device=str(dev), run_number=n)
        if _key(p, it.torchrun) in done: say(f"  run {n}: stored already"); continue
        t0 = time.monotonic()
        r = run(p, "torchrun" if it.torchrun else None)
        r.runtime_s = time.monotonic() - t0
        row = r.row(fp)
        if kept := save_runs(row, store): say(f"  {kept}")
        tp = f"{r.throughput:,.1f} {r.unit}/s ± {100 * (r.ci_rel or 0):.1f}%" if r.status == "ok" else r.error
        say(f"  run {n}: {r.status}: {tp} ({r.runtime_s:.0f} s; conditions {r.conditions})")
        rows.append(row)
    return rows


def run_health(dev, store:Path, say) -> str:
    "The health check (shorter sustained load), its lines stored; skipped when the store has a check of this GPU."
    from ready_steady_go.measure.health import check_table_text, read_checks, run_check
    if store.exists() and len(read_checks(store)): return "stored already"
    table, kept = run_check(dev, folder=store.parent, store=store, seconds=10, disk_bytes=2**28)
    if kept: say(f"  {kept}")
    say(check_table_text(table))
    return f"{(table.verdict == 'ok').sum()} of {len(table)} lines ok"


def run_cells(nb:str, out:Path, say) -> str:
    "A notebook's `#| gpu` cells through nbdev's test runner with the `gpu` flag (where nbdev is here); the outcome."
    import importlib.util
    marker = out / f".cells-{nb}.done"
    if marker.exists(): return "passed already"
    if importlib.util.find_spec("nbdev") is None: return "skipped: nbdev is not installed here (bench/gpu_wheels.sh)"
    run = "import sys; from nbdev.test import nbdev_test; sys.argv[0] = 'nbdev-test'; nbdev_test()"
    r = subprocess.run([sys.executable, "-c", run, "--flags", "gpu", str(ROOT / "nbs" / nb)], capture_output=True,
                       text=True, cwd=ROOT / "nbs")
    if r.returncode == 0: marker.write_text("ok\n"); return "passed"
    return "failed: " + ((r.stderr or r.stdout).strip().splitlines() or ["(no output)"])[-1][:300]


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
        *([""] + [f"Cut (past the budget): {', '.join(it.name for it in dropped)}"] if dropped else []),
        *(["", "## Notes", ""] + [f"- {n}" for n in notes] if notes else []), ""])


def health_md(store:Path) -> str:
    "The newest health check kept in `store`, as a section of the summary (empty without one)."
    from ready_steady_go.measure.health import check_table_text, read_checks
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
    ap.add_argument("--budget", type=float, default=300.0, help="seconds the plan may take (default 300: 5 minutes)")
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
    kept, dropped = cut(items, a.budget)
    print(plan_text(kept, dropped, a.budget), flush=True)
    if a.plan: return 0
    return execute(a, dev_key, name, kept, dropped, t0)


def execute(a, dev_key:str, name:str, kept:list[Item], dropped:list[Item], t0:float) -> int:
    "Run the plan's items in order, each stored as it finishes, stopping where the budget ends; write CSV and summary."
    import pandas as pd
    from ready_steady_go.measure.calibrate import warm_up_device
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
    timing, ran, notes = [], {}, []
    for i, it in enumerate(kept):
        left = a.budget - (time.monotonic() - t0)
        if it.expected_s > left:  # running late: what no longer fits is cut, a later shorter item may still run
            dropped.append(it); notes.append(f"cut {it.name}: {left:.0f} s left of the budget, {it.expected_s:.0f} s expected")
            continue
        say(f"[{time.monotonic() - t0:5.0f} s] {it.name} (expected {it.expected_s:.0f} s)")
        s0 = time.monotonic()
        try:
            if it.kind == "warmup":
                w = warm_up_device(dev, 15 if dev.type == "cuda" else 1)
                outcome = "steady" if w and w["steady"] else "not steady within its cap"
            elif it.kind == "health": outcome = run_health(dev, store, say)
            elif it.kind == "cells": outcome = run_cells(it.notebook, out, say)
            else:
                run_point(it, dev, fp, store, done, say); outcome = "stored"
        except Exception as e:  # one item's failure is said and kept; the others still run
            outcome = f"failed: {type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
        say(f"  {outcome}")
        timing.append((it.name, it.expected_s, time.monotonic() - s0, outcome))
    runs = read_runs(store, env_id=fp["env_id"]) if store.exists() else pd.DataFrame()
    for it in kept:
        if it.kind == "point" and len(runs):
            ran[it.name] = _same_run(runs, it, str(dev))
    if snap is not None and len(runs): snap = snap[~snap.run_id.isin(runs.run_id)]  # a resumed run's own rows: not earlier
    n = export_csv(store, csv, env_id=fp["env_id"]) if store.exists() else 0
    real = time.monotonic() - t0
    lines = compare(kept, ran, dev_key, snap)
    text = summary_md(dev_key, name, lines, timing, sum(it.expected_s for it in kept), real, notes, dropped)
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
