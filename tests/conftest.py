"""Shared by every test folder: the helpers beside this file (``repo_tools``) import by name."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
