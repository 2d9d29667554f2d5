"""``zerosum serve``: its options and a clear error for an address it cannot use."""

from __future__ import annotations

import socket
import subprocess
import sys

import httpx
import pytest
from waiting import HANG_S

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


def test_max_searches_is_checked(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--max-searches", "0"]) == 2
    assert "0 is out of range: expected 1 or more" in capsys.readouterr().err


def test_a_reachable_host_warns_and_names_are_checked() -> None:
    process = subprocess.Popen(
        [
            *(sys.executable, "-m", "zerosum", "serve", "--host", "0.0.0.0", "--port", "0"),
            *("--allow-host", "board.example", "--max-searches", "1"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None and process.stderr is not None
        warning = process.stderr.readline()
        assert warning.startswith("zerosum: warning: listening on 0.0.0.0")
        assert "no login" in warning and "board.example" in warning
        line = process.stdout.readline()
        port = int(line.split("http://0.0.0.0:", 1)[1].split("/")[0])
        url = f"http://127.0.0.1:{port}/api/health"
        for host, status in [
            (f"127.0.0.1:{port}", 200),
            (f"board.example:{port}", 200),
            (f"evil.example:{port}", 400),
        ]:
            response = httpx.get(url, headers={"host": host}, timeout=HANG_S)
            assert response.status_code == status, host
        assert httpx.get(url, timeout=HANG_S).json()["max_searches"] == 1
    finally:
        process.terminate()
        process.wait(timeout=HANG_S)
