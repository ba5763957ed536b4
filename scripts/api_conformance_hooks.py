"""schemathesis hooks of scripts/api-conformance.sh (loaded through SCHEMATHESIS_HOOKS).

Waiting reads (`waitSeconds`, up to 60 on GET /__admin/journal, /notifications, /mail and
POST /__admin/journal/verify) hold a request until their count is reached: a generated value near
60 would hold each example for a minute. The fuzzer checks the answers' shape and status, which a
short wait shows as well, so its waits are capped at a fraction of a second.
"""

import schemathesis

CAP_SECONDS = 0.05


def _capped(value):
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > CAP_SECONDS:
        return CAP_SECONDS
    return value


@schemathesis.hook
def map_query(context, query):
    if isinstance(query, dict) and "waitSeconds" in query:
        query["waitSeconds"] = _capped(query["waitSeconds"])
    return query


@schemathesis.hook
def map_body(context, body):
    if isinstance(body, dict) and "waitSeconds" in body:
        body["waitSeconds"] = _capped(body["waitSeconds"])
    return body
