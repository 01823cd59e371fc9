"""pytest plugin: every tolproof check a test makes (tolproof.check,
tolproof.testing.assert_contract, the tolproof_check fixture) is attached
to that test's report, as JSON (`tolproof check --json`'s text):

- report.user_properties gets ("tolproof", JSON) per check, which
  `pytest --junitxml` writes as <property name="tolproof" value="..."/>;
- report.sections gets ("tolproof CONTRACT", JSON), shown with a failure
  and available to other plugins.

Loaded by the entry point when the package is installed (pytest11), or
with `pytest -p tolproof.pytest_plugin`. The marker
@pytest.mark.tolproof(contract) documents which contract a test checks
and is recorded with its results.
"""
import json

import pytest

import tolproof
from tolproof.testing import assert_contract


def pytest_configure(config):
    config.addinivalue_line("markers", "tolproof(contract): the test checks tensors against this tolproof contract")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    seen = []
    if call.when == "call":
        seen = getattr(item, "_tolproof_results", [])
        marker = item.get_closest_marker("tolproof")
        if marker and marker.args:
            item.user_properties.append(("tolproof_contract", str(marker.args[0])))
        for js in seen:
            item.user_properties.append(("tolproof", js))
    outcome = yield
    report = outcome.get_result()
    for js in seen:
        try:
            name = json.loads(js).get("contract", "?")
        except ValueError:
            name = "?"
        report.sections.append(("tolproof %s" % name, js))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    item._tolproof_results = []
    observer = item._tolproof_results.append
    tolproof.observers.append(observer)
    try:
        yield
    finally:
        tolproof.observers.remove(observer)


@pytest.fixture
def tolproof_check():
    """tolproof.check, for tests that take it as a fixture; its results are
    attached to the report like every other check's."""
    return tolproof.check


@pytest.fixture
def tolproof_assert():
    """tolproof.testing.assert_contract as a fixture."""
    return assert_contract
