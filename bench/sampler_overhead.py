"""Telemetry sampler overhead: a training step loop with the sampler on and off, interleaved A/B.

Each round times the same number of steps twice, once with a `Sampler` reading every `--interval` seconds
in its background thread and once without (order alternating); the printed figure is the median of the
per-round throughput ratios on / off. On a CPU the reader replays NVML-format readings (what the thread
costs); on a GPU it is the real NVML reader of that device. Goal: within noise of 1.0.

    python bench/sampler_overhead.py                       # CPU, small MLP, recorded readings
    python bench/sampler_overhead.py --device cuda --hidden 8192 --bs 256
"""
import argparse, json, statistics, time
from pathlib import Path

import torch

from ready_steady_go.measure.device import pick_device, synchronize
from ready_steady_go.measure.telemetry import NvmlReader, RecordedReader, Sampler


def make_step(dev, hidden, bs, layers=4):
    "One SGD training step of a small MLP on a fixed synthetic batch."
    model = torch.nn.Sequential(*[m for _ in range(layers) for m in (torch.nn.Linear(hidden, hidden), torch.nn.ReLU())]).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=1e-4, momentum=0.9)
    x, y = torch.randn(bs, hidden, device=dev), torch.randn(bs, hidden, device=dev)
    def step():
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
    return step


def timed(step, dev, steps, sampler=None):
    synchronize(dev)
    if sampler: sampler.start()
    t = time.perf_counter()
    for _ in range(steps): step()
    synchronize(dev)
    dt = time.perf_counter() - t
    if sampler: sampler.stop()
    return steps / dt


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default="cpu"); p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--bs", type=int, default=64); p.add_argument("--steps", type=int, default=50)
    p.add_argument("--rounds", type=int, default=31); p.add_argument("--interval", type=float, default=0.1)
    p.add_argument("--threads", type=int, default=1, help="torch CPU threads (one keeps a shared machine's noise down)")
    a = p.parse_args()
    dev = pick_device(a.device)
    torch.set_num_threads(a.threads)
    if dev.type == "cuda": reader, kind = NvmlReader(dev), "NVML"
    else:
        rec = json.loads((Path(__file__).parent.parent / "nbs" / "fixtures" / "nvml_readings.json").read_text())["a100_thermal"]
        reader, kind = RecordedReader(rec), "recorded NVML-format"
    step = make_step(dev, a.hidden, a.bs)
    for _ in range(20): step()
    ratios, cpu, n_read, secs = [], 0.0, 0, 0.0
    for i in range(a.rounds):
        s = Sampler(reader, a.interval)
        order = (True, False) if i % 2 == 0 else (False, True)
        r = {on: timed(step, dev, a.steps, s if on else None) for on in order}
        ratios.append(r[True] / r[False]); cpu += s.thread_cpu_s; n_read += len(s.samples); secs += a.steps / r[True]
        print(f"round {i+1:2}: on {r[True]:9.2f} steps/s  off {r[False]:9.2f} steps/s  ratio {ratios[-1]:.4f}", flush=True)
    print(f"sampler on/off on {dev} ({kind} readings every {a.interval} s): median ratio {statistics.median(ratios):.4f} "
          f"(min {min(ratios):.4f}, max {max(ratios):.4f}, {a.rounds} interleaved rounds of {a.steps} steps); "
          f"{n_read / secs:.1f} readings/s, sampler thread CPU {1e3 * cpu / secs:.2f} ms per second of window")


if __name__ == "__main__": main()
