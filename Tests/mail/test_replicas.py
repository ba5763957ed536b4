"""Two replicas on one PostgreSQL database share the mailbox: mail taken by one is listed by the other,
and a reply sent through the second is kept for both."""

import os
import smtplib

import pytest

from conftest import Mock, message, smtp

POSTGRES = os.environ.get("APPLE_ID_MOCK_TEST_POSTGRES_URL")


@pytest.mark.skipif(not POSTGRES, reason="set APPLE_ID_MOCK_TEST_POSTGRES_URL (scripts/postgres-test-cluster.sh)")
def test_replicas_share_the_mailbox(sink):
    first = Mock("--smtp-port", "0", "--state", POSTGRES, "--smtp-outbound", f"127.0.0.1:{sink.port}")
    second = Mock("--smtp-port", "0", "--state", POSTGRES, "--smtp-outbound", f"127.0.0.1:{sink.port}")
    try:
        first.admin("POST", "/__admin/reset")
        sink.messages.clear()
        relay = first.hide_my_email("sam")
        with smtp(first) as client:
            client.sendmail("news@example.com", [relay], message(to=relay))
        [entry] = second.wait_mail(1, outcome="relayed")
        assert entry["recipient"] == relay
        with smtp(second) as client:
            with pytest.raises(smtplib.SMTPRecipientsRefused):
                client.sendmail("nobody@elsewhere.example", [relay], message(to=relay))
        assert {e["outcome"] for e in first.wait_mail(2)} == {"relayed", "unauthorized_sender"}
        reply = second.admin("POST", f"/__admin/mail/{entry['id']}/reply", {"text": "from replica two"})
        assert reply["outcome"] == "sent"
        assert any(e["direction"] == "reply" for e in first.wait_mail(3))
    finally:
        first.stop()
        second.stop()
