"""TEST STAND-IN, NOT OPENHANDS: a test-only imitation of OpenHands 0.62's `openhands.runtime.base`:
Runtime with only the members docs/openhands-runtime.md names, behaving as OpenHands' do for them:
the constructor's signature and the attributes it sets, atexit-registered close(), set_runtime_status,
log, runtime_initialized, and the defaults of session_api_key, vscode_url and web_hosts."""

import atexit
import copy
import logging
import os

from openhands.runtime.plugins import VSCodeRequirement

_logger = logging.getLogger('openhands-stand-in')


class Runtime:
    _runtime_initialized = False

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
        headless_mode=False,
        user_id=None,
        git_provider_tokens=None,
    ):
        self.sid = sid
        self.plugins = copy.deepcopy(plugins) if plugins is not None and len(plugins) > 0 else []
        if not headless_mode:
            self.plugins.append(VSCodeRequirement())
        self.status_callback = status_callback
        self.attach_to_existing = attach_to_existing
        self.config = copy.deepcopy(config)
        atexit.register(self.close)
        # OpenHands: SANDBOX_ENV_<X> of this process, ENABLE_AUTO_LINT, env_vars, then git provider tokens.
        self.initial_env_vars = {k[len('SANDBOX_ENV_'):]: v for k, v in os.environ.items() if k.startswith('SANDBOX_ENV_')}
        if config.sandbox.enable_auto_lint:
            self.initial_env_vars['ENABLE_AUTO_LINT'] = 'true'
        if env_vars is not None:
            self.initial_env_vars.update(env_vars)
        self.runtime_status = None

    @property
    def runtime_initialized(self):
        return self._runtime_initialized

    def close(self):
        pass

    def log(self, level, message):
        getattr(_logger, level)(f'[runtime {self.sid}] {message}')

    def set_runtime_status(self, runtime_status, msg='', level='info'):
        self.runtime_status = runtime_status
        if self.status_callback:
            self.status_callback(level, runtime_status, msg)

    async def connect(self):
        pass

    @property
    def session_api_key(self):
        return None

    @property
    def vscode_url(self):
        raise NotImplementedError('This method is not implemented in the base class.')

    @property
    def web_hosts(self):
        return {}
