"""Cadenza's benchmark suite: `cadenza bench [--quick] [SCENARIO...]` or `python -m bench`.

Every figure is a median over repeats, measured side by side with APScheduler 3.x in the same
run where a peer exists; results go to `bench/results/<date>.json` plus a Markdown report.
"""
