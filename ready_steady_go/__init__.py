"""Ready, Steady, Go!: a deep-learning hardware benchmark and the analysis that turns its runs into a buying decision.

The rooms are grouped by the stage of the data's way: `measure` (workloads, the engine, runners, the sweep, the
health check), `keep` (the store, W&B, every import source), `analyse` (the analysis) and `show` (figures and the
report). `env`, `schema` and `options` sit at the top, because every stage uses them, and so do `cli` and `commands`, which call them all.

Before the grouping every room sat at the top (`ready_steady_go.store`), and some rooms have since been split.
Those old import paths keep working: `ready_steady_go.store` is `ready_steady_go.keep.store`, and an old room that
was split finds each name in the rooms that hold its parts now.
"""
__version__ = "0.1.0"

import importlib, importlib.abc, importlib.util, sys, types

# each room's old path → the rooms that hold its names now, the room it became first
MOVED = dict(
    device=("measure.device",), workloads=("measure.workloads", "measure.families"), peaks=("measure.peaks",),
    telemetry=("measure.telemetry",), serving=("measure.serving",), timing=("measure.timing",),
    benchmark=("measure.benchmark", "measure.timing", "measure.calibrate"), calibrate=("measure.calibrate",),
    session=("measure.session",), launch=("measure.launch",), runner=("measure.runner",),
    sweep=("measure.sweep", "measure.plan"), health=("measure.health", "measure.fleet"),
    cache=("keep.cache",), store=("keep.store", "keep.rows", "keep.side_tables", "keep.cache", "measure.plan", "measure.session"),
    rows=("keep.rows",), tracking=("keep.tracking",), load=("keep.load", "keep.keymaps"),
    analysis=("analyse.analysis", "analyse.costs", "analyse.timetotrain", "analyse.answers"),
    plots=("show.plots",), served=("show.served",), tables=("show.tables",), figures=("show.figures",),
    page=("show.page",), sections=("show.sections", "show.details"),
    report=("show.report", "show.tables", "show.figures", "show.page", "show.sections", "show.details"))

class _SplitRoom(types.ModuleType):
    "An old room whose names now live in several rooms: each name is looked up in them, in order, on first use."
    def __init__(self, name, homes):
        super().__init__(name)
        self.__homes__ = homes
    def __getattr__(self, name):
        if name.startswith("__"): raise AttributeError(name)
        for home in self.__homes__:
            mod = importlib.import_module(f"{__name__}.{home}")
            if hasattr(mod, name): return getattr(mod, name)
        raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
    def __dir__(self):
        return sorted({n for h in self.__homes__ for n in dir(importlib.import_module(f"{__name__}.{h}"))})

class _OldPaths(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    "Finds `ready_steady_go.<old room>` and hands over the room it became (or a `_SplitRoom` over its parts)."
    def find_spec(self, fullname, path=None, target=None):
        pkg, _, room = fullname.rpartition(".")
        if pkg == __name__ and room in MOVED: return importlib.util.spec_from_loader(fullname, self)
    def create_module(self, spec):
        homes = MOVED[spec.name.rpartition(".")[2]]
        if len(homes) > 1: return _SplitRoom(spec.name, homes)
    def exec_module(self, module):
        homes = MOVED[module.__name__.rpartition(".")[2]]
        if len(homes) == 1:
            # the import system returns what sys.modules holds once this returns: the room itself
            sys.modules[module.__name__] = importlib.import_module(f"{__name__}.{homes[0]}")

if not any(isinstance(f, _OldPaths) for f in sys.meta_path): sys.meta_path.append(_OldPaths())
