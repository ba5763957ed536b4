"""Control-plane calls that need no container: verification of the journal with near misses, and
reads that wait on the server (no polling loop in the test)."""

from __future__ import annotations

import json
from typing import Any, Optional, Union

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


class ControlPlane(JournalAssertions):
    """The control plane of an apple-id-mock reached at ``url`` (a server you started yourself, or
    a shared one), with ``admin_token`` when it has one."""

    def __init__(self, url: str, admin_token: Optional[str] = None, verify_tls: Union[bool, str] = True):
        self.url = url.rstrip("/")
        self.admin_token = admin_token
        self.verify_tls = verify_tls

    def admin(self, method: str, path: str, *, json_body: Any = None, params: Optional[dict] = None) -> Any:
        """One control-plane call (``path`` under ``/__admin/``); returns the JSON answer and raises
        ``ControlPlaneError`` on an error status."""
        headers = {"Authorization": f"Bearer {self.admin_token}"} if self.admin_token else {}
        url = f"{self.url}/__admin/{path.lstrip('/')}"
        answer = requests.request(
            method, url, json=json_body, params=params, headers=headers, timeout=90, verify=self.verify_tls
        )
        if answer.status_code >= 400:
            raise ControlPlaneError(method, f"/__admin/{path.lstrip('/')}", answer.status_code, answer.text)
        return answer.json() if answer.content else None
