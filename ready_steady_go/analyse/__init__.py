"""Analyse: from runs to answers (best configurations, speed-ups with intervals, cost, time to train, scaling, comparability)."""
