"""TEST STAND-IN, NOT OPENHANDS: a test-only imitation of OpenHands 0.62's
`openhands.runtime.impl.action_execution.action_execution_client`: ActionExecutionClient with only the
members docs/openhands-runtime.md names. As OpenHands' does, it sends every request to the sandbox's host
through `self.session` (whose headers, e.g. X-Session-API-Key, go with each) at URLs under
`action_execution_server_url`; `_send_action_server_request` is the one entry point of OpenHands' that the
tests drive (OpenHands sends actions as POST <url>/execute_action {"action": ...} through it)."""

from openhands.runtime.base import Runtime
from openhands.utils.http_session import HttpSession


class ActionExecutionClient(Runtime):
    def __init__(
        self,
        config,
        event_stream,
        llm_registry,
        sid='default',
        plugins=None,
        env_vars=None,
        status_callback=None,
        attach_to_existing=False,
        headless_mode=True,
        user_id=None,
        git_provider_tokens=None,
    ):
        self.session = HttpSession()
        self._runtime_closed = False
        super().__init__(
            config,
            event_stream,
            llm_registry,
            sid,
            plugins,
            env_vars,
            status_callback,
            attach_to_existing,
            headless_mode,
            user_id,
            git_provider_tokens,
        )

    @property
    def action_execution_server_url(self):
        raise NotImplementedError('Action execution server URL is not implemented')

    def _send_action_server_request(self, method, url, **kwargs):
        return self.session.request(method, url, **kwargs)

    def close(self):
        if self._runtime_closed:
            return
        self._runtime_closed = True
        self.session.close()
