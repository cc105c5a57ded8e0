"""The Python side of io.sluice.testkit.PythonEnvironment (the tests' PythonClients, the benchmarks): how a test script reports to the JUnit test that ran it.

A script prints what it does as it goes (the JUnit test copies it into the test log) and ends with exactly one result
line, RESULT_PREFIX followed by a JSON object, which the test asserts on. Any exception is printed with its traceback
and makes the script exit 1, so the test fails with the script's own explanation.
"""
import json
import os
import sys
import time
import traceback

RESULT_PREFIX = "SLUICE-RESULT "

_started = time.monotonic()


def log(*parts):
    print("%7.3f" % (time.monotonic() - _started), *parts, flush=True)


def env(name):
    """A required setting passed in the environment (tokens travel there, never in arguments)."""
    value = os.environ.get(name)
    if value is None:
        raise SystemExit("missing environment variable " + name)
    return value


def result(value):
    print(RESULT_PREFIX + json.dumps(value, sort_keys=True), flush=True)


def main(run):
    """Runs run() and prints its return value as the result; an exception exits 1 after its traceback."""
    try:
        value = run()
    except Exception:
        traceback.print_exc(file=sys.stdout)
        sys.stdout.flush()
        sys.exit(1)
    result(value)
