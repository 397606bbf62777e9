"""The learner server's contents manager: JupyterLab's file browser, the contents API and /files/
serve only what lies inside the learner's workspace *after symlinks are resolved*.

jupyter_server checks that an API path stays inside its root with ``os.path.abspath`` only
(jupyter_server 2.21, services/contents/fileio.py, ``FileManagerMixin._get_os_path``), so a
symlink a kernel makes inside the workspace (``ln -s / ws/root``) lets the contents API read and
write whatever the server's user can reach.  This manager also resolves the path
(``os.path.realpath``) and answers 404 when the result leaves the workspace; /files/ makes the
same check (``NoEscapeFileHandler``).

The umkit hub (deploy/jupyterhub/umkit_hub.py) starts every learner's server with
``--ServerApp.contents_manager_class=umkit_contents.NoEscapeContentsManager``.
"""
from __future__ import annotations

import contextvars
import os

from jupyter_server.base.handlers import AuthenticatedFileHandler
from jupyter_server.services.contents.filecheckpoints import AsyncFileCheckpoints
from jupyter_server.services.contents.largefilemanager import AsyncLargeFileManager
from tornado.web import HTTPError
from traitlets import default


def inside(root: str, os_path: str) -> bool:
    """True when ``os_path``, symlinks resolved, is ``root`` or lies under it."""
    real_root = os.path.realpath(root)
    real = os.path.realpath(os_path)
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


class NoEscapeFileHandler(AuthenticatedFileHandler):
    """/files/: jupyter_server's handler, refusing a file that resolves outside the root."""

    def validate_absolute_path(self, root, absolute_path):
        path = super().validate_absolute_path(root, absolute_path)
        if path is None or not inside(root, path):
            raise HTTPError(404)
        return path


class NoEscapeCheckpoints(AsyncFileCheckpoints):
    """Checkpoints (``.ipynb_checkpoints`` beside each file) only inside the workspace:
    jupyter_server's own path check skips them, so a ``.ipynb_checkpoints`` link a kernel makes
    would let the checkpoints API write and read outside it."""

    def checkpoint_path(self, checkpoint_id, path):
        parent = ("/" + path.strip("/")).rsplit("/", 1)[0].strip("/")
        folder = os.path.join(self._get_os_path(path=parent), self.checkpoint_dir)
        if not inside(self.root_dir, folder):
            raise HTTPError(404, f"{path}: its checkpoints folder is outside the workspace")
        return super().checkpoint_path(checkpoint_id, path)


_LISTING: contextvars.ContextVar = contextvars.ContextVar("umkit_listing", default=None)


class NoEscapeContentsManager(AsyncLargeFileManager):
    """jupyter_server's default manager, refusing any path that resolves outside the root.  A
    folder's listing leaves such a link out (the rest of the folder is listed)."""

    async def _dir_model(self, path, content=True):
        token = _LISTING.set(self._get_os_path(path))
        try:
            return await super()._dir_model(path, content)
        finally:
            _LISTING.reset(token)

    def should_list(self, name):
        folder = _LISTING.get()
        if folder is not None and not inside(self.root_dir, os.path.join(folder, name)):
            return False          # a link out of the workspace: not listed (and 404 if asked for)
        return super().should_list(name)

    def os_path(self, path):
        """The file ``path`` (relative to the workspace) names on disk; HTTP 404 when it
        resolves outside the workspace (every read, write and listing goes through this)."""
        return self._get_os_path(path)

    def _get_os_path(self, path):
        os_path = super()._get_os_path(path)
        if not inside(self.root_dir, os_path):
            raise HTTPError(404, f"{path} is outside the workspace")
        return os_path

    def _files_handler_class_default(self):
        return NoEscapeFileHandler   # /files/ checks the resolved path too

    @default("checkpoints_class")
    def _checkpoints_class_default(self):
        return NoEscapeCheckpoints   # and so do checkpoints
