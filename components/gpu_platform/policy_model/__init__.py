"""What the policy pack reads of a planned resource: resource views, Kubernetes taint and toleration semantics,
and a node pool in any cloud's spelling. The pack's rules (``gpu_platform.policy``) and each cloud's own rules
(``clouds/<cloud>/policy.py``) read through it."""
