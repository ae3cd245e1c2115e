"""An Azure Docker host's inputs, checked as Azure checks them.

- ``azure.admin_username``: the Compute API's ``osProfile.adminUsername`` (Linux: 1 to 64 characters; none of its
  disallowed names, compared case-insensitively) and the Azure CLI's Linux rules (``az vm create``,
  azure-cli ``vm/_validators.py`` ``_validate_admin_username``: no upper-case A-Z, none of ``\\/"[]:|<>+=;,?*@#()!``,
  not starting with ``$`` or ``-``).
- ``azure.ssh_public_key``: an OpenSSH public key Azure takes ("Supported SSH key formats"): ``ssh-rsa`` of 2048
  bits or more, or ``ssh-ed25519``; the key itself, without ``authorized_keys`` options.
- ``azure.location`` is a region, not an availability zone; ``azure.subnet_id`` a subnet's resource ID;
  ``azure.resource_group_name`` a resource group name (1 to 90 characters: letters, digits, ``_``, ``-``, ``.``,
  ``(``, ``)``, not ending in ``.``).
- ``image``: a Marketplace URN ``publisher:offer:sku:version`` or an image resource ID.
- ``labels`` become Azure tags ("Use tags to organize your Azure resources"): at most 50 on a resource, names up to
  512 characters without ``<>%&\\?/``, values up to 256.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from gpu_platform.catalog.machines import MachineType
from gpu_platform.errors import Key, Problems
from gpu_platform.formats.resource_ids import AZURE_RESOURCE_ID, AZURE_URN, what_is
from gpu_platform.formats.ssh import parse_public_key

DISALLOWED_ADMIN_NAMES = frozenset(
    {
        "administrator", "admin", "user", "user1", "test", "user2", "test1", "user3", "admin1", "1", "123", "a",
        "actuser", "adm", "admin2", "aspnet", "backup", "console", "david", "guest", "john", "owner", "root",
        "server", "sql", "support", "support_388945a0", "sys", "test2", "test3", "user4", "user5",
    }
)  # fmt: skip
"""The Compute API's disallowed ``adminUsername`` values (VirtualMachines create-or-update, ``OSProfile``)."""
_ADMIN_SPECIAL = re.compile(r'[\\/"\[\]:|<>+=;,?*@#()!]')
AZURE_KEY_TYPES = ("ssh-rsa", "ssh-ed25519")
MIN_RSA_BITS = 2048
MAX_TAGS = 50
_TAG_NAME_REFUSED = re.compile(r"[<>%&\\?/]")
_REGION = re.compile(r"^[A-Za-z][A-Za-z0-9 ]*$")
_RESOURCE_GROUP = re.compile(r"^[-\w.()]{1,90}$")
_SUBNET_ID = re.compile(
    r"^/subscriptions/[^/]+/resourceGroups/[^/]+/providers/Microsoft\.Network/virtualNetworks/[^/]+/subnets/[^/]+$",
    re.IGNORECASE,
)


def admin_username_problem(name: str) -> str | None:
    """Why Azure refuses ``name`` as a Linux VM's administrator (``None``: it takes it)."""
    if not 1 <= len(name) <= 64:
        return f"'{name}' has {len(name)} characters; a Linux administrator name has 1 to 64"
    if name.lower() in DISALLOWED_ADMIN_NAMES:
        return f"'{name}' is reserved by Azure (a disallowed adminUsername); choose another, such as gpuadmin"
    if re.search(r"[A-Z]", name):
        return f"'{name}' has upper-case letters, which Azure refuses in a Linux administrator name"
    if found := _ADMIN_SPECIAL.search(name):
        return f"'{name}' holds '{found[0]}'; a Linux administrator name has none of \\/\"[]:|<>+=;,?*@#()!"
    if name[0] in "$-":
        return f"'{name}' must not start with '{name[0]}'"
    return None


def ssh_key_problem(text: str) -> str | None:
    """Why Azure refuses ``text`` as the administrator's SSH public key (``None``: it takes it)."""
    key = parse_public_key(text)
    if isinstance(key, str):
        return f"is not an OpenSSH public key ('ssh-ed25519 AAAA... comment'): {key}"
    if key.key_type not in AZURE_KEY_TYPES:
        return f"is a {key.key_type} key; Azure takes ssh-rsa (2048 bits or more) or ssh-ed25519 keys"
    bits = key.rsa_bits
    if bits is not None and bits < MIN_RSA_BITS:
        return f"is a {bits}-bit RSA key; Azure needs {MIN_RSA_BITS} bits or more (or an ssh-ed25519 key)"
    return None


def _location_problem(location: str) -> str | None:
    if location.strip().isdigit():
        return f"'{location}' is an availability zone, not a region; give the region, such as eastus2"
    if not _REGION.match(location):
        return f"'{location}' is not an Azure region like eastus2"
    return None


def azure_tag_problems(labels: Mapping[str, Any], p: Problems) -> None:
    if len(labels) > MAX_TAGS:
        p.add(("labels",), f"{len(labels)} labels: Azure takes at most {MAX_TAGS} tags on a resource")
    for key, value in labels.items():
        where = ("labels", Key(str(key)))
        if found := _TAG_NAME_REFUSED.search(str(key)):
            p.add(where, f"a tag name cannot contain '{found[0]}' (none of <>%&\\?/)")
        elif not 1 <= len(str(key)) <= 512:
            p.add(where, "a tag name has 1 to 512 characters")
        elif len(str(value)) > 256:
            p.add(where, "a tag value has at most 256 characters")


def _image_problem(image: str) -> str | None:
    if AZURE_URN.match(image) or AZURE_RESOURCE_ID.match(image):
        return None
    what = what_is(image)
    return (
        f"'{image}' is {what or 'not an Azure image'}; give a Marketplace image publisher:offer:sku:version "
        "(Canonical:ubuntu-24_04-lts:server:latest) or an image resource ID"
    )


def host_input_problems(
    checked: Mapping[str, Any], settings: Mapping[str, Any], machine: MachineType | None, p: Problems
) -> None:
    """Every Azure rule on a Docker host's arguments (``settings`` is its ``azure`` section)."""
    checks = (
        ("admin_username", admin_username_problem),
        ("ssh_public_key", ssh_key_problem),
        ("location", _location_problem),
    )
    for key, check in checks:
        value = settings.get(key)
        if isinstance(value, str) and (reason := check(value)):
            p.add(("azure", key), reason)
    subnet = settings.get("subnet_id")
    if isinstance(subnet, str) and not _SUBNET_ID.match(subnet):
        what = what_is(subnet) or "not a subnet's resource ID"
        p.add(
            ("azure", "subnet_id"),
            f"'{subnet}' is {what}; give /subscriptions/<id>/resourceGroups/<group>/providers/"
            "Microsoft.Network/virtualNetworks/<vnet>/subnets/<subnet>",
        )
    group = settings.get("resource_group_name")
    if isinstance(group, str) and (not _RESOURCE_GROUP.match(group) or group.endswith(".")):
        p.add(
            ("azure", "resource_group_name"),
            f"'{group}' is not a resource group name (1 to 90 letters, digits, _-.(), not ending in '.')",
        )
    image = checked.get("image")
    if isinstance(image, str) and (reason := _image_problem(image)):
        p.add(("image",), reason)
    azure_tag_problems(checked.get("labels") or {}, p)
