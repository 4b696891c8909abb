"""Write `nbs/fixtures/nvml_readings.json`: three timed windows of readings in the shape `telemetry.NvmlReader` returns.

They are made here, not recorded (no GPU on the development machines), with the numbers of cases users report:
an A100 SXM4 holding about 55% of its 1410 MHz clock with thermal slowdown, an RTX 4090 whose power limit was
lowered to 300 W and that sits on the power cap, and a healthy H100 SXM run. Then two windows of an H100 SXM with
the customer boost clock NVML reports (1980 MHz): a healthy one under a dense bf16 GEMM load (1.7 GHz, at its
700 W limit with the SW power-cap reason set, a display process beside ours), and the same card at 1.1 GHz with
the SW thermal-slowdown reason set. An H100 PCIe at its default 350 W limit, the SW power-cap reason set, at 1.25 GHz
of its 1755 MHz boost (how a power-limited card runs a dense GEMM); an H200 at ResNet-50 bs 8, 163 W of 700 W at its
full clock (the host is what it waits on); and a 2 s H200 window that starts with the load, whose power readings are
1 s averages (NVML on Ampere and later) while the energy counter follows the true 600 W. 3 s (or 2 s) at 100 ms
each, seeded.

    python bench/synth_nvml.py
"""
import json, random
from pathlib import Path


def window(seed, n, max_sm, sm, temp, power, limit, reasons, energy0, mem=1215, procs=(4242,), util=99, boost=None,
           graphics=None):
    rnd, out, e = random.Random(seed), [], energy0
    for i in range(n):
        p = power + rnd.uniform(-8, 8)
        if i: e += p * 100  # mJ over 100 ms
        out.append(dict(t=round(i * 0.1, 3), sm_clock_mhz=int(sm + rnd.choice((-15, 0, 0, 15))), mem_clock_mhz=mem,
                        max_sm_clock_mhz=max_sm, temp_c=int(temp + rnd.uniform(0, 3)), power_w=round(p, 2),
                        power_limit_w=limit, default_power_limit_w=max(limit, {1410: 400, 2520: 450}.get(max_sm, limit)),
                        util_gpu=util, util_mem=40, reasons=reasons if rnd.random() < 0.9 else 0, processes=list(procs), pid=4242,
                        energy_mj=int(e)))
        if boost: out[-1].update(boost_sm_clock_mhz=boost)
        if graphics is not None: out[-1].update(graphics_processes=list(graphics))
    return out


def ramp(seed, boost, idle, power, limit, energy0, n=21, avg_s=1.0):
    "A 2 s window that starts as the load does: true power `power` from t=0, NVML's reading a 1 s average of it."
    rnd, out, e = random.Random(seed), [], energy0
    for i in range(n):
        t = round(i * 0.1, 3)
        true = power + rnd.uniform(-5, 5)
        if i: e += true * 100  # mJ over 100 ms: the counter follows the true power
        seen = idle + (true - idle) * min(1.0, t / avg_s)  # the last second's mean, idle before t=0
        out.append(dict(t=t, sm_clock_mhz=boost, mem_clock_mhz=3201, max_sm_clock_mhz=boost, boost_sm_clock_mhz=boost,
                        temp_c=45, power_w=round(seen, 2), power_limit_w=limit, default_power_limit_w=limit, util_gpu=99,
                        util_mem=40, reasons=0, processes=[4242], graphics_processes=[], pid=4242, energy_mj=int(e)))
    return out


def main():
    rec = dict(
        a100_thermal=window(0, 31, 1410, 780, 87, 255, 400, 0x20 | 0x40, 8.1e9),
        rtx4090_power_cap=window(1, 31, 2520, 2370, 66, 298, 300, 0x4, 3.2e9, mem=10501, procs=(4242, 977)),
        h100_healthy=window(2, 31, 1980, 1980, 58, 560, 700, 0, 5.5e9, mem=2619),
        h100_loaded=window(3, 31, 1980, 1700, 71, 690, 700, 0x4, 6.1e9, mem=2619, boost=1980, graphics=(977,)),
        h100_thermal=window(4, 31, 1980, 1100, 88, 420, 700, 0x20, 6.7e9, mem=2619, boost=1980, graphics=()),
        h100_pcie_power_cap=window(5, 31, 1755, 1250, 70, 345, 350, 0x4, 4.4e9, mem=1593, boost=1755, graphics=()),
        h200_host_bound=window(6, 31, 1980, 1980, 41, 163, 700, 0, 9.2e9, mem=3201, boost=1980, graphics=()),
        h200_ramp=ramp(7, 1980, 120, 600, 700, 9.3e9))
    path = Path(__file__).parent.parent / "nbs" / "fixtures" / "nvml_readings.json"
    path.write_text(json.dumps(rec, indent=0) + "\n")
    print(f"wrote {path} ({', '.join(f'{k}: {len(v)} readings' for k, v in rec.items())})")


if __name__ == "__main__": main()
