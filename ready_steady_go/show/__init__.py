"""Show: figures over the analysis tables, and the self-contained HTML report with its CSV tables."""
