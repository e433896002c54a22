"""A test file's main: runs its test_* functions in order, one line each; exit 1 when one fails, 77 (CTest's
SKIP_RETURN_CODE here) when the file says it cannot run, with the reason."""
import sys
import traceback


class Skip(Exception):
    """The file cannot run here; the message says why."""


def main(namespace):
    tests = [(n, f) for n, f in namespace.items() if n.startswith("test_") and callable(f)]
    failed = 0
    try:
        for name, f in tests:
            try:
                f()
                print(f"PASS {name}")
            except Skip:
                raise
            except Exception:  # noqa: BLE001 - every failure is reported, then the next test runs
                failed += 1
                print(f"FAIL {name}")
                traceback.print_exc()
    except Skip as e:
        print(f"SKIPPED: {e}")
        return 77
    print(f"{len(tests) - failed} of {len(tests)} passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit("run a test file, not the harness")
