"""TEST STAND-IN, NOT OPENHANDS: a test-only imitation of OpenHands 0.62's `openhands.runtime.plugins`:
the plugin requirements (a name each); the base class adds VSCodeRequirement when not headless."""

from dataclasses import dataclass


@dataclass
class PluginRequirement:
    name: str


@dataclass
class VSCodeRequirement(PluginRequirement):
    name: str = 'vscode'
