"""Real mail clients against the relay: Django's SMTP backend, Debian's swaks, STARTTLS with the
bundled test certificate."""

import shutil
import ssl
import subprocess

import pytest

from conftest import ROOT, Mock, patient, smtp


def test_django_send_mail_over_smtp(mock, sink):
    import django
    from django.conf import settings

    if not settings.configured:
        settings.configure(EMAIL_BACKEND="django.core.mail.backends.smtp.EmailBackend")
        django.setup()
    from django.core.mail import get_connection, send_mail

    relay = mock.hide_my_email("sam")
    connection = get_connection(host="127.0.0.1", port=mock.smtp_port, timeout=patient(15))
    sent = send_mail("Your receipt", "Thanks for your order – 42 €", "Example Shop <shop@example.com>", [relay],
                     connection=connection)
    assert sent == 1
    [entry] = mock.wait_mail(1, outcome="relayed")
    assert entry["subject"] == "Your receipt" and entry["envelopeSender"] == "shop@example.com"
    assert sink.wait(1)[0].rcpt_tos == ["sam.lee@example.org"]


@pytest.mark.skipif(shutil.which("swaks") is None, reason="apt-get install swaks")
def test_swaks_relayed_and_refused(mock):
    relay = mock.hide_my_email("sam")
    ok = subprocess.run(
        ["swaks", "--server", f"127.0.0.1:{mock.smtp_port}", "--from", "news@example.com", "--to", relay,
         "--header", "Subject: swaks test", "--body", "hi"], capture_output=True, text=True, timeout=patient(30))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "250 2.0.0 Ok: queued as" in ok.stdout
    refused = subprocess.run(
        ["swaks", "--server", f"127.0.0.1:{mock.smtp_port}", "--from", "spam@nowhere.example", "--to", relay],
        capture_output=True, text=True, timeout=patient(30))
    assert refused.returncode != 0
    assert "550 5.1.1 <spam@nowhere.example>: unauthorized sender" in refused.stdout
    assert {e["outcome"] for e in mock.wait_mail(2)} == {"relayed", "unauthorized_sender"}


@pytest.fixture(scope="module")
def tls_mock():
    mock = Mock("--smtp-port", "0", "--tls")
    yield mock
    mock.stop()


def test_starttls_with_the_bundled_certificate(tls_mock):
    context = ssl.create_default_context(cafile=str(ROOT / "keys/tls/ca.pem"))
    with smtp(tls_mock) as client:
        client.ehlo("client.example")
        assert client.has_extn("starttls")
        client.starttls(context=context)
        client.ehlo("client.example")
        assert not client.has_extn("starttls")
        unknown = "nobodyhere@privaterelay.appleid.com"
        code, text = client.mail("news@example.com")
        assert code == 250
        code, text = client.rcpt(unknown)
        assert code == 550 and b"user not found" in text
