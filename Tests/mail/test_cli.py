"""The relay's flags and variables: checked at start-up with a message naming the flag, a taken
port refused in one line, the variable read like the flag."""

import socket
import subprocess

from conftest import BINARY, ROOT, Mock, patient, server_environment


def serve(*arguments, env=None):
    """`apple-id-mock serve` run to its end (these refuse to start), as the launcher would start it."""
    return subprocess.run([BINARY, "serve", "--port", "0", *arguments], cwd=ROOT, env=server_environment(env),
                          capture_output=True, text=True, timeout=patient(30))


def test_bad_values_are_refused_naming_the_flag():
    bad_port = serve("--smtp-port", "70000")
    assert bad_port.returncode != 0 and "SMTP port must be 0...65535, found 70000" in bad_port.stderr
    bad_forward = serve("--smtp-port", "0", "--smtp-forward", "mailpit")
    assert bad_forward.returncode != 0 and "--smtp-forward must be host:port" in bad_forward.stderr
    bad_variable = serve(env={"APPLE_ID_MOCK_SMTP_OUTBOUND": "localhost:x"})
    assert bad_variable.returncode != 0 and "--smtp-outbound must be host:port" in bad_variable.stderr


def test_a_taken_port_stops_start_up_with_one_line():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = serve("--smtp-port", str(port))
    assert result.returncode == 1
    assert f"apple-id-mock: cannot listen for SMTP on 127.0.0.1:{port} (--smtp-port)" in result.stderr


def test_the_variable_turns_smtp_on():
    mock = Mock(env={"APPLE_ID_MOCK_SMTP_PORT": "0"})
    try:
        assert mock.smtp_port > 0
    finally:
        mock.stop()
