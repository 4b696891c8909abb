"""Harness overhead: the engine's throughput against a plain hand-written loop, interleaved A/B.

Same model, batch, precision and optimizer, and the same backend switches (`precision_flags`: cuDNN
benchmark mode, TF32 on or off) on both sides, so the ratio measures the harness and not the settings;
each round runs both (order alternating) for the same number of steps, warming up with the same number
of steps; the printed figure is the median of the per-round ratios engine / plain.
Goal: >= 0.99 on a GPU; within measurement noise of 1.0 on a CPU.

    python bench/overhead.py --device cuda --model resnet50 --bs 64 --precision fp16
    python bench/overhead.py --device cpu --model resnet18 --bs 16 --size 96 --rounds 7
"""
import argparse, statistics, time

import torch

from ready_steady_go.measure.benchmark import AMP_DTYPES, benchmark, precision_flags
from ready_steady_go.measure.device import pick_device, synchronize
from ready_steady_go.measure.families import TimmClassifier


def plain_loop(wl, bs, dev, precision, mode, steps, warmup):
    "The loop a user would write by hand: no events, no statistics, synchronise at the edges."
    model = wl.build().to(dev)
    x, y = wl.batch(bs, dev)
    amp = torch.autocast(dev.type, dtype=AMP_DTYPES[precision]) if precision in AMP_DTYPES else torch.autocast(dev.type, enabled=False)
    if mode == "train":
        model.train()
        opt = torch.optim.SGD(model.parameters(), lr=1e-4, momentum=0.9)
        scaler = torch.amp.GradScaler(dev.type, enabled=precision == "fp16")
        def step():
            with amp: loss = wl.loss(model(x), y)
            scaler.scale(loss).backward(); scaler.step(opt); scaler.update(); opt.zero_grad(set_to_none=True)
    else:
        model.eval()
        def step():
            with torch.inference_mode(), amp: model(x)
    with precision_flags(precision):  # the engine's switches: the same cuDNN and TF32 settings on both sides
        for _ in range(warmup): step()
        synchronize(dev); t = time.perf_counter()
        for _ in range(steps): step()
        synchronize(dev)
        return bs * steps / (time.perf_counter() - t)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="resnet18"); p.add_argument("--bs", type=int, default=16)
    p.add_argument("--size", type=int, default=None); p.add_argument("--device", default="auto")
    p.add_argument("--precision", default="fp32"); p.add_argument("--mode", default="train")
    p.add_argument("--steps", type=int, default=30); p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--rounds", type=int, default=5)
    a = p.parse_args()
    dev, wl = pick_device(a.device), TimmClassifier(a.model, size=a.size)
    ratios = []
    for i in range(a.rounds):
        def engine():
            return benchmark(wl, a.bs, precision=a.precision, mode=a.mode, device=dev, n_batches=a.steps, warmup=a.warmup,
                             warmup_seconds=0,
                             progress=False).throughput
        def plain(): return plain_loop(wl, a.bs, dev, a.precision, a.mode, a.steps, a.warmup)
        first, second = (engine, plain) if i % 2 == 0 else (plain, engine)
        r1, r2 = first(), second()
        e, q = (r1, r2) if first is engine else (r2, r1)
        ratios.append(e / q)
        print(f"round {i+1}: engine {e:10.2f}  plain {q:10.2f}  ratio {e/q:.4f}", flush=True)
    print(f"{a.model} bs {a.bs} {a.precision} {a.mode} on {dev}: median engine/plain = {statistics.median(ratios):.4f} "
          f"(min {min(ratios):.4f}, max {max(ratios):.4f}, {a.rounds} interleaved rounds of {a.steps} steps)")


if __name__ == "__main__": main()
