"""The commands docs/mail-relay.md and the README show, run as written (ports made free)."""

import re
import shlex
import subprocess

from conftest import ROOT, Mock, patient


def blocks(path):
    return re.findall(r"```sh\n(.*?)```", (ROOT / path).read_text(), re.S)


def serve_arguments(line):
    """The flags of a shown `apple-id-mock serve …` line, with free ports instead of fixed ones."""
    words = shlex.split(line.split("#")[0])
    assert words[:2] == ["apple-id-mock", "serve"], line
    arguments, rest = [], words[2:]
    while rest:
        word = rest.pop(0)
        if word == "--port":  # the fixture already passes --port 0
            rest.pop(0)
            continue
        arguments.append("0" if word == "2525" else word)
    return arguments


def test_the_docs_walkthrough_runs():
    [serve, walkthrough] = blocks("docs/mail-relay.md")
    mock = Mock(*serve_arguments(serve.strip()))
    try:
        script = walkthrough.replace("http://127.0.0.1:8080", mock.url).replace(
            "127.0.0.1:2525", f"127.0.0.1:{mock.smtp_port}")
        run = subprocess.run(["bash", "-euo", "pipefail", "-c", script], capture_output=True, text=True,
                             timeout=patient(60))
        assert run.returncode == 0, run.stdout + run.stderr
        assert "250 2.0.0 Ok: queued as" in run.stdout
        assert "550 5.1.1 <news@mailer.example.org>: unauthorized sender" in run.stdout
        assert '"outcome" : "unauthorized_sender"' in run.stdout and '"outcome" : "relayed"' in run.stdout
        assert "Delivered-To: sam.lee@example.org" in run.stdout
    finally:
        mock.stop()


def test_the_readme_line_starts_the_relay():
    section = (ROOT / "README.md").read_text().split("## For backend teams: test the mail you send", 1)[1]
    line = re.search(r"```sh\n(apple-id-mock serve[^\n]*)\n```", section).group(1)
    mock = Mock(*serve_arguments(line))
    try:
        assert mock.smtp_port > 0
        answer = mock.call("GET", "/__admin/mail")
        assert answer.status == 200 and answer.json["smtp"] == {"listening": True, "port": mock.smtp_port}
    finally:
        mock.stop()
