"""The report path's four speed goals, each printed as a ratio to its goal (<= 1.00 meets it), from one run.

    python bench/goals.py [--skip_1m] [--runs 100000] [--big 1000000]

1. 100k runs: W&B CSV -> store -> report (figures drawn: an empty figure cache) <= 5 s
2. 1M runs: the same path <= 45 s, with the peak memory of any one process <= 4 GB (in a child process)
3. the 100k-run store after one new run: read -> report (the figure cache and the store's snapshot warm from 1.) <= 2 s
4. 50,000 runs over 500 models: CSV -> store -> report <= 10 s, with report.html < 10 MB
Times are wall seconds of the user path (as `report_100k.py` counts them), on this machine with its load as it is:
the load average is printed beside them, and the CPU seconds (figure workers included), which load moves less.
"""
import argparse, os, resource, shutil, subprocess, sys, tempfile, time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from synth_runs import synth_runs, _configs, DEVICES, MODELS
from report_100k import _cpu, once, wandb_export

PRICES = {d[0]: round(0.2 + 2.5 * d[3] ** 1.5, 2) for d in DEVICES}

def _csv(runs, name) -> Path:
    p = Path(tempfile.gettempdir()) / f"rsg-goals-{name}.csv"
    wandb_export(runs).to_csv(p, index=False)
    return p

def _runs(n):
    per = len(list(_configs(DEVICES, MODELS)))
    return synth_runs(len(DEVICES), len(MODELS), repeats=-(-n // per), seed=0).iloc[:n]

def many_models(n_models=500, n_runs=50_000):
    "About `n_runs` runs over `n_models` models: the synthetic models renamed, each a little faster or slower."
    base = synth_runs(2, len(MODELS), 1, seed=1)
    k = -(-n_models // len(MODELS))
    parts = [base.assign(model=base["model"] + f"-v{i}", run_id=base["run_id"] + f"{i:04d}",
                         throughput=base["throughput"] * (0.7 + 0.6 * i / k)) for i in range(k)]
    import pandas as pd
    out = pd.concat(parts, ignore_index=True)
    out = out[out["model"].isin(sorted(out["model"].unique())[:n_models])]
    return out.sample(n=min(n_runs, len(out)), random_state=0).reset_index(drop=True) if len(out) > n_runs else out

def _rereport(store, out):
    "One new run into `store`, then read -> report -> write with the figure cache as the first report left it."
    from ready_steady_go.keep.store import read_runs, write_rows
    from ready_steady_go.show.report import build_report
    from ready_steady_go.schema import REPORT_COLUMNS
    one = read_runs(store, columns=REPORT_COLUMNS).iloc[[0]].assign(run_id="one-new-run",
                                                                   throughput=lambda d: d["throughput"] * 1.01)
    write_rows(one, store)
    t0, c0 = time.perf_counter(), _cpu()
    runs = read_runs(store, columns=REPORT_COLUMNS)
    rep = build_report(runs, PRICES, title="re-report")
    rep.write(out)
    return time.perf_counter() - t0, _cpu() - c0

def _big(n):
    "Run `report_100k.py --runs n` in a child: its total and the peak memory of its largest process."
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, str(HERE / "report_100k.py"), "--runs", str(n)], capture_output=True, text=True)
    wall = time.perf_counter() - t0
    total = next((float(l.split()[1]) for l in r.stdout.splitlines() if l.strip().startswith("total ")), float("nan"))
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20  # GiB (ru_maxrss is in KiB)
    if r.returncode: print(r.stdout[-2000:], r.stderr[-2000:], file=sys.stderr)
    return total, peak, wall

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=100_000)
    ap.add_argument("--big", type=int, default=1_000_000)
    ap.add_argument("--skip_1m", action="store_true", help="leave out goal 2 (minutes on a loaded 2-core machine)")
    a = ap.parse_args()
    os.environ["RSG_FIGURE_CACHE"] = cache = tempfile.mkdtemp(prefix="rsg-goals-cache-")  # empty: 1. draws all
    os.environ["RSG_RUNS_CACHE"] = runs_cache = tempfile.mkdtemp(prefix="rsg-goals-runs-")  # no snapshot: 1. reads every row
    try: _goals(a)
    finally:  # a snapshot is a hundred MB: none left behind
        for d in (cache, runs_cache): shutil.rmtree(d, ignore_errors=True)

def _goals(a):
    "Measure the goals (`main`'s arguments `a`) and print them."
    import ready_steady_go.show.report, ready_steady_go.keep.load  # noqa: F401  (module imports: not counted)
    rows = []
    with tempfile.TemporaryDirectory() as d:
        t, rep, runs, path = once(_csv(_runs(a.runs), "100k"), PRICES, Path(d) / "r1", a.runs, keep=Path(d) / "s.db")
        rows.append((f"{a.runs:,} runs CSV -> store -> report", t["total"], 5.0,
                     f"CPU {t['total CPU']:.2f} s; " + ", ".join(f"{k.strip()} {v:.2f}" for k, v in t.items()
                                                             if k not in ("total", "total CPU"))))
        wall, cpu = _rereport(Path(d) / "s.db", Path(d) / "r3")
        rows.append((f"{a.runs:,}-run re-report after one new run", wall, 2.0, f"CPU {cpu:.2f} s"))
        mm = many_models()
        t4, rep4, runs4, _ = once(_csv(mm, "500"), PRICES, Path(d) / "r4", len(mm))
        mb = len(rep4.files["report.html"].encode()) / 1e6
        rows.append((f"{len(mm):,} runs over {mm['model'].nunique()} models", t4["total"], 10.0,
                     f"CPU {t4['total CPU']:.2f} s; report.html {mb:.1f} MB (goal < 10 MB: {'met' if mb < 10 else 'MISSED'})"))
    if not a.skip_1m:
        total, peak, wall = _big(a.big)
        rows.insert(1, (f"{a.big:,} runs CSV -> store -> report", total, 45.0,
                        f"peak memory {peak:.2f} GiB (goal <= 4 GiB: {'met' if peak <= 4 else 'MISSED'})"))
    print(f"load average {', '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    for what, s, goal, more in rows:
        print(f"  {what:<42} {s:7.2f} s / {goal:4.0f} s = {s / goal:5.2f}  {'met' if s <= goal else 'MISSED'}"
              + (f"; {more}" if more else ""))

if __name__ == "__main__": main()
