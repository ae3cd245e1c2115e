"""gpu-platform policy pack (written by `gpu-platform policy-pack write`): the installed library's rules."""

from gpu_platform.policy.pack import serve

serve()
