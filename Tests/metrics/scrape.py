"""Scrapes an apple-id-mock's /metrics as Prometheus would and checks counts given as JSON.

Usage: scrape.py URL TOKEN EXPECTATIONS_JSON
EXPECTATIONS_JSON is a list of [sample name, {labels}, expected value]; every sample must be
present with exactly that value. Prints the samples checked; exits 1 naming the first mismatch.
"""

import json
import sys
import urllib.request

from prometheus_client.parser import text_string_to_metric_families


def main():
    url, token, expectations = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=20) as response:
        content_type = response.headers["Content-Type"]
        text = response.read().decode()
    assert content_type.startswith("text/plain; version=0.0.4"), content_type
    samples = {}
    families = 0
    for family in text_string_to_metric_families(text):
        families += 1
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    for name, labels, expected in expectations:
        found = samples.get((name, tuple(sorted(labels.items()))))
        if found != expected:
            print(f"{name}{labels}: expected {expected}, found {found}")
            sys.exit(1)
        print(f"{name}{labels} = {found}")
    print(f"{families} metric families parsed")


if __name__ == "__main__":
    main()
