"""The SOURCE_DIR WORK_DIR arguments of the script tests that build a scratch copy: WORK_DIR is
emptied first, so anything that is not plainly a scratch folder of its own is refused (a swapped
argument once named the checkout itself)."""
import os
import shutil
import sys


def scratch_args(name, needs):
    """(src, work) from sys.argv, absolute, WORK_DIR emptied and created; exits with a usage line
    and status 2 unless SOURCE_DIR holds `needs` (a path under it) and WORK_DIR is neither a
    checkout nor SOURCE_DIR or a folder above it."""
    usage = (f"usage: {name} SOURCE_DIR WORK_DIR (WORK_DIR: a scratch folder, emptied first; not a checkout, "
             "not above SOURCE_DIR)")
    if len(sys.argv) != 3:
        print(usage)
        sys.exit(2)
    src, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if (not os.path.isfile(os.path.join(src, needs)) or os.path.exists(os.path.join(work, ".git"))
            or os.path.exists(os.path.join(work, "CMakeLists.txt")) or src == work or src.startswith(work + os.sep)):
        print(usage)
        sys.exit(2)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    return src, work
