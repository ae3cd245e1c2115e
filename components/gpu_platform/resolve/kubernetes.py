"""What Kubernetes itself accepts as names, label keys and values, and quantities.

Checked at plan time so a stack never reaches the API server with an object it will refuse
(k8s.io/apimachinery ``validation.IsDNS1123Label``, ``IsQualifiedName``, ``IsValidLabelValue``).
"""

from __future__ import annotations

import re

from gpu_platform.releases import reserved_namespaces

DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
"""Namespaces and most object names (RFC 1123 label, at most 63)."""
DNS_1035_LABEL = re.compile(r"^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$")
"""Service-like names that must start with a letter (InferenceServices)."""
DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_NAME_PART = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
QUANTITY = re.compile(
    r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))"
    r"(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
)
"""``resource.Quantity`` as the CRDs write it."""


def is_dns_subdomain(text: str) -> bool:
    return len(text) <= 253 and bool(DNS_SUBDOMAIN.match(text))


def qualified_name_problem(key: str) -> str | None:
    """Label and taint keys: ``[prefix/]name``, prefix a DNS subdomain, name at most 63 characters."""
    prefix, _, name = key.rpartition("/")
    if prefix and not is_dns_subdomain(prefix):
        return f"'{key}' has an invalid prefix '{prefix}' (a DNS subdomain: lowercase, digits, '-', '.')"
    if not name or len(name) > 63 or not _NAME_PART.match(name):
        return (
            f"'{key}' is not a valid key: at most 63 letters, digits, '-', '_' or '.', "
            "starting and ending with a letter or digit"
        )
    return None


def label_value_problem(value: str) -> str | None:
    if value and (len(value) > 63 or not _NAME_PART.match(value)):
        return (
            f"'{value}' is not a valid label value: at most 63 letters, digits, '-', '_' or '.', "
            "starting and ending with a letter or digit"
        )
    return None


def label_problems(key: str, value: str) -> list[tuple[str, str]]:
    """``("key"|"value", reason)`` for a node label or taint Kubernetes would refuse (same rules)."""
    out = []
    if (reason := qualified_name_problem(key)) is not None:
        out.append(("key", reason))
    if (reason := label_value_problem(value)) is not None:
        out.append(("value", reason))
    return out


KUBERNETES_NAMESPACES: dict[str, str] = {
    "default": "the cluster's shared default namespace",
    "kube-system": "Kubernetes' own namespace",
    "kube-public": "Kubernetes' own namespace",
    "kube-node-lease": "Kubernetes' own namespace",
}
RESERVED_NAMESPACES: dict[str, str] = {
    **KUBERNETES_NAMESPACES,
    **{ns: owner for ns, owner in reserved_namespaces().items() if ns not in KUBERNETES_NAMESPACES},
}
"""Namespaces the cluster or the library's operators (``addons.reserved_namespaces``) own: never a team's, never created for a service
(services may run in ``default``)."""


def namespace_problem(name: str) -> str | None:
    if not DNS_LABEL.match(name):
        return f"'{name}' is not a valid namespace name (lowercase letters, digits and '-', at most 63)"
    return None
