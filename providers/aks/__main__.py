"""The component provider of this PulumiPlugin.yaml: hosts every gpu-platform component for `pulumi package add`."""

from gpu_platform.provider import main

if __name__ == "__main__":
    main()
