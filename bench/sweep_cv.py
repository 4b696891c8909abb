"""Time per point and repeatability: the default `auto` stop rule against the 2022 fixed 30 s per point.

For each point, `--repeats` measurements with each rule, interleaved (auto, fixed, auto, fixed, ...) so that drift
of the machine hits both alike. Prints, per point and in total, the coefficient of variation (CV = stdev/mean) of
the throughput over the repeats and the time spent measuring, and the ratio of the times.

    python bench/sweep_cv.py                                  # GPU: resnet50, vgg19, swin_s3_base_224 at 64, fp16
    python bench/sweep_cv.py --device cpu --fixed_seconds 10  # CPU: tiny models, fixed time scaled down
    python bench/sweep_cv.py --device cpu --compare_isolate   # in-process vs fresh-process throughput, and after an OOM

Goal (issue 3): on a GPU at least 5x less measuring time with a CV no worse.
"""
import argparse, statistics, sys, time
from dataclasses import asdict

import torch

from ready_steady_go.measure.benchmark import benchmark
from ready_steady_go.measure.device import pick_device
from ready_steady_go.measure.runner import run
from ready_steady_go.schema import Point


def cv(xs): return statistics.stdev(xs) / statistics.mean(xs) if len(xs) > 1 else float("nan")


def timed(kw, isolate=False):
    "A point measured by `run` (the sweep's own path), with the wall time of the whole call."
    t = time.perf_counter(); r = run_point(kw, isolate); dt = time.perf_counter() - t
    if r.status != "ok": sys.exit(f"{kw['model']} bs {kw['bs']}: {r.status}: {r.error}")
    return r, dt


def run_point(kw:dict, isolate=False):
    "One point from flat settings, here or in a fresh process, as the sweep runs it."
    settings = {k: v for k, v in kw.items() if k != "progress"}
    return run(Point.of(**settings), "isolated" if isolate else "inline", progress=kw.get("progress", False))


def stop_rules(a):
    "The default auto rule against a fixed time per point."
    return dict(auto={}, fixed=dict(n_seconds=a.fixed_seconds))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default="auto")
    p.add_argument("--models", default=None, help="comma-separated (default: the 2022 models on a GPU, tiny test models on a CPU)")
    p.add_argument("--bs", type=int, default=None, help="batch size (default 64 on a GPU, 8 on a CPU)")
    p.add_argument("--size", type=int, default=None, help="image side (default: the model's own on a GPU, 64 on a CPU)")
    p.add_argument("--precision", default=None, help="default fp16 on a GPU, fp32 on a CPU")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--fixed_seconds", type=float, default=30.0, help="the fixed rule's seconds per point (2022: 30)")
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's)")
    p.add_argument("--compare_isolate", action="store_true", help="instead: the same point in this process and in fresh ones, and after an OOM")
    a = p.parse_args()
    if a.threads: torch.set_num_threads(a.threads)
    dev = pick_device(a.device)
    gpu = dev.type != "cpu"
    models = (a.models or ("resnet50,vgg19,swin_s3_base_224" if gpu else "test_resnet,test_convnext,test_vit")).split(",")
    base = dict(bs=a.bs or (64 if gpu else 8), size=a.size or (None if gpu else 64), precision=a.precision or ("fp16" if gpu else "fp32"),
                device=str(dev), warmup=a.warmup, progress=False)
    print(f"device {dev}, torch threads {torch.get_num_threads()}, {base}", flush=True)
    if a.compare_isolate: return compare_isolate(models, base, a)

    rules, rows = stop_rules(a), []
    for m in models:
        res = {k: [] for k in rules}
        for i in range(a.repeats):
            for k, rule in rules.items():
                r, dt = timed(dict(model=m, **base, **rule, run_number=i + 1))
                res[k].append((r.throughput, r.seconds, dt))
                ci = "  no CI" if r.ci_rel is None else f"±{100 * r.ci_rel:4.1f}%"
                print(f"  {m:18s} {k:5s} run {i+1}: {r.throughput:10.1f}/s {ci}  {r.n_steps:5d} steps  "
                      f"{r.seconds:6.1f} s timed  {dt:6.1f} s wall", flush=True)
        rows.append((m, res))
    print(f"\n{'model':18s} {'CV auto':>8s} {'CV fixed':>9s} {'s auto':>8s} {'s fixed':>8s} {'time fixed/auto':>16s}")
    tot = {k: 0.0 for k in rules}
    for m, res in rows:
        t = {k: sum(x[2] for x in v) for k, v in res.items()}
        for k in tot: tot[k] += t[k]
        print(f"{m:18s} {100*cv([x[0] for x in res['auto']]):7.2f}% {100*cv([x[0] for x in res['fixed']]):8.2f}% "
              f"{t['auto']:8.1f} {t['fixed']:8.1f} {t['fixed']/t['auto']:15.2f}x")
    print(f"{'total':18s} {'':8s} {'':9s} {tot['auto']:8.1f} {tot['fixed']:8.1f} {tot['fixed']/tot['auto']:15.2f}x")
    print(f"(wall seconds per rule incl. model build and {a.warmup} warm-up steps; fixed = n_seconds {a.fixed_seconds:g})")


def compare_isolate(models, base, a):
    "The same point in this process and in fresh processes (interleaved), then again in this process after an OOM."
    kw = dict(model=models[0], **base, max_seconds=10)
    here, iso = [], []
    for i in range(a.repeats):
        here.append(timed(kw)[0].throughput); iso.append(timed(kw, isolate=True)[0].throughput)
        print(f"  run {i+1}: in process {here[-1]:10.1f}/s   isolated {iso[-1]:10.1f}/s", flush=True)
    oom = run_point({**kw, "bs": 2**30, "n_batches": 2})
    print(f"  an out-of-memory point in this process: {oom.status} ({oom.error[:60]}...)")
    after = [timed(kw)[0].throughput for _ in range(a.repeats)]
    m = statistics.mean
    print(f"\n{kw['model']} bs {kw['bs']}: in process {m(here):.1f}/s (CV {100*cv(here):.1f}%), isolated {m(iso):.1f}/s "
          f"(CV {100*cv(iso):.1f}%), ratio {m(here)/m(iso):.3f}; in process after the OOM {m(after):.1f}/s "
          f"(ratio to isolated {m(after)/m(iso):.3f})")


if __name__ == "__main__": main()
