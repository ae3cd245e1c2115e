"""Each add-on the stack can install is one folder here: its settings, checks, plan, component and wiring.

``registry`` is the one list of add-ons, in the order the stack deploys them. The Helm releases they install
(pins, release names, namespaces) are facts every layer reads, in ``gpu_platform.releases``.
"""

from gpu_platform._moved import moved_attribute


def __getattr__(name: str) -> object:
    # The release table was this package's module before the add-on folders; its names resolve, with a warning.
    return moved_attribute(__name__, name)
