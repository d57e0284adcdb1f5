"""Sphinx configuration of burstlab's documentation site (`make docs`).

Sphinx with MyST Markdown (pages) and MyST-NB (tutorials: notebooks executed at every
build, so their outputs are what the code of that commit gives), the Furo theme. The
scenario and CLI references are generated from the code by ``_ext/burstlab_docs.py``.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

import burstlab  # noqa: E402  (the installed package: `make build`)

project = "burstlab"
author = "The burstlab developers"
copyright = "2026, The burstlab developers"
release = version = burstlab.__version__

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "burstlab_docs",
    "burstlab_records",
]
exclude_patterns = ["_build", "_ext", "**.ipynb_checkpoints", "jupyter_execute"]
source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb"}

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

# Notebooks run at every build; a failing cell fails the build.
nb_execution_mode = "force"
nb_execution_raise_on_error = True
nb_execution_timeout = 300
nb_execution_show_tb = True

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "undoc-members": False}

html_theme = "furo"
html_title = f"burstlab {release}"
html_static_path: list[str] = []
html_show_sourcelink = False

# Dataclass attributes listed in a docstring's "Attributes:" section are documented
# there only (autodoc documents the fields too, which would describe them twice).
napoleon_use_ivar = True
