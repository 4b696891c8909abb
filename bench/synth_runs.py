"""Deterministic synthetic runs in the run-record schema (see the contract), for tests and benchmarks.

`python bench/synth_runs.py` rewrites `nbs/fixtures/runs.csv`. The numbers are made up but shaped like real
ones: throughput saturates with batch size and dips at the largest, half precision is faster where the
hardware has tensor cores, bf16 fails on pre-Ampere GPUs, memory grows with batch size until a run OOMs.
"""
import hashlib, json, sys
from itertools import product
from pathlib import Path

import numpy as np, pandas as pd

# raw name, capability, memory (GiB), speed vs A100 (train fp32), fp16 speed-up, tf32 speed-up, bf16 ok, host cpu
DEVICES = [
    ("NVIDIA GeForce RTX 3080 Ti", "8.6", 11.76, 0.62, 1.9, 1.45, True, "AMD Ryzen 9 5950X 16-Core Processor"),
    ("Tesla V100-FHHL-16GB", "7.0", 15.78, 0.66, 2.6, 1.0, False, "Intel(R) Xeon(R) CPU E5-2698 v4 @ 2.20GHz"),
    ("NVIDIA A100-SXM4-80GB", "8.0", 79.15, 1.0, 2.7, 1.9, True, "AMD EPYC 7742 64-Core Processor"),
    ("Tesla T4", "7.5", 14.58, 0.17, 3.1, 1.0, False, "Intel(R) Xeon(R) CPU @ 2.20GHz"),
    ("NVIDIA H100 80GB HBM3", "9.0", 79.1, 1.75, 2.9, 2.1, True, "Intel(R) Xeon(R) Platinum 8480+"),
    # extra devices for the large benchmark
    ("NVIDIA GeForce RTX 4090", "8.9", 23.99, 1.05, 2.1, 1.6, True, "AMD Ryzen 9 7950X 16-Core Processor"),
    ("NVIDIA GeForce RTX 3090", "8.6", 23.69, 0.72, 1.9, 1.5, True, "AMD Ryzen 9 5900X 12-Core Processor"),
    ("NVIDIA A10G", "8.6", 22.3, 0.45, 2.2, 1.5, True, "AMD EPYC 7R32"),
    ("NVIDIA L4", "8.9", 22.5, 0.38, 2.4, 1.6, True, "Intel(R) Xeon(R) CPU @ 2.20GHz"),
    ("NVIDIA RTX A6000", "8.6", 47.54, 0.8, 2.0, 1.5, True, "AMD EPYC 7502P 32-Core Processor"),
    ("Tesla P100-PCIE-16GB", "6.0", 15.89, 0.33, 1.3, 1.0, False, "Intel(R) Xeon(R) CPU E5-2690 v4 @ 2.60GHz"),
    ("NVIDIA L40S", "8.9", 44.99, 1.15, 2.3, 1.7, True, "AMD EPYC 9354 32-Core Processor"),
]
# timm name, train fp32 samples/s on an A100 at its best batch, saturation bs, MB per sample (train fp32), MB fixed
MODELS = [("resnet50", 780., 24, 85., 420.), ("vgg19", 410., 12, 110., 2300.), ("swin_s3_base_224", 290., 16, 150., 1150.),
          ("convnext_tiny", 700., 20, 90., 470.), ("vit_base_patch16_224", 330., 12, 120., 1400.), ("efficientnet_b0", 1400., 32, 60., 90.)]
PRECISIONS, MODES, BATCHES = ("fp32", "tf32", "fp16", "bf16"), ("train", "infer"), tuple(2**i for i in range(3, 11))

def _fp(dev):
    name, cap, mem, *_, cpu = dev
    fp = dict(device_type="cuda", device_name=name, device_capability=cap, device_mem_gb=mem, device_count=1,
              driver="535.104.05", cuda="12.1", cudnn=90100, torch="2.5.1+cu121", timm="1.0.31", python="3.11.9",
              platform="Linux-5.15.0-91-generic-x86_64-with-glibc2.35", cpu=cpu, cpu_count=32, torch_threads=16)
    keys = ("device_name", "device_capability", "device_mem_gb", "driver", "cuda", "cudnn", "torch", "timm",
            "python", "platform", "cpu", "cpu_count", "torch_threads")  # as ready_steady_go.measure.device.env_id
    fp["env_id"] = hashlib.sha1(json.dumps({k: fp.get(k) for k in keys}, sort_keys=True, default=str).encode()).hexdigest()[:12]
    return fp

def _configs(devices, models):
    "One dict per (device, model, precision, mode, bs) that a sweep with OOM early stop would run."
    for dev, (model, base, sat, mb, fixed), prec, mode in product(devices, models, PRECISIONS, MODES):
        name, cap, mem, speed, f16, tf32, bf16_ok = dev[:7]
        pf = dict(fp32=1.0, tf32=tf32, fp16=f16, bf16=0.97 * f16)[prec]
        peak = base * speed * pf * (3.1 if mode == "infer" else 1.0)
        mfac = (0.58 if prec in ("fp16", "bf16") else 1.0) * (0.12 if mode == "infer" else 1.0)
        for bs in BATCHES:
            c = dict(dev=dev, model=model, precision=prec, mode=mode, bs=bs)
            if prec == "bf16" and not bf16_ok:
                yield c | dict(status="error", error=f"RuntimeError: bf16 is not supported on {name}"); break
            need = fixed * (1 if mode == "infer" else 4) + mb * mfac * bs
            if need > mem * 1024 * 0.94:
                yield c | dict(status="oom", error="CUDA out of memory"); break
            thr = peak * bs / (bs + sat) * (1 + sat / 256) * (1 - 0.04 * max(0., np.log2(bs / 256)))
            yield c | dict(status="ok", error=None, thr=thr, mem=need)

def synth_runs(n_devices=5, # the first `n_devices` of `DEVICES`
               n_models=3, # the first `n_models` of `MODELS`
               repeats=2, # runs per configuration (run_number 1..repeats)
               seed=0): # everything follows from it
    "A runs table in the run-record schema, the same for the same arguments."
    rng = np.random.default_rng(seed)
    cfg = pd.DataFrame(list(_configs(DEVICES[:n_devices], MODELS[:n_models])))
    cfg = cfg.loc[cfg.index.repeat(repeats)].reset_index(drop=True)
    n = len(cfg)
    cfg["run_number"] = np.tile(np.arange(1, repeats + 1), n // repeats)
    ok = (cfg.status == "ok").to_numpy()
    thr = np.where(ok, cfg.get("thr", pd.Series(np.nan, index=cfg.index)).to_numpy(float) * rng.normal(1, 0.012, n), np.nan)
    ci_rel = np.where(ok, rng.uniform(0.002, 0.01, n), np.nan)
    secs = np.where(ok, rng.uniform(8, 30, n), 0.0)
    bs = cfg.bs.to_numpy()
    n_steps = np.where(ok, np.maximum(10, np.nan_to_num(secs * thr / bs)).round(), 0).astype(int)
    fps = pd.DataFrame([_fp(d) for d in cfg.dev])
    rid = rng.integers(0, 2**63, size=(n, 2), dtype=np.int64)
    out = pd.DataFrame(dict(
        run_id=[f"{a:016x}{b:016x}" for a, b in rid], schema_version=1, source="local",
        timestamp=(pd.Timestamp("2024-05-01", tz="UTC") + pd.to_timedelta(np.arange(n) * 47, unit="s")).strftime("%Y-%m-%dT%H:%M:%S+00:00"),
        workload="timm", model=cfg.model, unit="images", size=224, bs=bs, precision=cfg.precision, mode=cfg["mode"],
        device="cuda:0", channels_last=True, compile=False, optimizer="sgd", stop="auto", n_batches=None, n_seconds=None,
        target_ci=0.01, max_seconds=60.0, run_number=cfg.run_number, status=cfg.status, error=cfg.error,
        throughput=thr, throughput_ci=thr * ci_rel, ci_rel=ci_rel, step_median_s=bs / thr, step_iqr_s=bs / thr * ci_rel * 4,
        n_steps=n_steps, seconds=np.where(ok, n_steps * bs / np.nan_to_num(thr, nan=1), 0.0), n_items=n_steps * bs,
        warmup_steps=np.where(ok, 5, 0), warmup_seconds=np.where(ok, 1.5, 0.0),
        peak_mem_mb=np.where(ok, cfg.get("mem", pd.Series(np.nan, index=cfg.index)).to_numpy(float), np.nan),
        flops_per_sample=None, tflops=None))
    return pd.concat([out, fps], axis=1)

if __name__ == "__main__":
    df = synth_runs()
    dest = Path(__file__).resolve().parent.parent / "nbs" / "fixtures" / "runs.csv"
    dest.parent.mkdir(exist_ok=True)
    df.to_csv(dest, index=False, float_format="%.6g")
    print(f"{len(df)} runs -> {dest}", file=sys.stderr)
