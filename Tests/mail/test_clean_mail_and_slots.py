"""The relay writes only clean mail and cannot be starved: no header injection through
decoded names, no raw bytes in headers, fair connection slots, a mailbox that refusals cannot
flush, envelope addresses by RFC 5321's grammar. Each case checks the stored and delivered bytes."""

import base64
import time

from conftest import Mock, Raw, marker, smtp, wait_forwarded, wait_until


def header_section(content):
    return content.split(b"\r\n\r\n", 1)[0]


def assert_clean(section):
    """Every header line is printable ASCII (or a folding tab), and ends in CRLF only."""
    for line in section.split(b"\r\n"):
        assert all(32 <= byte <= 126 or byte == 9 for byte in line), line


def send(mock, data, to, sender="news@example.com", **options):
    with smtp(mock) as client:
        return client.sendmail(sender, [to], data, **options)


def test_an_encoded_name_decoding_to_crlf_adds_no_header_line(mock, sink):
    relay = mock.hide_my_email("sam")
    name = base64.b64encode(b"Receipts\r\nFrom: evil@evil.test\r\nX-Injected: yes").decode()
    mark = marker()
    data = (f"From: =?utf-8?B?{name}?= <receipts@payments.example.net>\r\nTo: <{relay}>\r\n"
            f"Subject: {mark}\r\n\r\nbody\r\n").encode()
    assert send(mock, data, relay) == {}
    [forwarded] = wait_forwarded(sink, mark)
    [entry] = mock.wait_mail(1, outcome="relayed")
    stored = mock.call("GET", f"/__admin/mail/{entry['id']}/raw").text
    for content in (forwarded.content, stored.encode()):
        section = header_section(content)
        lines = section.split(b"\r\n")
        assert not any(line.startswith(b"X-Injected") for line in lines)
        assert [line for line in lines if line.lower().startswith(b"from:")] == [
            b'From: "Receipts From: evil@evil.test X-Injected: yes" <'
            + entry["rewrittenFrom"].split("<")[1].encode()]
        assert_clean(section)


def test_nul_and_utf8_names_are_written_back_as_encoded_words(mock, sink):
    relay = mock.hide_my_email("sam")
    nul = base64.b64encode("A\x00B".encode()).decode()
    one, two = marker(), marker()
    data = (f"From: =?utf-8?B?{nul}?= <news@example.com>\r\nTo: <{relay}>\r\nSubject: {one}\r\n\r\nbody\r\n").encode()
    assert send(mock, data, relay) == {}
    data = (f"From: Élégant Café <news@example.com>\r\nTo: <{relay}>\r\nSubject: {two}\r\n\r\nbody\r\n").encode()
    assert send(mock, data, relay, mail_options=["BODY=8BITMIME"]) == {}
    [first] = wait_forwarded(sink, one)
    [second] = wait_forwarded(sink, two)
    assert b'From: "A B" <news_at_example_com_' in first.content and b"\x00" not in first.content
    section = header_section(second.content)
    assert b"From: =?UTF-8?B?" in section
    assert_clean(section.split(b"\r\nTo:")[0])


def test_a_nul_in_the_ehlo_name_is_refused_and_received_stays_clean(mock, sink):
    relay = mock.hide_my_email("sam")
    raw = Raw(mock)
    assert raw.command(b"EHLO a\x00b") == [
        b"501 5.5.2 Error: command with bytes other than printable ASCII (CR, NUL, 8-bit...)"]
    raw.command("EHLO client.example")
    raw.command("MAIL FROM:<news@example.com>")
    raw.command(f"RCPT TO:<{relay}>")
    raw.command("DATA")
    mark = marker()
    raw.send(f"From: <news@example.com>\r\nTo: <{relay}>\r\nSubject: {mark}\r\n\r\nbody\r\n.\r\n".encode())
    assert raw.reply()[0].startswith(b"250 ")
    raw.close()
    [forwarded] = wait_forwarded(sink, mark)
    assert forwarded.content.startswith(b"Received: from client.example by privaterelay.appleid.com")
    assert_clean(header_section(forwarded.content))


def test_envelope_addresses_follow_rfc_5321(mock, sink):
    relay = mock.hide_my_email("sam")
    raw = Raw(mock)
    raw.command("EHLO me")
    assert raw.command("MAIL FROM:<evil@evil.test@example.com>")[0].startswith(b"501 5.5.4")
    assert raw.command('MAIL FROM:<"john doe"@example.com>')[0].startswith(b"250 ")
    assert raw.command(f"RCPT TO:<{relay}@example.com>")[0].startswith(b"501 5.5.4")
    assert raw.command(f"RCPT TO:<{relay}>")[0].startswith(b"250 ")
    raw.command("DATA")
    mark = marker()
    raw.send(f'From: "john doe"@example.com\r\nTo: <{relay}>\r\nSubject: {mark}\r\n\r\nbody\r\n.\r\n'.encode())
    assert raw.reply()[0].startswith(b"250 ")
    raw.close()
    [entry] = mock.wait_mail(1, outcome="relayed")
    assert entry["envelopeSender"] == '"john doe"@example.com'
    [forwarded] = wait_forwarded(sink, mark)
    assert forwarded.mail_from == '"john doe"@example.com'


def test_a_flood_of_refusals_does_not_flush_relayed_mail(mock):
    relay = mock.hide_my_email("sam")
    assert send(mock, f"From: <news@example.com>\r\nTo: <{relay}>\r\n\r\nkeep me\r\n".encode(), relay) == {}
    raw = Raw(mock, seconds=120)
    raw.send(b"EHLO me\r\nMAIL FROM:<news@example.com>\r\n" + b"".join(
        f"RCPT TO:<nobody{n}@privaterelay.appleid.com>\r\n".encode() for n in range(1_100)))
    raw.reply()
    raw.reply()
    codes = {raw.reply()[0][:3] for _ in range(1_100)}
    assert codes == {b"550"}
    raw.close()
    assert len(mock.mail(outcome="relayed")) == 1
    assert len(mock.mail(outcome="user_not_found", limit=1000)) == 1000


def test_noop_does_not_keep_a_slot():
    mock = Mock("--smtp-port", "0", "--idle-timeout", "1")
    try:
        raw = Raw(mock)
        raw.command("EHLO me")
        started = time.monotonic()
        replies = []

        def told_to_go():
            """A NOOP (a client that keeps talking without moving on); its reply once it is not
            250, or "closed" when the connection is gone without one."""
            try:
                replies.append(raw.command("NOOP"))
            except (ConnectionError, OSError):
                return "closed"
            return replies[-1] if not replies[-1][0].startswith(b"250 ") else None

        # A NOOP every quarter of a second until the server tells the client to go (the idle
        # timeout, 1 s, bounds talk without progress as it bounds silence).
        reply = wait_until(told_to_go, 10, interval=0.25)
        assert reply != "closed", f"closed without a reply after {replies}"
        assert reply and reply[0].startswith(b"421 4.4.2") and b"no progress" in reply[0]
        assert time.monotonic() - started >= 1
        raw.close()
    finally:
        mock.stop()


def test_idle_connections_give_their_slots_to_new_clients():
    mock = Mock("--smtp-port", "0")
    try:
        idle = [Raw(mock) for _ in range(64)]
        refused = []

        def admitted():
            """A new client, once the server gives it a slot; None while it answers 421 4.7.0."""
            client = Raw(mock, greeting=None)
            if client.greeting[0].startswith(b"220 "):
                return client
            refused.append(client.greeting)
            client.close()
            return None

        # Every slot is taken: a new client is turned away until the connection longest without
        # progress has gone a second (the grace) without it, then it takes that slot. Asked again
        # until then, it is served as soon as the grace is over.
        fresh = wait_until(admitted, 10, interval=0.1)
        assert fresh, f"no slot was given to a new client: {refused[-1:]}"
        assert all(greeting[0].startswith(b"421 4.7.0") for greeting in refused), refused
        assert fresh.command("EHLO me")[-1].startswith(b"250 ")
        assert fresh.command("QUIT") == [b"221 2.0.0 Bye"]
        # The idle connection that gave its slot was told 421 4.4.2, the others nothing. The server
        # answers a connection's commands in order: a NOOP's reply is the marker that nothing came
        # before it, and a 421 written to a connection comes before anything it answers later.
        told = []
        for connection in idle:
            try:
                connection.send(b"NOOP\r\n")
            except OSError:
                pass  # closed after its 421, which is still to be read
            first = connection.reply()[0]
            if first.startswith(b"421 4.4.2"):
                told.append(first)
            else:
                assert first == b"250 2.0.0 Ok", first
            connection.close()
        assert len(told) == 1, told
        assert b"slot given to a new client" in told[0]
    finally:
        mock.stop()
