"""The "What burstlab had to choose" section of a paper's report: every parameter the
paper does not give, burstlab's value, a plausible range with its reason, and — for the
ones swept — what the sweep found.

Read first: :class:`Choice`, then :func:`section`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from burstlab.reproduce.report import Report


@dataclass(frozen=True)
class Choice:
    """One parameter the paper leaves unstated.

    Attributes:
        parameter: what it is (``UDP mean on period``).
        value: burstlab's choice (``10 ms``).
        range: the plausible range (``1–100 ms``).
        reason: why the value and the range, one sentence.
        effect: what moving it across the range does to the claims: a sweep's result
            (with numbers), or why it cannot matter; empty if not measured.
        decisive: the sweep shows it changes a headline verdict.
    """

    parameter: str
    value: str
    range: str
    reason: str
    effect: str = ""
    decisive: bool = False


def section(r: Report, choices: Sequence[Choice], intro: str = "") -> None:
    """Writes the section: a table of every choice, then the decisive ones in words."""
    import pandas as pd

    r.h(2, "What burstlab had to choose")
    r.p(intro or "The paper does not give these; burstlab's value, the range a reader "
                 "could plausibly pick, and — where swept — what the choice does to the "
                 "claims.")
    r.table(pd.DataFrame([{"parameter": c.parameter, "burstlab": c.value,
                           "plausible range": c.range, "reason": c.reason,
                           "effect on the claims": c.effect or "not swept",
                           "decisive": "yes" if c.decisive else ""} for c in choices]))
    dec = [c for c in choices if c.decisive]
    if dec:
        r.p("**Decisive:** " + " ".join(f"{c.parameter}: {c.effect}" for c in dec))
    else:
        r.p("Decisive choices: none found among the swept ones (their effects are in the "
            "table).")
