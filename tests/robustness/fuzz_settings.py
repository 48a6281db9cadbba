"""How hard the robustness tests try: a fast, reproducible CI run by default, a long one by hand.

``HYPOTHESIS_PROFILE=long`` runs many more generated examples (fresh randomness each run), ten
times the random deterministic mutations and the slower 10 MB pages. The default profile,
``ci``, is derandomized, so every run tries the same inputs.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large]
# Hypothesis times each example by the wall clock. The per-page budget is 2 s of CPU, which the
# parse workers measure (parse_worker.py); in this process the wall-clock deadline allows what
# they allow (WALL_PER_CPU times the budget), so a machine busy with other work is not a failure
# and a parser that runs away still is.
DEADLINE_MS = 10_000
settings.register_profile(
    "ci",
    max_examples=100,
    derandomize=True,
    database=None,
    deadline=DEADLINE_MS,
    suppress_health_check=_QUIET,
)
settings.register_profile(
    "long", max_examples=5000, database=None, deadline=DEADLINE_MS, suppress_health_check=_QUIET
)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
settings.load_profile(PROFILE)
LONG = PROFILE == "long"
