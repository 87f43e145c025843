"""TEST STAND-IN, NOT OPENHANDS: a test-only imitation of OpenHands 0.62's package `openhands`.

It reproduces only the members that docs/openhands-runtime.md names (the OpenHands interface that
actionhost.openhands.ActionHostRuntime relies on), so tests/python/test_openhands_runtime.py can run the
class without OpenHands installed. Put tests/python/openhands_stub on PYTHONPATH for tests only.
"""
