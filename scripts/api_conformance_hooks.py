"""schemathesis hooks of scripts/api-conformance.sh (loaded through SCHEMATHESIS_HOOKS).

Waiting reads (`waitSeconds`, up to 60 on GET /__admin/journal, /notifications, /mail and
POST /__admin/journal/verify) hold a request until their count is reached: a generated value near
60 would hold each example for a minute. The fuzzer checks the answers' shape and status, which a
short wait shows as well, so its waits are capped at a fraction of a second.
"""

import schemathesis

CAP_SECONDS = 0.05


def _capped(value):
    """A number above the cap, or a string that reads as one (the coverage phase sends its
    boundary values already serialised, as `"60"`), becomes the cap; anything else (a negative
    test's `"abc"`, `-1`, `true`) is left for the server to refuse."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return CAP_SECONDS if value > CAP_SECONDS else value
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return value
        if number == number and number > CAP_SECONDS and value.strip().replace(".", "", 1).isdigit():
            return str(CAP_SECONDS)
    return value


@schemathesis.hook
def before_call(context, case, kwargs):
    """Every call, in every phase (the coverage phase's boundary values do not pass through the
    generation hooks, and a `waitSeconds=60` held its request past the client's timeout)."""
    if isinstance(case.query, dict) and "waitSeconds" in case.query:
        case.query["waitSeconds"] = _capped(case.query["waitSeconds"])
    if isinstance(case.body, dict) and "waitSeconds" in case.body:
        case.body["waitSeconds"] = _capped(case.body["waitSeconds"])
