// The example page: configure Sign in with Apple JS (it renders the button into #appleid-signin),
// then hand a successful authorization to our backend, which exchanges and verifies it.

const config = JSON.parse(document.getElementById("sign-in-config").textContent);
const status = document.getElementById("status");
const result = document.getElementById("result");

function show(text, details) {
  status.textContent = text;
  result.hidden = details === undefined;
  result.textContent = details === undefined ? "" : JSON.stringify(details, null, 2);
}

AppleID.auth.init(config);

// Popup mode: signIn()'s answer, also dispatched as events (the button uses these).
document.addEventListener("AppleIDSignInOnSuccess", async (event) => {
  show("Checking the sign-in with the server…");
  const answer = await fetch("/auth/apple/popup", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(event.detail.data),
  });
  const body = await answer.json();
  if (!answer.ok) {
    show(`Sign-in failed: ${body.error}`, body);
    return;
  }
  show(`Signed in as ${body.name?.firstName ?? body.sub}`, body);
});

document.addEventListener("AppleIDSignInOnFailure", (event) => {
  show(`Sign-in failed: ${event.detail.error}`, event.detail);
});
