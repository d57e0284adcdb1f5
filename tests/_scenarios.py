"""Small scenarios shared by the tests."""

from __future__ import annotations


def two_host_cbr(rate: str = "8Mb/s", loss: float = 0.0, duration: float = 2.0) -> dict:
    """A minimal dict scenario: one CBR flow over one link."""
    return {
        "name": "cbr-test",
        "sim": {"duration": duration},
        "node": [{"name": "a", "kind": "host"}, {"name": "b", "kind": "host"}],
        "link": [{"a": "a", "b": "b", "rate": "10Mb/s", "delay": "1ms", "loss": loss}],
        "flow": [{"type": "cbr", "src": "a", "dst": "b", "rate": rate}],
    }
