"""Control-plane calls that need no container: the world's settings (scenario, clock, faults, events),
verification of the journal with near misses, reads that wait on the server (no polling loop in the
test), and namespaces (many isolated worlds on one server)."""

from __future__ import annotations

import json
import time
import uuid
from contextlib import contextmanager
from typing import Any, Iterator, Optional, Union

import requests

# The longest wait the server grants one read.
MAX_WAIT_SECONDS = 60.0


class ControlPlaneError(RuntimeError):
    """A control-plane call answered with an error status; ``status`` and ``body`` say which."""

    def __init__(self, method: str, path: str, status: int, body: str):
        super().__init__(f"{method} {path} answered {status}: {body}")
        self.status = status
        self.body = body


def describe_verification(outcome: dict) -> str:
    """A failed verification in words: what was expected and found, then each near miss with the
    fields in which it differed."""
    lines = [outcome.get("message", "verification failed")]
    for miss in outcome.get("nearMisses", []):
        entry = miss["entry"]
        fields = "; ".join(
            f"{d['field']}: expected {d['expected']}, was {d.get('actual') or 'nothing'}" for d in miss["differences"]
        )
        lines.append(f"  near miss {entry['id']} ({entry.get('method') or ''} {entry['endpoint']}, {entry['outcome']}): {fields}")
    return "\n".join(lines)


class JournalAssertions:
    """Assertions and waits on the journal, the outbox and the mailbox. Needs ``admin(method, path,
    json_body=…, params=…)`` (``ControlPlane`` and ``AppleIDMockContainer`` have it)."""

    def admin(self, method: str, path: str, *, json_body: Any = None, params: Optional[dict] = None) -> Any:
        raise NotImplementedError

    def verify(
        self,
        *,
        exactly: Optional[int] = None,
        at_least: Optional[int] = None,
        at_most: Optional[int] = None,
        wait_seconds: float = 0.0,
        since: Union[int, float, str, None] = None,
        **match: Any,
    ) -> dict:
        """Asserts that the journal holds entries matching ``match`` (``endpoint``, ``method``,
        ``grantType``, ``clientId``, ``user``, ``outcome``, ``status``, ``fault``,
        ``notificationType``, ``traceId``, …): ``exactly`` so many, or ``at_least`` / ``at_most``
        (default: at least one), waiting up to ``wait_seconds`` (at most 60) for it to hold. Raises
        ``AssertionError`` listing the count found and the near misses; returns the server's answer."""
        count = {"exactly": exactly} if exactly is not None else {}
        if at_least is not None:
            count["atLeast"] = at_least
        if at_most is not None:
            count["atMost"] = at_most
        body: dict = {"match": match, "waitSeconds": wait_seconds}
        if count:
            body["count"] = count
        if since is not None:
            body["since"] = since
        return self._verify(body)

    def verify_sequence(self, *steps: dict, wait_seconds: float = 0.0, since: Union[int, float, str, None] = None) -> dict:
        """Asserts that entries matching ``steps`` (dicts of match fields) came in this order (others
        may come between), waiting up to ``wait_seconds``; raises ``AssertionError`` naming the step
        not found and its near misses."""
        body: dict = {"sequence": list(steps), "waitSeconds": wait_seconds}
        if since is not None:
            body["since"] = since
        return self._verify(body)

    def _verify(self, body: dict) -> dict:
        try:
            return self.admin("POST", "journal/verify", json_body=body)
        except ControlPlaneError as error:
            if error.status != 422:
                raise
            raise AssertionError(describe_verification(json.loads(error.body))) from None

    def wait_for_journal(self, count: int = 1, wait_seconds: float = 10.0, **filters: Any) -> list:
        """The journal's entries matching ``filters``, once at least ``count`` do (the server answers
        as soon as they are there); raises ``TimeoutError`` after ``wait_seconds`` (at most 60)."""
        params = {k: v for k, v in filters.items() if v is not None}
        params.update(minCount=count, waitSeconds=min(wait_seconds, MAX_WAIT_SECONDS))
        answer = self.admin("GET", "journal", params=params)
        if not answer["reached"]:
            raise TimeoutError(f"{answer['matched']} journal entries match {filters}, expected {count}")
        return answer["entries"]

    def wait_for_notifications_settled(self, wait_seconds: float = 10.0) -> list:
        """Waits until no notification is pending, retrying or being delivered, and returns the
        outbox; raises ``TimeoutError`` after ``wait_seconds`` (at most 60)."""
        answer = self.admin(
            "GET", "notifications", params={"state": "settled", "waitSeconds": min(wait_seconds, MAX_WAIT_SECONDS)}
        )
        if not answer["settled"]:
            open_ones = [f"{n['type']} {n['id']}: {n['status']}" for n in answer["notifications"] if n["status"] in ("pending", "delivering")]
            raise TimeoutError(f"the outbox did not settle: {'; '.join(open_ones)}")
        return answer["notifications"]


class ConformanceFailed(AssertionError):
    """A backend conformance run found cases a CI job fails on (``FAIL`` or ``INCONCLUSIVE``);
    ``report`` is the run's report and ``failing`` those cases."""

    def __init__(self, report: dict, failing: list):
        lines = [f"backend conformance run {report.get('id')}: {len(failing)} case(s) failed"]
        if report.get("error"):
            lines.append(f"  the run stopped: {report['error']}")
        for case in failing:
            variant = f" [{case['variant']}]" if case.get("variant") else ""
            lines.append(f"  {case['verdict']} {case['path']} {case['id']}{variant}: {case['note']}")
        super().__init__("\n".join(lines))
        self.report = report
        self.failing = failing


def assert_conformant(report: dict) -> dict:
    """Raises ``ConformanceFailed`` naming every ``FAIL`` and ``INCONCLUSIVE`` case of ``report`` (a
    run that stopped with an error fails too); returns the report otherwise."""
    failing = [case for case in report.get("cases", []) if case["verdict"] in ("FAIL", "INCONCLUSIVE")]
    if failing or report.get("error"):
        raise ConformanceFailed(report, failing)
    return report


class ConformanceRuns:
    """Backend conformance runs: the mock attacks your backend's own sign-in endpoints with every
    defective Apple credential and reports what it wrongly accepted (docs/backend-conformance.md).
    Needs ``admin(method, path, json_body=…, params=…)``."""

    def admin(self, method: str, path: str, *, json_body: Any = None, params: Optional[dict] = None) -> Any:
        raise NotImplementedError

    def conformance(self, config: dict, timeout: float = 300.0) -> dict:
        """Runs ``config`` (the run's config: clientId, native / exchange / web, accepted, …) to its
        end and returns the report (``summary``, ``cases`` with each verdict); raises ``TimeoutError``
        if it has not finished within ``timeout`` seconds. Check it with ``assert_conformant``."""
        started = self.admin("POST", "conformance/runs", json_body=config)
        deadline = time.monotonic() + timeout
        while True:
            wait = max(0.0, min(MAX_WAIT_SECONDS, deadline - time.monotonic()))
            report = self.admin("GET", f"conformance/runs/{started['id']}", params={"waitSeconds": round(wait, 3)})
            if report["state"] == "finished":
                return report
            if time.monotonic() >= deadline:
                raise TimeoutError(f"conformance run {started['id']} still running after {timeout} s")

    def assert_conformant(self, config: dict, timeout: float = 300.0) -> dict:
        """Runs ``config`` and raises ``ConformanceFailed`` naming each failing case; returns the
        report when nothing failed."""
        return assert_conformant(self.conformance(config, timeout=timeout))


class ControlPlaneCalls(JournalAssertions, ConformanceRuns):
    """The control-plane calls a test needs most, on top of ``admin(method, path, json_body=…,
    params=…)``, and ``namespace()``, which also needs ``_namespace_root()``."""

    def switch_scenario(self, name: str) -> Any:
        """Make the bundled, mounted or uploaded scenario ``name`` the active one."""
        return self.admin("PUT", "scenario", json_body={"name": name})

    def upload_scenario(self, name: str, scenario: Union[dict, str], *, activate: bool = False) -> Any:
        """Upload a scenario (a dict, or a file's JSON text) as ``name``; ``activate`` switches to it."""
        body = json.loads(scenario) if isinstance(scenario, str) else scenario
        params = {"name": name, "activate": "true" if activate else "false"}
        return self.admin("POST", "scenarios", json_body=body, params=params)

    def reset(self) -> Any:
        """Forget consents, codes and tokens of the session (the scenario stays)."""
        return self.admin("POST", "reset")

    def account_event(self, event_type: str, user: str, app_group: Optional[str] = None) -> Any:
        """Apply a lifecycle event now: ``consent-revoked``, ``account-delete``,
        ``email-disabled`` or ``email-enabled`` (all but ``account-delete`` name an app group)."""
        body = {"type": event_type, "user": user}
        if app_group is not None:
            body["appGroup"] = app_group
        return self.admin("POST", "events", json_body=body)

    def advance_clock(self, seconds: int) -> Any:
        """Move the mock's clock by ``seconds`` (negative: back); codes and tokens expire on it."""
        return self.admin("POST", "clock", json_body={"advanceSeconds": int(seconds)})

    def set_clock(self, now: Union[int, float, str]) -> Any:
        """Set the mock's clock to an instant: epoch seconds or ISO 8601."""
        return self.admin("POST", "clock", json_body={"now": now})

    def clock(self) -> dict:
        """The mock's clock: ``now`` (epoch seconds), ``offsetSeconds``, ``frozen``."""
        return self.admin("GET", "clock")

    def reset_clock(self) -> Any:
        """Back to the wall clock, running."""
        return self.admin("POST", "clock", json_body={"reset": True})

    def journal(self, **filters: Any) -> list:
        """The journal's entries, newest first; filters as the API names them
        (``endpoint``, ``clientId``, ``user``, ``outcome``, ``since``, ``limit``)."""
        answer = self.admin("GET", "journal", params={k: v for k, v in filters.items() if v is not None})
        return answer.get("entries", []) if isinstance(answer, dict) else answer

    def notifications(self) -> list:
        """The server-to-server notification outbox, with every delivery attempt."""
        answer = self.admin("GET", "notifications")
        return answer.get("notifications", []) if isinstance(answer, dict) else answer


    # --- the private email relay's mailbox

    def relay_address(self, user: str, app_group: str) -> str:
        """The relay address ``user`` has with ``app_group``'s current team (from ``/__admin/users``)."""
        for entry in self.admin("GET", "users")["users"]:
            if entry["key"] == user:
                for group in entry["appGroups"]:
                    if group["appGroupId"] == app_group:
                        return group["relayEmail"]
        raise LookupError(f"no user {user} with app group {app_group}")

    def mail(self, **filters: Any) -> list:
        """The relay's mailbox, newest first: each message sent to a relay address (``outcome``
        ``relayed`` or the refusal, with ``reason``) and each reply; filters ``user``, ``team``,
        ``outcome``, ``direction``, ``limit``."""
        return self.admin("GET", "mail", params={k: v for k, v in filters.items() if v is not None})["entries"]

    def wait_for_mail(self, count: int = 1, timeout: float = 10.0, **filters: Any) -> list:
        """The mailbox entries matching ``filters`` once ``count`` do: the server answers as soon as
        they are there (``waitSeconds``, at most 60), without polling."""
        params = {k: v for k, v in filters.items() if v is not None}
        params.update(minCount=count, waitSeconds=min(timeout, MAX_WAIT_SECONDS))
        answer = self.admin("GET", "mail", params=params)
        if not answer["reached"]:
            raise TimeoutError(f"{answer['matched']} mailbox entries match {filters}, expected {count}")
        return answer["entries"]

    def raw_mail(self, mail_id: str) -> str:
        """The message as the relay delivered it to the user's real address."""
        return self.admin("GET", f"mail/{mail_id}/raw")

    def reply_to_mail(self, mail_id: str, text: str) -> Any:
        """Reply as the user (from the relay address to the original sender) via ``smtp_outbound``."""
        return self.admin("POST", f"mail/{mail_id}/reply", json_body={"text": text})

    # --- fault rules ---------------------------------------------------------------------------

    def add_fault(self, **rule: Any) -> dict:
        """Make Apple fail on demand: a rule as ``POST /__admin/faults`` reads it (``endpoint``,
        ``status``, ``error``, ``latencyMilliseconds``, ``drop``, ``times``, …); returns the rule."""
        return self.admin("POST", "faults", json_body=rule)

    def faults(self) -> list:
        """The fault rules, each with how often it matched and fired."""
        answer = self.admin("GET", "faults")
        return answer["faults"]

    def clear_faults(self) -> Any:
        """Remove every fault rule."""
        return self.admin("DELETE", "faults")

    def client_secret(self, client_id: str, *, lifetime: Optional[int] = None, team: Optional[str] = None) -> str:
        """A valid ``client_secret`` for ``client_id`` on the mock's clock, made by the control plane
        with the bundled developer key of its team (``POST /__admin/client-secret``)."""
        body: dict = {"clientId": client_id}
        if lifetime is not None:
            body["lifetimeSeconds"] = int(lifetime)
        if team is not None:
            body["teamId"] = team
        return self.admin("POST", "client-secret", json_body=body)["clientSecret"]

    # --- namespaces ------------------------------------------------------------------------------

    def _namespace_root(self) -> "tuple[str, Optional[str], Union[bool, str]]":
        """The server's base URL without a namespace prefix, its admin token, and the TLS check."""
        raise NotImplementedError

    def namespaces(self) -> list:
        """Every namespace of the server (``default`` first), with its scenario, clients, last use
        and counts."""
        return self.admin("GET", "namespaces")["namespaces"]

    @contextmanager
    def namespace(
        self,
        name: Optional[str] = None,
        *,
        scenario: Optional[str] = None,
        identities: Optional[str] = None,
        clients: Optional[list] = None,
        idle_ttl_seconds: Optional[int] = None,
    ) -> Iterator["Namespace"]:
        """A fresh namespace for the ``with`` block: made (``PUT /__admin/namespaces/{name}``, named
        ``name`` or a random UUID), handed over as a ``Namespace`` (its ``name``, its base URL ``url``
        = ``…/ns/{name}`` for the backend under test, and its ``control_plane``), and deleted with
        all its state when the block ends, also when it raises. ``scenario``, ``identities``
        (``own`` or ``shared``), ``clients`` and ``idle_ttl_seconds`` are the ``PUT`` body's fields."""
        name = name if name is not None else str(uuid.uuid4())
        root, admin_token, verify_tls = self._namespace_root()
        server = ControlPlane(root, admin_token, verify_tls)
        body: dict = {}
        if scenario is not None:
            body["scenario"] = scenario
        if identities is not None:
            body["identities"] = identities
        if clients is not None:
            body["clients"] = list(clients)
        if idle_ttl_seconds is not None:
            body["idleTtlSeconds"] = int(idle_ttl_seconds)
        path = f"namespaces/{_segment(name)}"
        info = server.admin("PUT", path, json_body=body)
        try:
            yield Namespace(name, ControlPlane(root, admin_token, verify_tls, namespace=name), info)
        except BaseException:
            # The block's error is the one to see; the deletion is tried all the same.
            try:
                _delete_namespace(server, path)
            except Exception:  # noqa: BLE001 - reported by the block's error instead
                pass
            raise
        _delete_namespace(server, path)


def _delete_namespace(server: "ControlPlane", path: str) -> None:
    """Deletes a namespace; one already gone (the block deleted it, or the server's housekeeping) is
    not an error."""
    try:
        server.admin("DELETE", path)
    except ControlPlaneError as error:
        if error.status != 404:
            raise


def _segment(text: str) -> str:
    """``text`` as one path segment (a name the server refuses stays one, so its refusal names it)."""
    return requests.utils.quote(text, safe="")


class ControlPlane(ControlPlaneCalls):
    """The control plane of an apple-id-mock reached at ``url`` (a server you started yourself, or
    a shared one), with ``admin_token`` when it has one. With ``namespace`` it works in that
    namespace: every call goes to ``{url}/ns/{namespace}/__admin/…``."""

    def __init__(
        self,
        url: str,
        admin_token: Optional[str] = None,
        verify_tls: Union[bool, str] = True,
        *,
        namespace: Optional[str] = None,
    ):
        self.root_url = url.rstrip("/")
        self.namespace_name = namespace
        self.url = self.root_url + (f"/ns/{_segment(namespace)}" if namespace is not None else "")
        self.admin_token = admin_token
        self.verify_tls = verify_tls

    def _namespace_root(self) -> "tuple[str, Optional[str], Union[bool, str]]":
        return self.root_url, self.admin_token, self.verify_tls

    def admin(self, method: str, path: str, *, json_body: Any = None, params: Optional[dict] = None) -> Any:
        """One control-plane call (``path`` under ``/__admin/``); returns the JSON answer (the text
        of one that is not JSON, None for an empty one) and raises ``ControlPlaneError`` on an error
        status."""
        return admin_call(
            method, self.url, path, root=self.root_url, token=self.admin_token, verify=self.verify_tls,
            json_body=json_body, params=params)


def admin_call(
    method: str,
    base: str,
    path: str,
    *,
    root: str,
    token: Optional[str],
    verify: Union[bool, str],
    json_body: Any = None,
    params: Optional[dict] = None,
) -> Any:
    """One control-plane call to ``{base}/__admin/{path}`` (``base``: the server's ``root`` or a
    namespace's URL under it); returns the JSON answer (the text of one that is not JSON, None for
    an empty one) and raises ``ControlPlaneError``, naming the path under ``root``, on an error
    status."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    url = f"{base}/__admin/{path.lstrip('/')}"
    answer = requests.request(method, url, json=json_body, params=params, headers=headers, timeout=90, verify=verify)
    if answer.status_code >= 400:
        raise ControlPlaneError(method, url[len(root):], answer.status_code, answer.text)
    if not answer.content:
        return None
    try:
        return answer.json()
    except json.JSONDecodeError:
        return answer.text


class Namespace:
    """One namespace of a server, made by ``namespace()``: its ``name``, its base URL ``url``
    (``{server}/ns/{name}``: give it to the backend under test in place of
    ``https://appleid.apple.com``; Apple's endpoints and the control plane answer under it), its
    ``control_plane`` (a ``ControlPlane`` working in it), ``headers`` (the header that names it, for
    calls to the server's unprefixed URLs) and ``info`` (the server's view of it when made)."""

    HEADER = "X-Apple-ID-Mock-Namespace"

    def __init__(self, name: str, control_plane: ControlPlane, info: Any = None):
        self.name = name
        self.control_plane = control_plane
        self.url = control_plane.url
        self.path_prefix = control_plane.url[len(control_plane.root_url):]
        self.headers = {self.HEADER: name}
        self.info = info

    def __repr__(self) -> str:
        return f"Namespace({self.name!r}, url={self.url!r})"
