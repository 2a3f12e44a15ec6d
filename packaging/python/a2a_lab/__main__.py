"""`python -m a2a_lab ARGS`: runs the `a2a-lab` binary with ARGS."""

import os
import subprocess
import sys

from a2a_lab import find_a2a_lab_bin


def main() -> None:
    binary = find_a2a_lab_bin()
    args = [binary, *sys.argv[1:]]
    if sys.platform == "win32":
        # Windows has no exec that keeps the console's process: wait for the
        # binary and pass its exit code on.
        sys.exit(subprocess.run(args).returncode)
    os.execv(binary, args)


if __name__ == "__main__":
    main()
