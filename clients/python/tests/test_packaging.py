"""The package installs offline (Debian's setuptools, no build isolation) into a virtual environment
and imports from there, typed (py.typed) and with no dependencies."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from paths import PACKAGE_ROOT


def test_it_installs_offline_into_a_venv_and_imports_from_there(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    python = venv / "bin" / "python"
    build = tmp_path / "source"
    # A copy, so the build leaves nothing behind in the checkout (build/, *.egg-info).
    subprocess.run(["cp", "-r", str(PACKAGE_ROOT), str(build)], check=True)
    installed = subprocess.run(
        [str(python), "-m", "pip", "install", "--no-build-isolation", "--no-index", "--no-deps", "--disable-pip-version-check", str(build)],
        capture_output=True,
        text=True,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    probe = (
        "import json, pathlib, guardagent, importlib.metadata as m;"
        "print(json.dumps({'file': guardagent.__file__, 'version': guardagent.__version__,"
        " 'typed': (pathlib.Path(guardagent.__file__).parent / 'py.typed').exists(),"
        " 'requires': m.requires('guardagent'), 'dist': m.version('guardagent')}))"
    )
    shown = subprocess.run([str(python), "-c", probe], cwd=tmp_path, capture_output=True, text=True, check=True)
    facts = json.loads(shown.stdout)
    assert facts["file"].startswith(str(venv))
    assert facts["version"] == facts["dist"] == "0.1.0"
    assert facts["typed"] is True
    assert not facts["requires"]
