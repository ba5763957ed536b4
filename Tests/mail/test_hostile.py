"""Hostile SMTP clients: every one gets a well-formed reply, and the server's memory stays bounded."""

import socket
import time

from conftest import Mock, Raw, message, patient


def test_fifty_megabytes_of_data_is_refused_with_552_and_memory_stays_bounded(mock):
    relay = mock.hide_my_email("sam")
    before = mock.rss_kb()
    raw = Raw(mock)
    raw.send(f"EHLO me\r\nMAIL FROM:<news@example.com>\r\nRCPT TO:<{relay}>\r\nDATA\r\n".encode())
    assert raw.reply()[-1].startswith(b"250 ")
    assert raw.reply()[0].startswith(b"250 ")
    assert raw.reply()[0].startswith(b"250 ")
    assert raw.reply()[0].startswith(b"354 ")
    chunk = (b"X" * 998 + b"\r\n") * 1024  # 1 MB
    for _ in range(50):
        raw.send(chunk)
    raw.send(b".\r\n")
    assert raw.reply()[0].startswith(b"552 5.3.4")
    raw.send(b"QUIT\r\n")
    assert raw.reply()[0].startswith(b"221 ")
    raw.close()
    assert mock.rss_kb() - before < 40_000, "50 MB of DATA grew the server by more than 40 MB"


def test_ten_thousand_recipients_pipelined(mock):
    relay = mock.hide_my_email("sam")
    raw = Raw(mock)
    raw.send(b"EHLO me\r\nMAIL FROM:<news@example.com>\r\n" + f"RCPT TO:<{relay}>\r\n".encode() * 10_000)
    assert raw.reply()[-1].startswith(b"250 ")
    assert raw.reply()[0].startswith(b"250 ")
    codes = [raw.reply()[0][:3] for _ in range(10_000)]
    # The same recipient again is accepted again and delivered once.
    assert set(codes) == {b"250"}
    raw.send(b"RSET\r\nMAIL FROM:<news@example.com>\r\n" + b"".join(
        f"RCPT TO:<x{n}@example.com>\r\n".encode() for n in range(101)))
    assert raw.reply()[0].startswith(b"250 ")
    assert raw.reply()[0].startswith(b"250 ")
    codes = [raw.reply()[0][:3] for _ in range(101)]
    # Unknown addresses are refused and do not count toward the 100 recipients.
    assert set(codes) == {b"550"}
    raw.send(b"RSET\r\nQUIT\r\n")
    assert raw.reply()[0].startswith(b"250 ")
    assert raw.reply()[0].startswith(b"221 ")
    raw.close()


def test_bare_lf_commands_are_read_but_bare_lf_data_is_refused(mock):
    relay = mock.hide_my_email("sam")
    raw = Raw(mock)
    raw.send(f"HELO me\nMAIL FROM:<news@example.com>\nRCPT TO:<{relay}>\nDATA\n".encode())
    assert [raw.reply()[0][:3] for _ in range(4)] == [b"250", b"250", b"250", b"354"]
    body = message(to=relay).replace(b"\r\n", b"\n")
    # A bare-LF "." does not end the data (no SMTP smuggling); CRLF "." does, and the bare LFs refuse it.
    raw.send(body + b".\nsmuggled\r\n.\r\n")
    assert raw.reply() == [b"550 5.6.0 Error: bare <LF> in the message; lines end with <CR><LF>"]
    raw.send(b"QUIT\n")
    assert raw.reply()[0].startswith(b"221")
    assert mock.mail() == []


def test_overlong_line_and_garbage_get_replies_then_421(mock):
    raw = Raw(mock)
    raw.send(b"A" * 100_000 + b"\r\n")
    assert raw.reply()[0].startswith(b"500 5.5.2")
    raw.send(b"\x00\xff\xfe GARBAGE\r\n" * 30)
    codes = []
    try:
        while True:
            codes.append(raw.reply()[0][:3])
    except (ConnectionError, OSError):
        pass
    # NUL and 8-bit: a fixed 501 that quotes nothing.
    assert codes[-1] == b"421" and set(codes[:-1]) == {b"501"}


def test_pipelining_without_reading_replies_is_bounded(mock):
    before = mock.rss_kb()
    raw = Raw(mock)
    raw.socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    payload = b"NOOP\r\n" * 40_000
    # The client pushes until the connection closes or a send has been blocked 5 s (the server
    # stopped reading). That is the hostile client's own persistence, not a wait for an event:
    # it is not scaled by the patience, and decides nothing; the memory and the replies do.
    raw.socket.settimeout(5)
    sent = 0
    try:
        while sent < 20:
            raw.send(payload)
            sent += 1
    except (socket.timeout, OSError):
        pass
    raw.socket.settimeout(patient(3))
    assert mock.rss_kb() - before < 40_000
    codes = set()
    try:
        while True:
            codes.add(raw.reply()[0][:3])
    except socket.timeout:
        raise AssertionError(f"the server went quiet without closing the connection; replies so far: {codes}")
    except (ConnectionError, OSError):
        pass  # the server closed it
    assert codes <= {b"250", b"421"}
    raw.close()


def test_silent_client_gets_421_after_the_idle_timeout():
    mock = Mock("--smtp-port", "0", "--idle-timeout", "0.5")
    try:
        raw = Raw(mock, seconds=10)
        started = time.monotonic()
        assert raw.reply()[0].startswith(b"421 4.4.2")
        assert time.monotonic() - started < patient(10)
        raw.close()
    finally:
        mock.stop()


def test_slow_client_still_served_and_server_answers_others(mock):
    raw = Raw(mock)
    for byte in b"NOOP\r\n":
        raw.send(bytes([byte]))
        time.sleep(0.05)
    assert raw.reply()[0].startswith(b"250 ")
    other = Raw(mock)
    other.send(b"QUIT\r\n")
    assert other.reply()[0].startswith(b"221")
    raw.close()


def test_shutdown_says_421_to_open_connections():
    mock = Mock("--smtp-port", "0")
    try:
        raw = Raw(mock)
        mock.process.terminate()
        assert raw.reply()[0].startswith(b"421 4.3.2")
        raw.close()
    finally:
        mock.stop()
