"""The dashboard's Mail tab: how to turn SMTP on when it is off; with SMTP on, relayed and refused
messages with the reason, the raw message, and a reply sent as the user to the team's SMTP server."""

import smtplib

import pytest
from selenium.webdriver.common.by import By

from conftest import MockServer, Sink, click, open_dashboard, patient, wait, wait_result


def test_the_mail_tab_says_how_to_turn_smtp_on(mock, browser):
    open_dashboard(browser, mock)
    status = wait(browser, lambda d: d.find_element(By.ID, "mail-status").text, "the mail status shows")
    assert "SMTP is off" in status and "--smtp-port 2525" in status and "APPLE_ID_MOCK_SMTP_PORT" in status
    assert browser.find_element(By.ID, "mail-empty").is_displayed()


@pytest.fixture
def relay():
    pytest.importorskip("aiosmtpd.controller")
    sink = Sink()
    server = MockServer("--smtp-port", "0", "--smtp-outbound", f"127.0.0.1:{sink.port}")
    server.sink = sink
    yield server
    server.stop()
    sink.stop()


def test_relayed_and_refused_mail_and_a_reply_as_the_user(relay, browser):
    credential = relay.admin("POST", "/__admin/native/authorize",
                             {"clientId": "com.example.app", "user": "sam", "scopes": ["name", "email"]})
    address = credential["email"]
    with smtplib.SMTP("127.0.0.1", relay.smtp_port, timeout=patient(15)) as client:
        client.sendmail("news@example.com", [address],
                        f"From: Example News <news@example.com>\r\nTo: <{address}>\r\nSubject: Welcome aboard\r\n\r\nHi!\r\n")
        with pytest.raises(smtplib.SMTPRecipientsRefused):
            client.sendmail("spam@unregistered.example", [address], "Subject: x\r\n\r\nx\r\n")
    open_dashboard(browser, relay)
    browser.get(relay.url + "/__admin/#mail")
    wait(browser, lambda d: "listening on port" in d.find_element(By.ID, "mail-status").text, "SMTP shows as on")
    senders = wait(browser, lambda d: "Registered senders" in d.find_element(By.ID, "mail-status").text
                   and d.find_element(By.ID, "mail-status").text, "the registered senders show")
    assert "Example Corp (DEF123GHIJ): example.com, receipts@payments.example.net" in senders
    assert "Other Studio (XYZ789KLMN): none" in senders
    relayed = "#mail-table tr[data-outcome=relayed]"
    refused = "#mail-table tr[data-outcome=unauthorized_sender]"
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, relayed) and d.find_elements(By.CSS_SELECTOR, refused),
         "both attempts are listed")
    row = browser.find_element(By.CSS_SELECTOR, relayed).text
    assert "Welcome aboard" in row and "sam.lee@example.org" in row and address in row
    reason = browser.find_element(By.CSS_SELECTOR, refused).text
    assert "550 5.1.1 <spam@unregistered.example>: unauthorized sender" in reason
    assert "not registered for team DEF123GHIJ" in reason
    raw = browser.find_element(By.CSS_SELECTOR, f"{relayed} a").get_attribute("href")
    assert raw.endswith("/raw")
    # Reply as the user, from the row.
    field = browser.find_element(By.CSS_SELECTOR, f"{relayed} input[name=text]")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", field)
    field.send_keys("Thanks, see you soon")
    click(browser, By.CSS_SELECTOR, f"{relayed} button")
    wait_result(browser, "mail", f"Reply sent from {address} to news@example.com", seconds=10)
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#mail-table tr[data-outcome=sent]"), "the reply is listed")
    wait(browser, lambda d: relay.sink.messages, "the team's SMTP server got the reply", seconds=10)
    assert relay.sink.messages[0].mail_from == address
    assert relay.sink.messages[0].rcpt_tos == ["news@example.com"]
