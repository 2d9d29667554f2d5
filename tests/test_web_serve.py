"""``zerosum serve``: its options and a clear error for an address it cannot use."""

from __future__ import annotations

import socket

import pytest

from zerosum.cli import main


def test_port_in_use(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"zerosum: error: cannot listen on 127.0.0.1:{port}")
    assert "expected a free port (--port)" in err and err.count("\n") == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--port", "70000"], "70000 is out of range: expected a port 0..65535"),
        (["--port", "http"], "'http' is not a whole number"),
        (
            ["--host", "192.0.2.1"],
            "cannot listen on 192.0.2.1:8000 (Cannot assign requested address)",
        ),
    ],
)
def test_bad_options(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("zerosum: error:") and message in err
