"""gpu-platform stack program: `pulumi up --stack <env>` (or `gpu-platform plan --stack <env>` offline)."""

from gpu_platform.stack import main

main()
