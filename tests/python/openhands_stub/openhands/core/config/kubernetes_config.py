"""TEST STAND-IN, NOT OPENHANDS: a test-only imitation of OpenHands 0.62's `openhands.core.config.kubernetes_config`:
KubernetesConfig with OpenHands' fields and defaults. An unknown field is refused."""


class KubernetesConfig:
    _defaults = {
        'namespace': 'default',
        'ingress_domain': 'localhost',
        'pvc_storage_size': '2Gi',
        'pvc_storage_class': None,
        'resource_cpu_request': '1',
        'resource_memory_request': '1Gi',
        'resource_memory_limit': '2Gi',
        'image_pull_secret': None,
        'ingress_tls_secret': None,
        'node_selector_key': None,
        'node_selector_val': None,
        'tolerations_yaml': None,
        'privileged': False,
    }

    def __init__(self, **values):
        unknown = set(values) - set(self._defaults)
        if unknown:
            raise ValueError(f'KubernetesConfig: unknown fields {sorted(unknown)} (extra fields are forbidden)')
        for name, default in self._defaults.items():
            setattr(self, name, values.get(name, default))
