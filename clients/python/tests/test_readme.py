"""The README's pytest example, run as it is written (its namespace example runs in
test_namespaces.py, against a server without a container)."""

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_readme_example_passes(image):
    blocks = [b for b in re.findall(r"```python\n(.*?)```", README.read_text(), re.S) if "def test_" in b]
    assert len(blocks) == 1, "the README has one pytest example"
    namespace = {}
    exec(compile(blocks[0].replace("apple-id-mock:local", image), str(README), "exec"), namespace)
    tests = [value for name, value in namespace.items() if name.startswith("test_")]
    assert len(tests) == 1
    tests[0]()
