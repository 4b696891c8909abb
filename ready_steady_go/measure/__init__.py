"""Measure: the workloads, the engine that times them, where a point runs (here, a child, torchrun ranks), the sweep and the health check."""
