#!/bin/sh
# Start-up benchmark (issue 29 §3): laminad's start to READY=1 and to the first frame of a
# 100-layer scene, cold and warm (shader caches empty or kept); median of several runs.
# See scripts/bench-start.py for what is measured. usage: scripts/bench-start.sh [--runs N] [--laminad PATH]
exec /usr/bin/python3 "$(dirname "$0")/bench-start.py" "$@"
