"""Keep: the local store, its snapshot cache, runs in and out as text, Weights & Biases, and every source runs are imported from."""
