"""Light first: how long the console scripts take to list and to refuse, against the goal of 1 s each.

Each command runs as a user types it, in a fresh process (the console script found beside this Python),
`--rounds` times; the figure is the median wall time. The lock refusal is a second sweep on a device whose
lock this script holds (`device.device_lock`), into a temporary store. Printed: each case's median, its ratio
to the 1 s goal, and whether torch (or another heavy library) was imported to answer.

    python bench/light.py
    python bench/light.py --rounds 7
"""
import argparse, shutil, statistics, subprocess, sys, tempfile, time
from pathlib import Path

from ready_steady_go.measure.device import device_lock

GOAL_S = 1.0
HEAVY = ("torch", "timm", "transformers", "monai", "pandas", "wandb")


def script(name:str) -> str:
    "The console script `name` of this environment."
    return shutil.which(name) or str(Path(sys.executable).with_name(name))


def timed(argv:list) -> tuple[float, int, str]:
    "Run `argv` once: (seconds, exit status, stderr's last line)."
    t0 = time.perf_counter()
    p = subprocess.run(argv, capture_output=True, text=True)
    return time.perf_counter() - t0, p.returncode, (p.stderr.strip().splitlines() or [""])[-1]


def heavy(module:str, args:list) -> list:
    "The heavy libraries a console script's `main` imports to answer `args`, in a fresh process."
    code = (f"import atexit, sys\natexit.register(lambda: print(sorted(set({HEAVY!r}) & set(sys.modules))))\n"
            f"from ready_steady_go.{'cli' if module in ('rsg_main', 'sweep_main') else 'commands'} import {module} as main\nsys.argv = {['x', *args]!r}\nmain()")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip().splitlines()
    return out[-1] if out else "?"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5, help="runs of each case; the median is reported")
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp())
    store = tmp/"runs.db"
    cases = {  # name: (console script, cli main, arguments, expected exit status)
        "--list": ("ready-steady-go", "rsg_main", ["--list"], 0),
        "lock refusal": ("ready-steady-go-sweep", "sweep_main", ["--device", "cpu", "--store", str(store)], 2),
        "bad value": ("ready-steady-go", "rsg_main", ["--bs", "0"], 2),
        "missing store": ("ready-steady-go-report", "report_main", ["--store", str(tmp/"none.db"), "--out", str(tmp/"r")], 2),
    }
    worst = 0.0
    with device_lock(store, "cpu"):  # another sweep, as far as the lock is concerned
        for name, (cmd, module, args, want) in cases.items():
            runs = [timed([script(cmd), *args]) for _ in range(a.rounds)]
            med = statistics.median(s for s, _, _ in runs)
            codes = {c for _, c, _ in runs}
            ok = codes == {want}
            worst = max(worst, med / GOAL_S)
            print(f"{name:<14} {med:6.3f} s  ratio {med / GOAL_S:4.2f} of the {GOAL_S:g} s goal  "
                  f"{'PASS' if ok and med <= GOAL_S else 'FAIL'}  exit {sorted(codes)}  heavy imports {heavy(module, args)}"
                  + ("" if ok else f"  (expected exit {want}: {runs[-1][2]})"))
    shutil.rmtree(tmp, ignore_errors=True)
    print(f"worst ratio {worst:.2f} ({'PASS' if worst <= 1 else 'FAIL'})")


if __name__ == "__main__": main()
