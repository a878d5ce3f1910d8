"""`python -m dlready ...`: runs the executable with the same arguments. It tells the doctor which
Python started it (DLREADY_PARENT_PYTHON), so under uvx or pipx the user's environment, not the
tool's, is the one examined."""
import os
import subprocess
import sys

from ._find_dlready import find_dlready_bin


def main() -> int:
    exe = find_dlready_bin()
    env = dict(os.environ)
    env.setdefault("DLREADY_PARENT_PYTHON", sys.executable)
    if sys.platform == "win32":
        return subprocess.run([exe, *sys.argv[1:]], env=env).returncode
    os.execve(exe, [exe, *sys.argv[1:]], env)
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main())
