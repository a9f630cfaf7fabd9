#!/usr/bin/env python3
"""ptdb benchmarks.  Each benchmark prints ratios against a peer measured in
the same run.  None exist yet: the tracing and start-up benchmarks come with
the features they measure."""
import sys

print("no benchmarks yet: they land with the tracing and start-up work")
sys.exit(0)
