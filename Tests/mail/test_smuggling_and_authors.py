"""The relay under attack: no SMTP smuggling, `From` read as RFC 5322 reads it, the daily
limit and memory held with many recipients, replies that never echo raw bytes. Each case checks
the reply and what the mailbox (and the forward sink) holds."""

import smtplib

import pytest

from conftest import Mock, Raw, forwarded, marker, smtp, wait_forwarded

SMUGGLED = (b"MAIL FROM:<evil@evil.test>\r\nRCPT TO:<{relay}>\r\nDATA\r\nFrom: evil@evil.test\r\n"
            b"Subject: smuggled\r\n\r\nsmuggled\r\n")


@pytest.fixture
def own(sink):
    """A server of the test's own (its settings change), forwarding to the sink."""
    mock = Mock("--smtp-port", "0", "--smtp-forward", f"127.0.0.1:{sink.port}")
    sink.messages.clear()
    yield mock
    mock.stop()


def open_data(mock, relay, sender="news@example.com"):
    """A raw connection that is in DATA for `relay`."""
    raw = Raw(mock)
    assert raw.command("EHLO client.example")[-1].startswith(b"250 ")
    assert raw.command(f"MAIL FROM:<{sender}>")[0].startswith(b"250 ")
    assert raw.command(f"RCPT TO:<{relay}>")[0].startswith(b"250 ")
    assert raw.command("DATA")[0].startswith(b"354 ")
    return raw


def headers(relay, sender="news@example.com", subject="hi"):
    return f"From: News <{sender}>\r\nTo: <{relay}>\r\nSubject: {subject}\r\n\r\n".encode()


@pytest.mark.parametrize("end", [b"\n.\r\n", b"\r\n.\n", b"\r.\r\n", b"\n.\n", b"\r\n.\r"])
def test_smuggling_a_second_transaction_after_a_bare_line_end_is_refused(mock, sink, end):
    relay = mock.hide_my_email("sam")
    mark = marker()
    raw = open_data(mock, relay)
    raw.send(headers(relay, subject=mark) + b"body" + end + SMUGGLED.replace(b"{relay}", relay.encode())
             + b".\r\n")
    # One answer for the one transaction: a refusal; the smuggled commands were data.
    [reply] = raw.reply()
    assert reply.startswith(b"550 5.6.0 Error: bare <")
    assert raw.command("QUIT") == [b"221 2.0.0 Bye"]
    raw.close()
    assert mock.mail() == [] and forwarded(sink, mark) == [] and forwarded(sink, "smuggled") == []


def test_dot_stuffing_is_undone_exactly(mock, sink):
    relay = mock.hide_my_email("sam")
    mark = marker()
    raw = open_data(mock, relay)
    raw.send(headers(relay, subject=mark) + b"..one dot\r\n...two dots\r\n..\r\n. space\r\nend\r\n.\r\n")
    assert raw.reply()[0].startswith(b"250 2.0.0 Ok: queued as ")
    raw.close()
    [entry] = mock.wait_mail(1, outcome="relayed")
    stored = mock.call("GET", f"/__admin/mail/{entry['id']}/raw").text
    assert stored.endswith("\r\n\r\n.one dot\r\n..two dots\r\n.\r\n space\r\nend\r\n")
    [message] = wait_forwarded(sink, mark)
    assert message.content.endswith(b"\r\n\r\n.one dot\r\n..two dots\r\n.\r\n space\r\nend\r\n")


def test_a_line_over_1000_octets_is_refused_and_1000_passes(mock):
    relay = mock.hide_my_email("sam")
    raw = open_data(mock, relay)
    raw.send(headers(relay) + b"x" * 999 + b"\r\n.\r\n")
    assert raw.reply()[0].startswith(b"552 5.6.0 Error: a message line is longer than 1000 octets")
    raw.send(b"MAIL FROM:<news@example.com>\r\n")
    assert raw.reply()[0].startswith(b"250")
    raw.send(f"RCPT TO:<{relay}>\r\nDATA\r\n".encode())
    assert raw.reply()[0].startswith(b"250") and raw.reply()[0].startswith(b"354")
    raw.send(headers(relay) + b"x" * 998 + b"\r\n.\r\n")
    assert raw.reply()[0].startswith(b"250 ")
    raw.close()
    [entry] = mock.wait_mail(1)
    assert entry["outcome"] == "relayed"


def send(mock, data, to, sender="news@example.com"):
    with smtp(mock) as client:
        return client.sendmail(sender, [to], data)


AUTHOR_CASES = {
    "two From headers, the registered first": (
        "From: <receipts@payments.example.net>\r\nFrom: evil@evil.test", "2 From headers"),
    "a comment hiding the real address": (
        "From: evil@evil.test (<receipts@payments.example.net>)", "evil@evil.test is not registered"),
    "a comment after the real address": (
        "From: <evil@evil.test> (via <receipts@payments.example.net>)", "evil@evil.test is not registered"),
    "folded across lines": (
        "From: evil@evil.test\r\n (<receipts@payments.example.net>)", "evil@evil.test is not registered"),
    "a quoted local part": (
        'From: "<receipts@payments.example.net>"@evil.test', "@evil.test is not registered"),
    "two mailboxes without Sender": (
        "From: receipts@payments.example.net, evil@evil.test", "no Sender header"),
    "the obsolete 'From :' beside a registered From": (
        "From: receipts@payments.example.net\r\nFrom : evil@evil.test", "2 From headers"),
    "a Sender that is not registered": (
        "From: receipts@payments.example.net, news@example.com\r\nSender: evil@evil.test",
        "Sender header evil@evil.test is not registered"),
    "two addresses in a row": ("From: evil@evil.test@example.com", "not an RFC 5322 address list"),
}


@pytest.mark.parametrize("case", AUTHOR_CASES, ids=list(AUTHOR_CASES))
def test_the_real_author_is_read_and_refused(mock, sink, case):
    header, reason = AUTHOR_CASES[case]
    relay = mock.hide_my_email("sam")
    mark = marker()
    data = f"{header}\r\nTo: <{relay}>\r\nSubject: {mark}\r\n\r\nbody\r\n".encode()
    with pytest.raises(smtplib.SMTPDataError) as refused:
        send(mock, data, relay)
    assert refused.value.smtp_code == 550
    [entry] = mock.wait_mail(1)
    assert entry["outcome"] == "unauthorized_sender" and reason in entry["reason"], entry["reason"]
    assert entry["hasRaw"] and forwarded(sink, mark) == []


def test_a_bare_cr_in_the_header_hiding_a_second_address_is_refused(mock, sink):
    relay = mock.hide_my_email("sam")
    mark = marker()
    raw = open_data(mock, relay)
    raw.send(b"From: <receipts@payments.example.net>\rFrom: evil@evil.test\r\nSubject: " + mark.encode()
             + b"\r\n\r\nbody\r\n.\r\n")
    assert raw.reply()[0].startswith(b"550 5.6.0 Error: bare <CR>")
    raw.close()
    assert mock.mail() == [] and forwarded(sink, mark) == []


def test_several_authors_with_a_registered_sender_are_relayed_each_rewritten(mock, sink):
    relay = mock.hide_my_email("sam")
    mark = marker()
    data = (f"From: Receipts <receipts@payments.example.net>, (team) news@example.com\r\n"
            f"Sender: news@example.com\r\nTo: <{relay}>\r\nSubject: {mark}\r\n\r\nbody\r\n").encode()
    assert send(mock, data, relay) == {}
    [message] = wait_forwarded(sink, mark)
    from_lines = [line for line in message.content.split(b"\r\n\r\n")[0].split(b"\r\n") if line.startswith(b"From:")]
    assert len(from_lines) == 1
    assert b'"Receipts" <receipts_at_payments_example_net_' in message.content
    assert b'"news@example.com" <news_at_example_com_' in message.content


def test_one_hundred_copies_of_a_recipient_and_a_large_body_count_once_and_memory_stays_bounded(own, sink):
    mock = own
    relay = mock.hide_my_email("sam")
    mock.admin("PATCH", "/__admin/settings", {"mailDailyLimit": 2})
    body = (b"y" * 98 + b"\r\n") * 99_000  # 9.9 MB
    peak_before = mock.peak_kb()
    for attempt in range(3):
        raw = Raw(mock, seconds=120)
        raw.send(b"EHLO me\r\nMAIL FROM:<news@example.com>\r\n" + f"RCPT TO:<{relay}>\r\n".encode() * 100
                 + b"DATA\r\n")
        replies = [raw.reply() for _ in range(103)]
        codes = [reply[0][:3] for reply in replies[1:]]
        if attempt < 2:
            assert codes == [b"250"] * 101 + [b"354"]
            raw.send(headers(relay) + body + b".\r\n")
            assert raw.reply()[0].startswith(b"250 2.0.0")
        else:
            # The limit is checked at RCPT TO: the day's two messages were counted once each.
            assert codes[1] == b"550" and b"daily limit of 2" in replies[2][0]
        raw.close()
    entries = mock.wait_mail(2, outcome="relayed")
    assert len(entries) == 2
    summary = mock.admin("GET", "/__admin/mail")["mailbox"]
    assert summary["keptMessages"] == 2 and summary["keptBytes"] < 21_000_000
    assert mock.peak_kb() - peak_before < 300_000, "two 9.9 MB messages to 100 recipients peaked over 300 MB more"
    assert len(sink.wait(2)) >= 2


def test_the_mailbox_stays_within_mailbox_max_bytes_oldest_dropped_and_counted(own):
    mock = own
    relay = mock.hide_my_email("sam")
    mock.admin("PATCH", "/__admin/settings", {"mailboxMaxBytes": 1_048_576})
    body = ("z" * 98 + "\r\n") * 3_000
    for _ in range(5):
        assert send(mock, headers(relay) + body.encode(), relay) == {}
    entries = mock.wait_mail(5)
    summary = mock.admin("GET", "/__admin/mail")["mailbox"]
    assert summary == {"keptMessages": 3, "keptBytes": summary["keptBytes"], "maxBytes": 1_048_576,
                       "droppedMessages": 2, "droppedBytes": summary["droppedBytes"]}
    assert summary["keptBytes"] <= 1_048_576 and summary["droppedBytes"] > 600_000
    assert mock.call("GET", f"/__admin/mail/{entries[0]['id']}/raw").status == 200
    problem = mock.call("GET", f"/__admin/mail/{entries[-1]['id']}/raw")
    assert problem.status == 404 and "mailboxMaxBytes" in problem.json["message"]


@pytest.mark.parametrize("command", [
    b"RCPT TO:<a\rb@evil.test>", b"MAIL FROM:<a@example.com> A\r250-FAKE", b"MAIL FROM:<a\x00@example.com>",
    b"NOOP \x7f", b"EHLO caf\xc3\xa9", b"EHLO \xc3\x28", b"VRFY \xff\xfe",
])
def test_commands_with_raw_bytes_get_a_fixed_501_that_quotes_nothing(mock, command):
    raw = Raw(mock)
    raw.command("EHLO me")
    raw.command("MAIL FROM:<news@example.com>") if not command.startswith(b"MAIL") else None
    raw.send(command + b"\r\n")
    reply = raw.reply()
    assert reply == [b"501 5.5.2 Error: command with bytes other than printable ASCII (CR, NUL, 8-bit...)"]
    assert raw.command("NOOP") == [b"250 2.0.0 Ok"]
    raw.close()


def test_quoted_parameters_are_printable_ascii_only(mock):
    raw = Raw(mock)
    raw.command("EHLO me")
    reply = raw.command(b"MAIL FROM:<news@example.com> X-" + b"A" * 200 + b"=1")
    assert len(reply) == 1 and reply[0].startswith(b"555 5.5.4 Unsupported option: X-AAA") and len(reply[0]) < 120
    raw.close()
