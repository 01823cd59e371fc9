"""Shared fixtures of the Python API tests: the repository's build (the
tolproof command, the library, the plans) and the .npy fixtures of
gen/npy_fixtures.py, which tests/check_cmd.t checks the command on: for
every op a contract's small case, inputs drawn with NumPy and outputs
computed the way the op's model describes (so that they pass), plus the
bad files."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOLPROOF = os.path.join(ROOT, "build", "tolproof")
sys.path.insert(0, os.path.join(ROOT, "python"))


@pytest.fixture(scope="session")
def fixtures(tmp_path_factory):
    d = tmp_path_factory.mktemp("fx")
    subprocess.run([sys.executable, os.path.join(ROOT, "gen", "npy_fixtures.py"), str(d)], check=True,
                   stdout=subprocess.DEVNULL)
    return d


def fixture_contracts():
    """The contracts gen/npy_fixtures.py writes fixtures for (its contracts())."""
    sys.path.insert(0, os.path.join(ROOT, "gen"))
    import npy_fixtures

    return sorted(npy_fixtures.contracts())


class Cli:
    """build/tolproof check on files: (exit status, --json text, stdout, stderr)."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.n = 0

    def check(self, cwd, contract, *args):
        self.n += 1
        out = os.path.join(str(self.tmp), "cli%d.json" % self.n)
        p = subprocess.run([TOLPROOF, "check", "--contract", contract, *args, "--json", out], cwd=str(cwd),
                           capture_output=True, text=True)
        with open(out) as f:
            return p.returncode, f.read(), p.stdout, p.stderr


@pytest.fixture
def cli(tmp_path):
    return Cli(tmp_path)


def registry_ops():
    with open(os.path.join(ROOT, "build", "gen", "registry.json")) as f:
        return [o["name"] for o in json.load(f)["ops"]]


def plan_op(contract):
    with open(os.path.join(ROOT, "build", "gen", contract + ".plan.json")) as f:
        return json.load(f)["op"]
