"""Write `nbs/fixtures/box_readings.json`: what the whole-box check reads on three 8-GPU machines.

Made here, not recorded (no GPU on the development machines), in the shapes NVML and the check return:
`h100_sxm_8`, a healthy 8×H100 SXM (HGX: every GPU with 18 NVLink 4 links to the NVSwitches, two PCIe
switches per socket); `h100_sxm_8_sick`, the same box with GPU 3 at 12 of 18 active links, GPU 5's memory
10% slower than its siblings (still inside its datasheet band), GPU 6 returning a different matmul result,
and GPU 2's PCIe replay counter rising during the check; and `l40s_pcie_8`, an 8×L40S PCIe box (no NVLink,
four GPUs behind each of two PCIe switches, one switch per socket). Figures are typical of healthy cards,
seeded.

    python bench/synth_box.py
"""
import json, random
from pathlib import Path

H100_BUS = ["18", "2A", "3A", "5D", "9A", "AB", "BA", "DB"]
L40S_BUS = ["1B", "1C", "1D", "1E", "9B", "9C", "9D", "9E"]
COUNTERS = dict(pcie_replay=0, ecc_corrected_volatile=0, ecc_uncorrected_volatile=0,
                ecc_corrected_aggregate=0, ecc_uncorrected_aggregate=0, remapped_pending=0,
                remapped_failed=0, retired_pages=0, xid=[])
DIGEST = "5f3c9a1e0b7d24c8"


def ancestors(n, same):
    "NVML topology levels: 0 self, 10/20 behind one PCIe switch, 40 same socket, 50 across sockets."
    return [[0 if a == b else same(a, b) for b in range(n)] for a in range(n)]


def readings(rnd, name, mem, matmul, train, pcie, links):
    return dict(device_name=name, gpu=True, matmul={"bf16": round(matmul * rnd.uniform(.995, 1.005), 1)},
                memory_gbs=round(mem * rnd.uniform(.995, 1.005), 1),
                copies={"h2d": round(pcie * .8 * rnd.uniform(.99, 1.01), 2),
                        "d2h": round(pcie * .82 * rnd.uniform(.99, 1.01), 2)},
                link=dict(pcie_gen=5 if pcie > 40 else 4, pcie_width=16, pcie_gen_max=5 if pcie > 40 else 4,
                          pcie_width_max=16, pcie_loaded=True),
                train=round(train * rnd.uniform(.995, 1.005)),
                sustained=dict(throughputs=[round(train * rnd.uniform(.995, 1.005), 1) for _ in range(30)],
                               summary=dict(sm_clock_ratio=.87, temp_max_c=68, power_mean_w=690 if links else 345,
                                            default_power_limit_w=700 if links else 350, throttle=["power cap"],
                                            throttle_share={"power cap": .9})),
                state=dict(other_processes=0, other_pids=[], mig=False, persistence=1, power_limit_w=700 if links else 350,
                           default_power_limit_w=700 if links else 350, ecc_uncorrected=0, retired_pages=0,
                           remapped_rows_pending=0, driver="550.54.15"))


def box(seed, name, bus, n_links, mem, matmul, train, pcie, same):
    rnd, gpus = random.Random(seed), []
    for i, b in enumerate(bus):
        g = dict(index=i, uuid=f"GPU-{rnd.getrandbits(32):08x}-5d3e-4b7a-9c11-{rnd.getrandbits(48):012x}",
                 bus_id=f"00000000:{b}:00.0", name=name,
                 nvlinks=[[1, 4, 2] for _ in range(n_links)], counters=dict(before=dict(COUNTERS), after=dict(COUNTERS)),
                 readings=readings(rnd, name, mem, matmul, train, pcie, n_links), digest=DIGEST, ref_err=3.1e-7)
        gpus.append(g)
    return dict(gpus=gpus, ancestor=ancestors(len(bus), same))


def main():
    hgx = lambda a, b: 10 if a // 2 == b // 2 else 40 if a // 4 == b // 4 else 50
    pcie = lambda a, b: 20 if a // 4 == b // 4 else 50
    h100 = ("NVIDIA H100 80GB HBM3", 18, 2950., 660., 3050., 64.)
    rec = dict(_about=__doc__.split("\n\n")[1].replace("\n", " "),
               h100_sxm_8=box(1, *h100[:1], H100_BUS, *h100[1:], hgx),
               h100_sxm_8_sick=box(1, *h100[:1], H100_BUS, *h100[1:], hgx),
               l40s_pcie_8=box(2, "NVIDIA L40S", L40S_BUS, 0, 770., 300., 1150., 32., pcie))
    sick = rec["h100_sxm_8_sick"]["gpus"]
    for k in range(12, 18): sick[3]["nvlinks"][k][0] = 0
    sick[5]["readings"]["memory_gbs"] = round(sick[5]["readings"]["memory_gbs"] * 0.9, 1)
    sick[6]["digest"], sick[6]["ref_err"] = "a07d3e19c2b4f650", 2.4e-2
    sick[2]["counters"]["after"]["pcie_replay"] = 37
    path = Path(__file__).parent.parent / "nbs" / "fixtures" / "box_readings.json"
    path.write_text(json.dumps(rec, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__": main()
