"""Dump, or compare against a dump, every analysis output and the report's tables for many inputs.

    python bench/analysis_same.py dump DIR      # write DIR/<case>.pkl
    python bench/analysis_same.py check DIR     # recompute and compare with DIR; exit 1 on any difference

Cases: the fixtures, synthetic runs of several shapes (`synth_runs`), with and without prices, unconverged points
included or not, and a store read back. A speed-up of the analysis must leave every one of them identical.
"""
import pickle, sys, tempfile, warnings
from pathlib import Path

import numpy as np, pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from synth_runs import synth_runs, DEVICES

def _inputs():
    from ready_steady_go.keep.load import import_sources
    from ready_steady_go.keep.store import read_runs
    fx = ROOT / "nbs" / "fixtures"
    for f in ("runs.csv", "mixed_cpu_gpu.csv", "mixed_stacks.csv", "unet3d_iterations.csv", "wandb_export_2022.csv"):
        yield f.replace(".csv", ""), pd.read_csv(fx / f)
    for nd, nm, rep, seed in ((2, 1, 1, 1), (5, 3, 2, 0), (12, 6, 3, 2), (7, 4, 1, 3)):
        r = synth_runs(nd, nm, rep, seed)
        yield f"synth-{nd}-{nm}-{rep}", r
        # some unconverged, some flagged: the paths that mark and leave out
        rng = np.random.default_rng(seed)
        u = r.assign(ci_rel=np.where(rng.random(len(r)) < .2, .05, r["ci_rel"]),
                     conditions=np.where(rng.random(len(r)) < .1, "throttled", "ok"))
        yield f"synth-{nd}-{nm}-{rep}-noisy", u
    with tempfile.TemporaryDirectory() as d:
        csv = Path(d) / "r.csv"; synth_runs(5, 3, 2, 4).to_csv(csv, index=False)
        import_sources([str(csv)], Path(d) / "s.db")
        yield "store", read_runs(Path(d) / "s.db")

def _outputs(runs):
    from ready_steady_go.analyse.answers import analyse
    from ready_steady_go.show.report import build_report
    prices = {d[0]: round(0.2 + 2.5 * d[3] ** 1.5, 2) for d in DEVICES}
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, kw in (("plain", {}), ("priced", dict(prices=prices)),
                         ("priced-incl", dict(prices=prices, include_unconverged=True)),
                         ("valid", dict(only_valid=True))):
            try: res = analyse(runs, **kw)
            except Exception as e: res = {"error": f"{type(e).__name__}: {e}"}
            out[name] = res
        try:
            rep = build_report(runs, prices, title="same")
            out["report"] = {k: v for k, v in rep.files.items() if k.endswith(".csv")}
            out["report.html"] = _no_time(rep.files["report.html"])
            out["figures"] = sorted(k for k in rep.files if k.endswith(".svg"))
        except Exception as e: out["report"] = f"{type(e).__name__}: {e}"
    return out

def _no_time(h):
    import re
    h = re.sub(r"generated \d{4}-\d\d-\d\d \d\d:\d\d UTC", "generated", h)
    return re.sub(r"<svg.*?</svg>", "<svg/>", h, flags=re.S)  # figures: compared by name (matplotlib ids vary)

def _same(a, b, where):
    if isinstance(a, dict):
        if not isinstance(b, dict) or set(a) != set(b): return [f"{where}: keys {sorted(a)} vs {sorted(b) if isinstance(b, dict) else b}"]
        return [m for k in a for m in _same(a[k], b[k], f"{where}/{k}")]
    if isinstance(a, pd.DataFrame):
        try: pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True), check_dtype=True)
        except AssertionError as e: return [f"{where}: {str(e).splitlines()[0:3]}"]
        return []
    if isinstance(a, str) and isinstance(b, str) and a != b:
        i = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        return [f"{where}: differs at {i}: {a[i-80:i+80]!r} vs {b[i-80:i+80]!r}"]
    return [] if a == b else [f"{where}: {a!r:.200} vs {b!r:.200}"]

def main(cmd, d):
    d = Path(d); d.mkdir(parents=True, exist_ok=True)
    bad = n = 0
    for name, runs in _inputs():
        out = _outputs(runs); n += 1
        if cmd == "dump": pickle.dump(out, open(d / f"{name}.pkl", "wb")); print("dumped", name); continue
        diffs = _same(pickle.load(open(d / f"{name}.pkl", "rb")), out, name)
        bad += bool(diffs)
        print(("DIFF " if diffs else "same ") + name, *diffs[:8], sep="\n  ")
    if cmd == "check": print(f"{n - bad} of {n} inputs identical"); sys.exit(1 if bad else 0)

if __name__ == "__main__": main(*sys.argv[1:3])
