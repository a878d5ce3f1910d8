"""Where pip put the dlready executable, searched the way ruff's and uv's finders search: the
scripts folder of this interpreter's scheme, of its base prefix, of a `pip install --prefix`
(worked out from this module's path), of a `pip install --target` folder, then the user scheme."""
import os
import sys
import sysconfig


def _exe_name() -> str:
    return "dlready" + (sysconfig.get_config_var("EXE") or "")


def _user_scheme() -> str:
    if sys.platform == "win32":
        return "nt_user"
    if sys.platform == "darwin" and sys._framework:  # type: ignore[attr-defined]
        return "osx_framework_user"
    return "posix_user"


def _candidates():
    here = os.path.dirname(os.path.abspath(__file__))
    yield sysconfig.get_path("scripts")
    yield sysconfig.get_path("scripts", vars={"base": sys.base_prefix})
    # --prefix P: this file is P/lib/pythonX.Y/site-packages/dlready/ (Windows: P/Lib/site-packages/dlready/)
    parts = here.split(os.sep)
    if "site-packages" in parts:
        prefix = os.sep.join(parts[: parts.index("site-packages") - (1 if sys.platform == "win32" else 2)])
        yield os.path.join(prefix, "Scripts" if sys.platform == "win32" else "bin")
    # --target T: this file is T/dlready/, the executable in T/bin/
    yield os.path.join(os.path.dirname(here), "bin")
    yield sysconfig.get_path("scripts", scheme=_user_scheme())


def find_dlready_bin() -> str:
    """The path of the dlready executable this package was installed with."""
    name = _exe_name()
    seen = []
    for folder in _candidates():
        if not folder or folder in seen:
            continue
        seen.append(folder)
        path = os.path.join(folder, name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    raise FileNotFoundError(
        "the dlready executable is not in any scripts folder of this Python (looked in: "
        + ", ".join(seen) + "); reinstall with: python -m pip install --force-reinstall dlready")
