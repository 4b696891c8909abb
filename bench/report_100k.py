"""100,000 synthetic runs -> analysis + report, each stage timed. Goal: under 10 s in all on a 2-core machine.

    python bench/report_100k.py [--runs 100000] [--out /tmp/rsg-bench-report]

Stages: make (synthetic runs, not counted), [store import: to be added once the store exists], analysis,
figures, html, write. The total that counts is everything after `make`.
"""
import argparse, sys, tempfile, time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth_runs import synth_runs, DEVICES, MODELS

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=100_000)
    ap.add_argument("--out", default=str(Path(tempfile.gettempdir()) / "rsg-bench-report"))
    a = ap.parse_args()
    t = {}
    t0 = time.perf_counter()
    import pandas as pd
    from ready_steady_go.report import build_report
    t["import"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    per = len(list(__import__("synth_runs")._configs(DEVICES, MODELS)))
    runs = synth_runs(len(DEVICES), len(MODELS), repeats=-(-a.runs // per), seed=0).iloc[:a.runs]
    t["make (not counted)"] = time.perf_counter() - t0
    # the lead adds here: import `runs` into a fresh store and read them back, timed as t["store"]
    prices = {d[0]: round(0.2 + 2.5 * d[3] ** 1.5, 2) for d in DEVICES}

    stages = {}
    t0 = time.perf_counter()
    rep = build_report(runs, prices, title=f"{len(runs):,} synthetic runs", timings=stages)
    t1 = time.perf_counter()
    out = rep.write(a.out)
    t.update(stages); t["write"] = time.perf_counter() - t1
    total = sum(v for k, v in t.items() if k not in ("import", "make (not counted)"))
    print(f"{len(runs):,} runs, {runs.device_name.nunique()} devices, {runs.model.nunique()} models, "
          f"{sum(n.endswith('.svg') for n in rep.files)} figures -> {out}")
    for k, v in t.items(): print(f"  {k:<20} {v:7.2f} s")
    print(f"  {'total (counted)':<20} {total:7.2f} s   (goal < 10 s)")

if __name__ == "__main__": main()
