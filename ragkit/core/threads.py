"""How ragkit's compute libraries wait: OpenMP threads that sleep when idle instead of spinning.

torch and FAISS each bring an OpenMP runtime, and every Python thread that calls them gets its own team
of OpenMP threads. By default an idle team *spins* for a while before sleeping; in a process with several
threads (Streamlit runs each script run in a new thread; an evaluation calls torch and FAISS in turn) the
spinning teams take the cores from the team doing the work. Measured in the Ask page: the query
embedding took 200–400 ms instead of 15 ms, with the process burning twice the CPU of the thread doing
the work (BENCHMARKS.md, "Stage timings"). ``OMP_WAIT_POLICY=PASSIVE`` makes idle threads sleep.

It must be set before the OpenMP runtimes start (before torch or FAISS is imported). The app sets it
first thing (``streamlit_app.py``); the library and CLI leave the environment alone: in a quiet process
spinning saves the wake-up (single-query embedding 10 ms instead of 12–13 ms here; batch throughput is
the same either way). A value the user set is kept.
"""

from __future__ import annotations

import os

WAIT_POLICY = "PASSIVE"


def quiet_openmp() -> str:
    """Make idle OpenMP threads sleep, unless the environment already says otherwise; the policy in force."""
    return os.environ.setdefault("OMP_WAIT_POLICY", WAIT_POLICY)
