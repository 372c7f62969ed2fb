"""The failures a script test collects, said once for every script under tests/scripts: check()
and fail() record what went wrong and go on, so one run names every failure; done() prints them,
one line each, then the test's count line, and exits 1 if there were any, 0 if none."""
import sys

failures = []


def fail(what):
    failures.append(what)


def check(cond, what):
    if not cond:
        fail(what)
    return cond


def done(summary):
    """Prints each failure and `summary` (str.format'd with n, the number of failures), then exits."""
    for f in failures:
        print("FAIL:", f)
    print(summary.format(n=len(failures)))
    sys.exit(1 if failures else 0)
