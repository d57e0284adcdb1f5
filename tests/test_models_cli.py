"""The `burstlab model` command, driven through main([...]) without subprocesses."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from burstlab.models import cli

THROUGHPUT = [
    "model",
    "throughput",
    "--variant",
    "sack",
    "--p",
    "0.01",
    "--tb",
    "1ms",
    "--access",
    "125MB/s",
    "--mss",
    "1000B",
    "--wm",
    "50",
    "--rtt0",
    "100ms",
    "--rto",
    "1s",
]


def test_throughput_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(THROUGHPUT) == 0
    out = capsys.readouterr().out
    assert "λ=125000 segments/s" in out
    assert (
        "sack" in out
        and "saturated" in out
        and "pftk-full" in out
        and "pftk-approx" in out
    )
    assert "newreno" not in out
    assert "418.37" in out  # eq. 28 at S = Wm = 50, RTT = 102 ms


def test_throughput_all_variants(capsys: pytest.CaptureFixture[str]) -> None:
    args = [a for a in THROUGHPUT if a not in ("--variant", "sack")]
    args[args.index("1ms")] = "10us"
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    for v in ("sack", "newreno", "reno", "unsaturated", "2.25"):
        assert v in out


def test_optimal_tb(capsys: pytest.CaptureFixture[str]) -> None:
    rc = cli.main(
        [
            "model",
            "optimal-tb",
            "--p",
            "0.01",
            "--wm",
            "50",
            "--access",
            "125MB/s",
            "--mss",
            "1000B",
            "--rtt0",
            "135ms",
        ]
    )
    assert rc == 0
    out = capsys.readouterr().out
    assert "3.97 ms" in out  # eq. 32 as printed
    assert "67.5 ms" in out  # eq. 30: RTT0/2
    assert "numerical max" in out


@pytest.mark.parametrize("ext", ["png", "svg"])
def test_plot_writes_file(
    tmp_path: Path, ext: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / f"fig.{ext}"
    rc = cli.main(
        [
            "model",
            "plot",
            "--p",
            "1e-3,1e-2,3e-2",
            "--access",
            "125MB/s",
            "--wm",
            "50",
            "--rtt0",
            "100ms",
            "--out",
            str(out),
            "--points",
            "30",
        ]
    )
    assert rc == 0
    assert out.stat().st_size > 1000
    head = out.read_bytes()[:8]
    assert (
        head.startswith(b"\x89PNG")
        if ext == "png"
        else b"<?xml" in out.read_bytes()[:100]
    )


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (
            ["--p", "1.5"],
            "--p: burst loss probability must lie strictly between 0 and 1",
        ),
        (["--p", "abc"], "--p: expected a number"),
        (["--tb", "-1ms"], "--tb"),
        (["--tb", "=-1ms"], "--tb: time '-1ms': a duration must not be negative"),
        (["--tb", "1 fortnight"], "--tb:"),
        (["--access", "125MB"], "--access:"),
        (["--access", "0MB/s"], "--access: rate '0MB/s': a rate must be positive"),
        (["--mss", "0B"], "--mss:"),
        (["--wm", "0"], "--wm: maximum window must be >= 1"),
        (["--rtt0", "0s"], "--rtt0: must be > 0"),
        (["--b", "3"], "--b: segments per ACK must be 1 or 2"),
    ],
)
def test_bad_throughput_input(
    argv: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [*THROUGHPUT, "--b", "1"]
    i = args.index(argv[0])
    if argv[1].startswith("="):  # --flag=value form, for values that start with "-"
        args[i : i + 2] = [argv[0] + argv[1]]
    else:
        args[i + 1] = argv[1]
    assert cli.main(args) == 2
    cap = capsys.readouterr()
    assert cap.out == ""
    lines = cap.err.strip().splitlines()
    assert len(lines) == 1, cap.err
    assert lines[0].startswith("burstlab model throughput: error: ")
    assert needle in lines[0]
    assert "Traceback" not in cap.err


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--out", "fig.pdf"], "--out: file name must end in .png or .svg"),
        (["--out", "/nonexistent-dir/fig.png"], "does not exist"),
        (["--p", "1e-3,,2"], "--p: expected a comma-separated list"),
        (["--p", "1e-3,2"], "--p: burst loss probability"),
        (["--tb-min", "1s", "--tb-max", "1ms"], "--tb-max"),
        (["--points", "x"], "--points"),
    ],
)
def test_bad_plot_input(
    extra: list[str], needle: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    base = [
        "model",
        "plot",
        "--p",
        "1e-3",
        "--access",
        "125MB/s",
        "--wm",
        "50",
        "--rtt0",
        "100ms",
        "--out",
        str(tmp_path / "f.png"),
    ]
    assert cli.main(base + extra) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0], err


def test_argparse_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        cli.main(["model", "throughput", "--p", "0.01"]) == 2
    )  # missing required options
    assert "required" in capsys.readouterr().err
    assert cli.main(["model", "throughput", *THROUGHPUT[2:], "--variant", "cubic"]) == 2
    assert cli.main(["model"]) == 2
    assert "choose a command" in capsys.readouterr().err
    assert cli.main([]) == 2


def test_add_parser_registers_on_foreign_parser(
    capsys: pytest.CaptureFixture[str],
) -> None:
    parser = argparse.ArgumentParser(prog="burstlab")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("run")
    model = cli.add_parser(sub)
    assert isinstance(model, argparse.ArgumentParser)
    args = parser.parse_args(THROUGHPUT)
    assert callable(args.func)
    assert args.func(args) == 0
    assert "sack" in capsys.readouterr().out


def test_cli_error_is_exception() -> None:
    assert issubclass(cli.CliError, Exception)
