"""TEST STAND-IN, NOT OPENHANDS: a test-only imitation of OpenHands 0.62's `openhands.core.config`:
OpenHandsConfig, SandboxConfig and ExtendedConfig with only the fields docs/openhands-runtime.md names, and
OpenHands' defaults for them. Like OpenHands' pydantic models, an unknown field is refused."""

import copy
import os

from openhands.core.config.kubernetes_config import KubernetesConfig


def _set_fields(obj, defaults, values):
    unknown = set(values) - set(defaults)
    if unknown:
        raise ValueError(f'{type(obj).__name__}: unknown fields {sorted(unknown)} (extra fields are forbidden)')
    for name, default in defaults.items():
        setattr(obj, name, values[name] if name in values else copy.deepcopy(default))


class SandboxConfig:
    _defaults = {
        'remote_runtime_api_url': 'http://localhost:8000',
        'local_runtime_url': 'http://localhost',
        'keep_runtime_alive': False,
        'pause_closed_runtimes': True,
        'rm_all_containers': False,
        'api_key': None,
        'base_container_image': 'nikolaik/python-nodejs:python3.12-nodejs22',
        'runtime_container_image': None,
        'user_id': os.getuid() if hasattr(os, 'getuid') else 1000,
        'timeout': 120,
        'remote_runtime_init_timeout': 180,
        'remote_runtime_api_timeout': 180,
        'remote_runtime_enable_retries': True,
        'remote_runtime_class': None,
        'enable_auto_lint': False,
        'use_host_network': False,
        'additional_networks': [],
        'runtime_binding_address': '0.0.0.0',
        'runtime_extra_build_args': None,
        'initialize_plugins': True,
        'force_rebuild_runtime': False,
        'runtime_extra_deps': None,
        'runtime_startup_env_vars': {},
        'browsergym_eval_env': None,
        'platform': None,
        'close_delay': 3600,
        'remote_runtime_resource_factor': 1,
        'enable_gpu': False,
        'docker_runtime_kwargs': None,
        'trusted_dirs': [],
        'vscode_port': None,
        'volumes': None,
        'cuda_visible_devices': None,
    }

    def __init__(self, **values):
        _set_fields(self, self._defaults, values)
        # OpenHands' validator: no base image means its default one.
        if self.base_container_image is None:
            self.base_container_image = self._defaults['base_container_image']


class ExtendedConfig:
    """Arbitrary keys of [extended], read as attributes (an unknown one is an AttributeError)."""

    def __init__(self, root):
        self.__dict__['_root'] = dict(root)

    def __getattr__(self, key):
        try:
            return copy.deepcopy(self.__dict__['_root'][key])
        except KeyError as e:
            raise AttributeError(f"'ExtendedConfig' object has no attribute '{key}'") from e


class OpenHandsConfig:
    _defaults = {
        'workspace_base': None,
        'workspace_mount_path_in_sandbox': '/workspace',
        'workspace_mount_path': None,
        'run_as_openhands': True,
        'enable_browser': True,
        'debug': False,
        'git_user_name': 'openhands',
        'git_user_email': 'openhands@all-hands.dev',
    }

    def __init__(self, sandbox=None, kubernetes=None, extended=None, **values):
        _set_fields(self, self._defaults, values)
        self.sandbox = sandbox if sandbox is not None else SandboxConfig()
        self.kubernetes = kubernetes if kubernetes is not None else KubernetesConfig()
        self.extended = extended if extended is not None else ExtendedConfig({})
