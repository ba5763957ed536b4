"""Apple's relay rules end to end, with Python's smtplib as the sending backend."""

import smtplib

import pytest

from conftest import EXAMPLE_TEAM, OTHER_TEAM, message, smtp, wait_until


def send(mock, sender, to, data=None, **kwargs):
    with smtp(mock) as client:
        return client.sendmail(sender, [to], data or message(sender=sender, to=to), **kwargs)


def test_registered_sender_is_relayed_rewritten_and_forwarded(mock, sink):
    relay = mock.hide_my_email("sam")
    assert relay.endswith("@privaterelay.appleid.com")
    assert send(mock, "news@example.com", relay) == {}
    [entry] = mock.wait_mail(1, user="sam")
    assert entry["outcome"] == "relayed"
    assert entry["recipient"] == relay and entry["deliveredTo"] == "sam.lee@example.org"
    assert entry["envelopeSender"] == "news@example.com" and entry["teamId"] == EXAMPLE_TEAM
    assert entry["subject"] == "Welcome" and entry["from"] == "Example News <news@example.com>"
    assert entry["rewrittenFrom"].startswith('"Example News" <news_at_example_com_')
    raw = mock.call("GET", f"/__admin/mail/{entry['id']}/raw")
    assert raw.status == 200 and "Delivered-To: sam.lee@example.org" in raw.text and "Hello from the app." in raw.text
    assert "From: Example News <news@example.com>" not in raw.text
    [forwarded] = sink.wait(1)
    assert forwarded.rcpt_tos == ["sam.lee@example.org"]
    assert b"Delivered-To: sam.lee@example.org" in forwarded.content
    # The entry notes the forward's outcome once the sink has answered: "ok".
    outcome = wait_until(lambda: mock.admin("GET", f"/__admin/mail/{entry['id']}").get("forward"), 10)
    assert outcome == "ok"


def test_registered_single_address_is_relayed(mock):
    relay = mock.hide_my_email("sam")
    assert send(mock, "receipts@payments.example.net", relay) == {}
    assert mock.wait_mail(1, outcome="relayed")


def test_unregistered_envelope_sender_is_refused_with_apples_text(mock):
    relay = mock.hide_my_email("sam")
    with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
        send(mock, "bounces@mailer.example.org", relay)
    code, text = refused.value.recipients[relay]
    assert code == 550 and text.decode() == "5.1.1 <bounces@mailer.example.org>: unauthorized sender"
    [entry] = mock.wait_mail(1, outcome="unauthorized_sender")
    assert "not registered for team" in entry["reason"]


def test_unregistered_from_header_is_refused_after_data(mock):
    relay = mock.hide_my_email("sam")
    with pytest.raises(smtplib.SMTPDataError) as refused:
        send(mock, "news@example.com", relay, message(sender="ceo@elsewhere.example", to=relay))
    assert refused.value.smtp_code == 550 and b"unauthorized sender" in refused.value.smtp_error
    [entry] = mock.wait_mail(1, outcome="unauthorized_sender")
    assert "From header" in entry["reason"]


def test_relay_address_of_the_other_team_is_refused(mock):
    relay = mock.hide_my_email("sam", client="com.otherstudio.app")
    with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
        send(mock, "news@example.com", relay)
    assert refused.value.recipients[relay][0] == 550
    [entry] = mock.wait_mail(1, team=OTHER_TEAM)
    assert entry["outcome"] == "unauthorized_sender"
    assert f"registered for team {EXAMPLE_TEAM}, not for team {OTHER_TEAM}" in entry["reason"]


def test_unknown_address_is_user_not_found(mock):
    unknown = "zzzzzzzzzz@privaterelay.appleid.com"
    with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
        send(mock, "news@example.com", unknown)
    assert refused.value.recipients[unknown] == (550, f"5.1.1 <{unknown}>: user not found".encode())


def test_forwarding_off_then_on_takes_effect_at_once(mock):
    relay = mock.hide_my_email("sam")
    mock.admin("POST", "/__admin/events", {"type": "email-disabled", "user": "sam", "appGroup": "example"})
    with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
        send(mock, "news@example.com", relay)
    assert refused.value.recipients[relay][1].endswith(b"user not found")
    assert "turned relay forwarding off" in mock.wait_mail(1, outcome="user_not_found")[0]["reason"]
    mock.admin("POST", "/__admin/events", {"type": "email-enabled", "user": "sam", "appGroup": "example"})
    assert send(mock, "news@example.com", relay) == {}


def test_deleted_account_is_user_not_found(mock):
    relay = mock.hide_my_email("sam")
    mock.admin("POST", "/__admin/events", {"type": "account-delete", "user": "sam"})
    with pytest.raises(smtplib.SMTPRecipientsRefused):
        send(mock, "news@example.com", relay)
    assert "deleted" in mock.wait_mail(1, outcome="user_not_found")[0]["reason"]


def test_app_transfer_gives_a_new_address_and_the_old_one_stops(mock):
    old = mock.hide_my_email("sam")
    mock.admin("POST", "/__admin/transfers", {"appGroup": "example", "toTeam": OTHER_TEAM})
    new = mock.relay_address("sam")
    assert new != old
    with pytest.raises(smtplib.SMTPRecipientsRefused):
        send(mock, "news@example.com", old)
    # The new team registered no senders: the old team's sender is refused for it.
    with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
        send(mock, "news@example.com", new)
    assert refused.value.recipients[new][1].endswith(b"unauthorized sender")


def test_daily_limit_per_relay_address_on_the_mock_clock(mock):
    relay = mock.hide_my_email("sam")
    mock.admin("PATCH", "/__admin/settings", {"mailDailyLimit": 2})
    try:
        assert send(mock, "news@example.com", relay) == {}
        assert send(mock, "news@example.com", relay) == {}
        with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
            send(mock, "news@example.com", relay)
        assert refused.value.recipients[relay][1].endswith(b"daily limit of 2 messages reached")
        mock.admin("POST", "/__admin/clock", {"advanceSeconds": 86400})
        assert send(mock, "news@example.com", relay) == {}
    finally:
        mock.admin("PATCH", "/__admin/settings", {"mailDailyLimit": 100})


def test_dkim_signature_of_a_registered_domain_when_required(mock):
    relay = mock.hide_my_email("sam")
    mock.admin("PATCH", "/__admin/settings", {"mailRequireDkimSignature": True})
    try:
        with pytest.raises(smtplib.SMTPDataError) as refused:
            send(mock, "news@example.com", relay)
        assert b"DKIM" in refused.value.smtp_error
        signed = message(to=relay, extra="DKIM-Signature: v=1; a=rsa-sha256; d=example.com; s=s1; b=AAAA\r\n")
        assert send(mock, "news@example.com", relay, signed) == {}
    finally:
        mock.admin("PATCH", "/__admin/settings", {"mailRequireDkimSignature": False})


def test_mailbox_filters_and_journal(mock):
    relay = mock.hide_my_email("sam")
    send(mock, "news@example.com", relay)
    with pytest.raises(smtplib.SMTPRecipientsRefused):
        send(mock, "x@unregistered.example", relay)
    assert {e["outcome"] for e in mock.wait_mail(2, user="sam")} == {"relayed", "unauthorized_sender"}
    assert len(mock.mail(team=EXAMPLE_TEAM, outcome="relayed")) == 1
    assert mock.mail(user="maria") == []
    problem = mock.call("GET", "/__admin/mail?colour=blue")
    assert problem.status == 400 and "unknown filter" in problem.json["message"]
    journal = mock.admin("GET", "/__admin/journal?endpoint=smtp")["entries"]
    assert {(e["method"], e["outcome"]) for e in journal} >= {("DATA", "ok"), ("RCPT", "unauthorized_sender")}


def test_reply_from_the_user_goes_to_the_original_sender(mock, sink):
    relay = mock.hide_my_email("sam")
    send(mock, "news@example.com", relay)
    [entry] = mock.wait_mail(1, outcome="relayed")
    sink.wait(1)
    reply = mock.admin("POST", f"/__admin/mail/{entry['id']}/reply", {"text": "Thanks, got it!"})
    assert reply["direction"] == "reply" and reply["outcome"] == "sent"
    assert reply["envelopeSender"] == relay and reply["recipient"] == "news@example.com"
    [_, sent] = sink.wait(2)
    assert sent.mail_from == relay and sent.rcpt_tos == ["news@example.com"]
    assert b"Subject: Re: Welcome" in sent.content and b"Thanks, got it!" in sent.content
    assert b"In-Reply-To: <" in sent.content
    refusal = mock.call("POST", f"/__admin/mail/{reply['id']}/reply", {"text": "again"})
    assert refusal.status == 409 and refusal.json["error"] == "not_applicable"


def test_unregistered_sender_silently_dropped_when_the_setting_says_so(mock, sink):
    relay = mock.hide_my_email("sam")
    mock.admin("PATCH", "/__admin/settings", {"mailUnregisteredSenders": "drop"})
    try:
        assert send(mock, "bounces@mailer.example.org", relay) == {}
        [entry] = mock.wait_mail(1, outcome="dropped")
        assert entry["smtpReply"].startswith("250 2.0.0 Ok: queued as") and "never delivered" in entry["reason"]
        assert sink.messages == []
    finally:
        mock.admin("PATCH", "/__admin/settings", {"mailUnregisteredSenders": "bounce"})
