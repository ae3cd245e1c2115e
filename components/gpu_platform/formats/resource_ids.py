"""What kind of cloud reference a string is, by its documented shape, so a value given in the wrong place (a
security group ID where the subnet belongs, an AMI where a Compute Engine image belongs) is refused saying what it is.

- EC2 IDs: ``<prefix>-`` and 8 or 17 hexadecimal digits (EC2 API reference, "Resource IDs"): ``subnet-``, ``sg-``,
  ``vpc-``, ``ami-``, ``i-``, ``cr-`` ...
- Azure: resource IDs (``/subscriptions/<id>/resourceGroups/<group>/providers/<namespace>/<type>/<name>...``) and
  Marketplace image URNs (``publisher:offer:sku:version``, ``az vm image list``).
- Compute Engine: image paths (``projects/<project>/global/images/[family/]<name>``, optionally as a full
  ``https://www.googleapis.com/compute/v1/`` URL) and zones (``<region>-<letter>``).
"""

from __future__ import annotations

import re

EC2_ID = re.compile(r"^(?P<prefix>[a-z]+)-(?:[0-9a-f]{8}|[0-9a-f]{17})$")
EC2_KINDS = {
    "subnet": "an EC2 subnet ID",
    "sg": "an EC2 security group ID",
    "vpc": "an EC2 VPC ID",
    "ami": "an AMI ID (EC2)",
    "i": "an EC2 instance ID",
    "cr": "an EC2 capacity reservation ID",
    "eni": "an EC2 network interface ID",
    "igw": "an EC2 internet gateway ID",
    "rtb": "an EC2 route table ID",
    "vol": "an EBS volume ID",
    "snap": "an EBS snapshot ID",
}
AZURE_RESOURCE_ID = re.compile(
    r"^/subscriptions/[^/]+/resourceGroups/[^/]+/providers/(?P<namespace>[^/]+)/(?P<type>[^/]+)/[^/]+(?:/.+)?$",
    re.IGNORECASE,
)
AZURE_URN = re.compile(r"^[A-Za-z0-9][^:\s/]*:[^:\s/]+:[^:\s/]+:[^:\s/]+$")
"""A Marketplace image: ``publisher:offer:sku:version`` (``version`` may be ``latest``)."""
GCE_IMAGE = re.compile(
    r"^(?:https://(?:www|compute)\.googleapis\.com/compute/(?:v1|beta)/)?"
    r"projects/[a-z][-a-z0-9.:]*[a-z0-9]/global/images/(?:family/)?[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?$"
)
GCE_ZONE = re.compile(r"^[a-z]+-[a-z]+[0-9]+-[a-z]$")
GCE_REGION = re.compile(r"^[a-z]+-[a-z]+[0-9]+$")


def ec2_kind(text: str) -> str | None:
    """``subnet``, ``sg``, ``ami`` ... for an EC2 ID, else ``None``."""
    match = EC2_ID.match(text)
    return match["prefix"] if match and match["prefix"] in EC2_KINDS else None


def what_is(text: str) -> str | None:
    """What ``text`` is when it has the shape of a known cloud reference (``None``: none of them)."""
    if kind := ec2_kind(text):
        return EC2_KINDS[kind]
    if match := AZURE_RESOURCE_ID.match(text):
        return f"an Azure resource ID ({match['namespace']}/{match['type']})"
    if GCE_IMAGE.match(text):
        return "a Compute Engine image (projects/<project>/global/images/...)"
    if AZURE_URN.match(text):
        return "an Azure Marketplace image (publisher:offer:sku:version)"
    if GCE_ZONE.match(text):
        return "a Compute Engine zone"
    return None
