"""Hostile SMTP clients: every one gets a well-formed reply, and the server's memory stays bounded."""

import socket
import time

from conftest import Mock, message


def rss_kb(mock):
    with open(f"/proc/{mock.process.pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


class Raw:
    """A raw SMTP connection: bytes out, reply lines in."""

    def __init__(self, mock, timeout=30):
        self.socket = socket.create_connection(("127.0.0.1", mock.smtp_port), timeout=timeout)
        self.buffer = b""
        assert self.reply()[0].startswith(b"220 ")

    def send(self, data):
        self.socket.sendall(data)

    def line(self):
        while b"\n" not in self.buffer:
            chunk = self.socket.recv(65536)
            if not chunk:
                raise ConnectionError("closed: " + self.buffer.decode(errors="replace"))
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.rstrip(b"\r")

    def reply(self):
        lines = [self.line()]
        while lines[-1][3:4] == b"-":
            lines.append(self.line())
        return lines

    def close(self):
        self.socket.close()


def test_fifty_megabytes_of_data_is_refused_with_552_and_memory_stays_bounded(mock):
    relay = mock.hide_my_email("sam")
    before = rss_kb(mock)
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
    assert rss_kb(mock) - before < 40_000, "50 MB of DATA grew the server by more than 40 MB"


def test_ten_thousand_recipients_pipelined(mock):
    relay = mock.hide_my_email("sam")
    raw = Raw(mock)
    raw.send(b"EHLO me\r\nMAIL FROM:<news@example.com>\r\n" + f"RCPT TO:<{relay}>\r\n".encode() * 10_000)
    assert raw.reply()[-1].startswith(b"250 ")
    assert raw.reply()[0].startswith(b"250 ")
    codes = [raw.reply()[0][:3] for _ in range(10_000)]
    assert codes[:100] == [b"250"] * 100
    assert set(codes[100:]) == {b"452"}
    raw.send(b"RSET\r\nQUIT\r\n")
    assert raw.reply()[0].startswith(b"250 ")
    assert raw.reply()[0].startswith(b"221 ")
    raw.close()


def test_bare_lf_commands_and_data(mock):
    relay = mock.hide_my_email("sam")
    raw = Raw(mock)
    raw.send(f"HELO me\nMAIL FROM:<news@example.com>\nRCPT TO:<{relay}>\nDATA\n".encode())
    assert [raw.reply()[0][:3] for _ in range(4)] == [b"250", b"250", b"250", b"354"]
    body = message(to=relay).replace(b"\r\n", b"\n")
    # A bare-LF "." does not end the data (no SMTP smuggling); CRLF "." does.
    raw.send(body + b".\nsmuggled\n.\r\n")
    assert raw.reply()[0].startswith(b"250 2.0.0 Ok")
    raw.send(b"QUIT\n")
    assert raw.reply()[0].startswith(b"221")
    [entry] = mock.wait_mail(1, outcome="relayed")
    status, text = mock.call("GET", f"/__admin/mail/{entry['id']}/raw")
    assert "\r\nsmuggled\r\n" in text


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
    assert codes[-1] == b"421" and set(codes[:-1]) == {b"502"}


def test_pipelining_without_reading_replies_is_bounded(mock):
    before = rss_kb(mock)
    raw = Raw(mock)
    raw.socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    payload = b"NOOP\r\n" * 40_000
    raw.socket.settimeout(5)
    sent = 0
    try:
        while sent < 20:
            raw.send(payload)
            sent += 1
    except (socket.timeout, OSError):
        pass
    raw.socket.settimeout(3)
    assert rss_kb(mock) - before < 40_000
    codes = set()
    try:
        while True:
            codes.add(raw.reply()[0][:3])
    except (ConnectionError, OSError):
        pass
    assert codes <= {b"250", b"421"}
    raw.close()


def test_silent_client_gets_421_after_the_idle_timeout():
    mock = Mock("--smtp-port", "0", "--idle-timeout", "0.5")
    try:
        raw = Raw(mock)
        started = time.time()
        assert raw.reply()[0].startswith(b"421 4.4.2")
        assert time.time() - started < 10
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
