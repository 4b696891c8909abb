"""Ready, Steady, Go!: a deep-learning hardware benchmark and the analysis that turns its runs into a buying decision.

The rooms are grouped by the stage of the data's way: `measure` (workloads, the engine, runners, the sweep, the
health check), `keep` (the store, W&B, every import source), `analyse` (the analysis) and `show` (figures and the
report). `env`, `schema` and `options` sit at the top, because every stage uses them, and so do `cli` and
`commands`, which call them all. Each name is imported from the room that defines it:
`from ready_steady_go.keep.store import read_runs`.
"""
__version__ = "0.1.0"

import logging
# torchao (the fp8 extra, which transformers imports when it is there) registers enums with torch's pytree, and torch
# logs a deprecation warning for each on every import: stray lines on stderr of every command, that a user cannot act on
logging.getLogger("torch.utils._pytree").setLevel(logging.ERROR)
