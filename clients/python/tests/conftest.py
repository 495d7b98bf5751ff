"""The tests import the package from this source tree (clients/python), installed or not;
test_packaging.py checks that it also installs and imports from a virtual environment."""

from __future__ import annotations

import sys
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parents[1]
REPO_ROOT = PACKAGE_ROOT.parents[1]
sys.path.insert(0, str(PACKAGE_ROOT))
