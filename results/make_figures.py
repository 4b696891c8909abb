"""Draw the README's figures and table from the committed results snapshot (`results/*.csv`).

    python results/make_figures.py

writes `results/figures/*.svg`, prints the best-throughput table as Markdown for the README, and takes the report
page's picture of a report of these snapshots (`nbs/images/report-first-screen.png`, with headless Chromium).
The README shows these files; the docs site draws the same figures when it is built.
"""
from pathlib import Path

import matplotlib as mpl, pandas as pd

from ready_steady_go.analysis import analyse, rate_name
from ready_steady_go.plots import plot_speedup
from ready_steady_go.store import read_csv

here = Path(__file__).resolve().parent
runs = pd.concat([read_csv(f) for f in sorted(here.glob("*.csv"))], ignore_index=True)
res = analyse(runs, include_unconverged=True)  # a CPU quick run misses its CI target: drawn anyway, hatched
out = here / "figures"
out.mkdir(exist_ok=True)
MODES = ("train", "infer")  # the model families' modes: micro-ops and the input pipeline have none (their mode is "-")
for mode in [m for m in MODES if m in set(res["speedup"]["mode"])]:
    with mpl.rc_context({"svg.fonttype": "none", "svg.hashsalt": "rsg", "path.simplify": True}):
        plot_speedup(res["speedup"], mode).savefig(out / f"speedup-{mode}.svg", format="svg", metadata={"Date": None})
num = lambda v: f"{v / 1e6:,.1f} M" if v >= 1e6 else f"{v:,.0f}"  # voxels/s in millions: 85.9 M, not 85,880,536
best = res["best"][res["best"]["mode"].isin(MODES)].assign(cell=lambda d: d["throughput"].map(num) + d["unconverged"].map({True: " †", False: ""}),
                          rate=lambda d: d["unit"].map(rate_name))  # each model in its family's unit
tbl = best.pivot_table(index=["device", "label", "rate"], columns=["mode", "precision"], values="cell", aggfunc="first").fillna("")
cols = [f"{m} {p}" for m, p in tbl.columns]
print("| device | model | unit | " + " | ".join(cols) + " |\n|---|---|---|" + "---:|" * len(cols))
for (dev, model, rate), row in tbl.iterrows(): print(f"| {dev} | {model} | {rate} | " + " | ".join(row) + " |")

# the home page's published reference: Lambda's fp16 table (nbs/fixtures/lambda), scaling of their 8-GPU H100 SXM5 machine
from ready_steady_go.analysis import scaling
from ready_steady_go.plots import plot_scaling
from ready_steady_go.load import load_lambda

lsc = scaling(load_lambda(here.parent / "nbs" / "fixtures" / "lambda" / "pytorch-train-throughput-v2-fp16.csv").runs)
h100 = lsc[lsc["device"] == "H100 80GB SXM5 (published: lambda)"]
with mpl.rc_context({"svg.fonttype": "none", "svg.hashsalt": "rsg", "path.simplify": True}):
    plot_scaling(h100).savefig(out / "scaling-lambda-h100-fp16.svg", format="svg", metadata={"Date": None})
sp = h100.pivot_table(index="model", columns="world_size", values="speedup")
print("\n| model | " + " | ".join(f"{n} GPU" + "s" * (n > 1) for n in sp.columns) + " |\n|---|" + "---:|" * len(sp.columns))
for model, row in sp.iterrows(): print(f"| {model} | " + " | ".join(f"{v:.2f}" for v in row) + " |")

# the report page's picture (nbs/images/report-first-screen.png): the first screen of the report of these snapshots,
# as headless Chromium shows it at 1280 × 900 (needs the Debian packages chromium and chromium-driver, and selenium)
import subprocess, sys, tempfile
rep = Path(tempfile.mkdtemp()) / "report"
subprocess.run([Path(sys.executable).with_name("ready-steady-go-report"), *map(str, sorted(here.glob("*.csv"))),
                "--out", str(rep)], check=True, capture_output=True)
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
o = webdriver.ChromeOptions()
o.binary_location = "/usr/bin/chromium"
for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1280,900"): o.add_argument(a)
d = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=o)
try:
    d.get((rep / "report.html").as_uri())
    d.save_screenshot(str(here.parent / "nbs" / "images" / "report-first-screen.png"))
finally: d.quit()
