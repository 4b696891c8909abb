"""100,000 synthetic runs: CSV -> import into a fresh store -> read back -> report, each stage timed.
Goal: 5 s in all on a 2-core machine (`goals.py` prints it with the other goals of the report path).

    python bench/report_100k.py [--runs 100000] [--out /tmp/rsg-bench-report] [--repeat 1]

Prints each stage's wall time (best of --repeat) and the CPU time of the whole path, figure workers included.
The user path that counts is `ready-steady-go-import runs.csv --store S` then `ready-steady-go-report --store S`:
import (load_csv + the store's write, i.e. `import_sources`), read (`read_runs`), analysis, figures, html, write.
Not counted: Python's module imports (printed beside) and making the synthetic CSV.
"""
import argparse, os, resource, shutil, sys, tempfile, time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth_runs import synth_runs, _configs, DEVICES, MODELS

GOAL_S = 5.0

def _cpu() -> float:
    "CPU seconds of this process and its waited-for children (the report's figure workers)."
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime

def wandb_export(runs):
    "The runs table as W&B's web UI exports a project of this version's runs: Name, State, Created, ID, config and summary keys."
    from ready_steady_go.keep.tracking import wandb_keys  # noqa: F401  (the key names below are the ones it sends)
    d = runs.drop(columns=["run_id", "timestamp", "source"])
    return d.assign(fp16=runs.precision.eq("fp16"), pytorch=runs.torch, gpu_mem=(runs.device_mem_gb * 2**30).round().astype("int64"),
                    duration=runs.seconds).pipe(lambda d: d.__class__({"Name": [f"run-{i}" for i in range(len(d))], "State": "finished",
                    "Created": runs.timestamp.str[:19] + ".000Z", "ID": runs.run_id, **{k: d[k] for k in d.columns}}))

def timed(fn, name, t):
    def f(*a, **kw):
        t0 = time.perf_counter(); r = fn(*a, **kw); t[name] = t.get(name, 0) + time.perf_counter() - t0; return r
    return f

def once(csv, prices, out, n, keep=None):
    "CSV -> store -> report, each stage timed; `keep`: the store's path, kept (default: a temporary one)."
    from ready_steady_go.keep import load as loading
    from ready_steady_go.keep.store import read_runs
    from ready_steady_go.show.report import build_report
    from ready_steady_go.schema import REPORT_COLUMNS
    t, c0 = {}, _cpu()
    load, write, parts = loading._LOADERS["csv"], loading.write_rows, loading.write_parts
    loading._LOADERS["csv"] = timed(load, "  load_csv", t)
    # rows bound one by one, or copied from the parts the CSV's readers left
    loading.write_rows, loading.write_parts = timed(write, "  store write", t), timed(parts, "  store write", t)
    try:
        with tempfile.TemporaryDirectory() as d:
            store = Path(keep or Path(d) / "rsg-results.db")
            t0 = time.perf_counter()
            counts = loading.import_sources([str(csv)], store)
            t["import"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            runs = read_runs(store, columns=REPORT_COLUMNS)  # as ready-steady-go-report reads it
            t["read_runs"] = time.perf_counter() - t0
    finally: loading._LOADERS["csv"], loading.write_rows, loading.write_parts = load, write, parts
    assert counts["added"] == n == len(runs), (counts, len(runs))
    stages = {}
    t0 = time.perf_counter()
    rep = build_report(runs, prices, title=f"{len(runs):,} synthetic runs", timings=stages)
    t1 = time.perf_counter()
    path = rep.write(out)
    t.update(stages); t["write"] = time.perf_counter() - t1
    t["total"] = sum(v for k, v in t.items() if not k.startswith(" "))
    t["total CPU"] = _cpu() - c0  # CPU seconds of this process and its finished children (the figure workers)
    return t, rep, runs, path

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=100_000)
    ap.add_argument("--out", default=str(Path(tempfile.gettempdir()) / "rsg-bench-report"))
    ap.add_argument("--repeat", type=int, default=1, help="measure the whole path this many times (same process)")
    a = ap.parse_args()
    t0 = time.perf_counter()
    # empty (every figure drawn, every row read), and gone at the end, unless the caller set them
    made = [os.environ.setdefault(k, tempfile.mkdtemp(prefix=f"rsg-bench-{k.lower()}-"))
            for k in ("RSG_FIGURE_CACHE", "RSG_RUNS_CACHE") if k not in os.environ]
    try: _bench(a, t0)
    finally:
        for d in made: shutil.rmtree(d, ignore_errors=True)

def _bench(a, t0):
    "The bench of `main`'s arguments `a` (module imports timed from `t0`)."
    import pandas as pd
    import ready_steady_go.show.report, ready_steady_go.keep.load  # noqa: F401
    t_import = time.perf_counter() - t0

    t0 = time.perf_counter()
    per = len(list(_configs(DEVICES, MODELS)))
    runs = synth_runs(len(DEVICES), len(MODELS), repeats=-(-a.runs // per), seed=0).iloc[:a.runs]
    csv = Path(tempfile.gettempdir()) / f"rsg-bench-{a.runs}.csv"
    wandb_export(runs).to_csv(csv, index=False)
    n, runs = len(runs), None  # the user path reads the CSV in other processes: the bench's own frame is let go
    t_make = time.perf_counter() - t0
    prices = {d[0]: round(0.2 + 2.5 * d[3] ** 1.5, 2) for d in DEVICES}

    print(f"{a.runs:,} runs as a W&B CSV export ({csv.stat().st_size / 2**20:.0f} MiB, made in {t_make:.1f} s, not counted); "
          f"module imports {t_import:.2f} s (not counted)")
    res = []
    for i in range(a.repeat):
        t, rep, back, path = once(csv, prices, a.out, n)
        res.append(t)
        if i == 0:
            print(f"{len(back):,} runs, {back.device_name.nunique()} devices, {back.model.nunique()} models, "
                  f"{sum(n.endswith('.svg') for n in rep.files)} figures, report.html {len(rep.files['report.html']) / 2**20:.1f} MiB -> {path}")
    best = {k: min(r[k] for r in res) for k in res[0]}
    for k in res[0]:
        print(f"  {k:<14} {best[k]:7.2f} s" + (f"   (runs: {', '.join(f'{r[k]:.2f}' for r in res)})" if a.repeat > 1 else ""))
    tot = best["total"]
    print(f"verdict: {'PASS' if tot < GOAL_S else 'FAIL'}: CSV -> store -> report in {tot:.2f} s "
          f"({'best of ' + str(a.repeat) if a.repeat > 1 else 'one run'}; goal < {GOAL_S:.0f} s on 2 cores)")

if __name__ == "__main__": main()
