"""The dashboard's "Discovery issuer drift" preset in a real browser: one click makes discovery
name https://account.apple.com (Apple's June 2025 drift) while tokens keep
https://appleid.apple.com, and the Settings section shows it, where it is undone."""

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from conftest import claims, click, open_dashboard, wait, wait_result

PRESET = "Discovery issuer drift (June 2025): discovery says account.apple.com, tokens keep appleid.apple.com"


def test_the_drift_preset_changes_discovery_only_and_settings_undo_it(mock, browser):
    assert mock.call("GET", "/.well-known/openid-configuration").json["issuer"] == "https://appleid.apple.com"
    open_dashboard(browser, mock)
    click(browser, By.XPATH, f"//button[normalize-space()='{PRESET}']")
    wait_result(browser, "faults", "Set discoveryIssuer to https://account.apple.com")

    assert mock.call("GET", "/.well-known/openid-configuration").json["issuer"] == "https://account.apple.com"
    assert mock.admin("GET", "/__admin/settings")["discoveryIssuer"] == "https://account.apple.com"
    # Tokens are not touched: a sign-in still gets Apple's issuer.
    minted = mock.admin("POST", "/__admin/mint/id-token", {"user": "maria", "clientId": "com.example.web"})
    assert claims(minted["token"])["iss"] == "https://appleid.apple.com"

    # The Settings section shows the switch and turns it back.
    wait(browser, lambda d: Select(d.find_element(By.ID, "setting-discoveryIssuer")).first_selected_option.text
         == "https://account.apple.com", "the Settings section shows the drift")
    Select(browser.find_element(By.ID, "setting-discoveryIssuer")).select_by_visible_text("https://appleid.apple.com")
    click(browser, By.CSS_SELECTOR, "#settings-form button[type=submit]")
    wait(browser, lambda d: mock.call("GET", "/.well-known/openid-configuration").json["issuer"]
         == "https://appleid.apple.com", "discovery names Apple's issuer again")
