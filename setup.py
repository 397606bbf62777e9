"""Which packages and data files the wheel holds (the rest of the metadata is in pyproject.toml).

The library's packages are discovered, not listed, so a new subpackage under umkit/ cannot be left
out of the wheel.  Two folders of the repository travel inside the package under other names:
kernels/ (the CUDA and HIP sources the kit compiles) as ``umkit._kernels``, notebooks/ (both
editions of the course, the solutions and the presenter guide) as ``umkit._notebooks``, and the
learner docs the notebooks link (primer, glossary, the column notes with their errata, and the AMD source trail the glossary links) as ``umkit._docs``, so ``umkit workspace``
works from an installed copy.  tests/packaging checks the built wheel against
the source tree."""
from setuptools import find_namespace_packages, setup

DATA_PACKAGES = {
    "umkit._kernels": "kernels",
    "umkit._kernels.hip": "kernels/hip",
    "umkit._kernels.cuda": "kernels/cuda",
    "umkit._notebooks": "notebooks",
    "umkit._docs": "docs",
}

setup(
    # every folder under umkit/, with or without __init__.py (umkit/sim/profiles holds data only)
    packages=find_namespace_packages(include=["umkit", "umkit.*"], exclude=["*.__pycache__"])
    + list(DATA_PACKAGES),
    package_dir=DATA_PACKAGES,
    package_data={
        "umkit": ["ledger.json"],
        "umkit.i18n": ["*.po"],                      # the translations (gettext catalogues)
        "umkit.sim.profiles": ["*.json", "*.md"],
        "umkit._kernels": ["*.cu"],
        "umkit._kernels.hip": ["*.hip"],
        "umkit._kernels.cuda": ["*.cu"],
        "umkit._docs": ["primer.md", "primer.zh-CN.md", "glossary.md", "amd-sources.md", "article.md"],   # what the notebooks link
        "umkit._notebooks": ["*.ipynb", "*.md", "solutions/*.py", "data/*", "workshop/*.md", "workshop/*.ipynb",
                             "zh/*.ipynb", "zh/.umkit-lang", "zh/workshop/*.md",
                             "zh/workshop/*.ipynb"],
    },
    include_package_data=False,
)
