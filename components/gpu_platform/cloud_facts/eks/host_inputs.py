"""An EC2 Docker host's inputs, checked as EC2 checks them.

- ``ec2.subnet_id`` is a subnet ID and each of ``ec2.security_group_ids`` a security group ID (EC2 resource IDs:
  ``subnet-``/``sg-`` and 8 or 17 hexadecimal digits); ``ec2.key_name`` names a key pair (not the key itself);
  ``ec2.iam_instance_profile`` is an instance profile, not a role.
- ``image`` is an AMI ID (or ``resolve:ssm:<parameter>``, which RunInstances resolves).
- ``labels`` become EC2 tags ("Tag restrictions"): at most 50 on a resource (the host's ``Name`` tag is one), keys
  of 1 to 128 characters that do not start with ``aws:``, values of up to 256.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpu_platform.catalog.machines import MachineType
from gpu_platform.errors import Key, Problems
from gpu_platform.formats.resource_ids import EC2_KINDS, ec2_kind, what_is
from gpu_platform.formats.ssh import ALL_TYPES

MAX_TAGS = 50
EXAMPLES = {
    "subnet": "subnet-0123456789abcdef0",
    "sg": "sg-0123456789abcdef0",
    "ami": "ami-0123456789abcdef0",
}


def _id_problem(value: Any, kind: str) -> str | None:
    """Why ``value`` is not an EC2 ID of ``kind`` (Outputs pass)."""
    if not isinstance(value, str) or ec2_kind(value) == kind:
        return None
    what = what_is(value)
    name = EC2_KINDS[kind].removeprefix("an EC2 ").removeprefix("an ").removesuffix(" (EC2)")
    article = "an" if name[0] in "AEIOU" else "a"
    if what:
        return f"'{value}' is {what}, not {article} {name} like {EXAMPLES[kind]}"
    return f"'{value}' is not {article} {name} like {EXAMPLES[kind]}"


def ec2_tag_problems(labels: Mapping[str, Any], p: Problems) -> None:
    """EC2's tag rules on ``labels`` (the host adds its ``Name`` tag unless one is given)."""
    total = len(labels) + (0 if "Name" in labels else 1)
    if total > MAX_TAGS:
        p.add(("labels",), f"{len(labels)} labels and the host's Name tag: EC2 takes at most {MAX_TAGS} tags")
    for key, value in labels.items():
        where = ("labels", Key(str(key)))
        if str(key).lower().startswith("aws:"):
            p.add(where, f"'{key}': the aws: prefix is reserved for AWS's own tags")
        elif not 1 <= len(str(key)) <= 128:
            p.add(where, "a tag key has 1 to 128 characters (at most 128)")
        elif len(str(value)) > 256:
            p.add(where, "a tag value has at most 256 characters")


def host_input_problems(
    checked: Mapping[str, Any], settings: Mapping[str, Any], machine: MachineType | None, p: Problems
) -> None:
    """Every EC2 rule on a Docker host's arguments (``settings`` is its ``ec2`` section)."""
    if reason := _id_problem(settings.get("subnet_id"), "subnet"):
        p.add(("ec2", "subnet_id"), reason)
    for i, group in enumerate(settings.get("security_group_ids") or ()):
        if reason := _id_problem(group, "sg"):
            p.add(("ec2", "security_group_ids", i), reason)
    key = settings.get("key_name")
    if isinstance(key, str) and (key.split(None, 1)[:1] or [""])[0] in ALL_TYPES | {"-----BEGIN"}:
        p.add(
            ("ec2", "key_name"),
            "is a key, not a name: give the EC2 key pair's name (aws ec2 describe-key-pairs)",
        )
    profile = settings.get("iam_instance_profile")
    if isinstance(profile, str) and ":role/" in profile:
        p.add(
            ("ec2", "iam_instance_profile"),
            f"'{profile}' is a role ARN; give the instance profile's name or ARN",
        )
    image = checked.get("image")
    if (
        isinstance(image, str)
        and not image.startswith("resolve:ssm:")
        and (reason := _id_problem(image, "ami"))
    ):
        p.add(("image",), reason)
    ec2_tag_problems(checked.get("labels") or {}, p)
