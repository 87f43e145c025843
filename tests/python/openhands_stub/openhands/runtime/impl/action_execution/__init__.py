"""TEST STAND-IN, NOT OPENHANDS: a test-only imitation of OpenHands 0.62's `openhands.runtime.impl.action_execution` (a package)."""
