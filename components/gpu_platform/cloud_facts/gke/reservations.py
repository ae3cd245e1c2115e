"""What a GKE pool's ``reservation`` may name: the values of Compute Engine's specific reservation affinity.

A reservation of the project (``<reservation>``) or a shared one of another project
(``projects/<project>/reservations/<reservation>``: Compute Engine ``ReservationAffinity.values``), either of them
narrowed to a block of an extended reservation (``.../reservationBlocks/<block>``, GoogleCloudPlatform/cluster-toolkit
``modules/compute/gke-node-pool/reservation_definitions.tf``) and to a sub-block of it
(``.../reservationSubBlocks/<sub-block>``, the ComputeClass CRD's ``reservationBlock.reservationSubBlock``). Names are
Compute Engine resource names (RFC 1035); a project ID is 6 to 30 lowercase letters, digits and hyphens starting with
a letter (optionally behind a legacy ``domain:`` prefix).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

_NAME = r"[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?"
_PROJECT = r"(?:[a-z0-9][-a-z0-9.]*[a-z0-9]:)?[a-z][-a-z0-9]{4,28}[a-z0-9]"
RESERVATION_PATH = re.compile(
    rf"^(?:projects/(?P<project>{_PROJECT})/reservations/)?(?P<reservation>{_NAME})"
    rf"(?:/reservationBlocks/(?P<block>{_NAME})(?:/reservationSubBlocks/(?P<sub_block>{_NAME}))?)?$"
)
GRAMMAR = "[projects/<project>/reservations/]<reservation>[/reservationBlocks/<block>[/reservationSubBlocks/<sub-block>]]"
"""The accepted forms, for messages: ``<reservation>/reservationBlocks/<block>`` among them."""


@dataclass(frozen=True)
class ReservationPath:
    """A specific reservation, its project when another one's, and the block and sub-block it is narrowed to."""

    reservation: str
    project: str | None = None
    block: str | None = None
    sub_block: str | None = None

    @classmethod
    def parse(cls, text: str) -> ReservationPath | None:
        match = RESERVATION_PATH.match(text)
        if match is None:
            return None
        return cls(match["reservation"], match["project"], match["block"], match["sub_block"])

    def with_project(self, project: str | None) -> ReservationPath:
        """The path in ``project`` (a pool's ``project`` setting) unless it names its own."""
        return self if project is None or self.project else replace(self, project=project)

    def affinity_value(self) -> str:
        """The node pool's ``reservationAffinity.values`` entry (the path as Compute Engine reads it)."""
        out = f"projects/{self.project}/reservations/{self.reservation}" if self.project else self.reservation
        if self.block:
            out += f"/reservationBlocks/{self.block}"
        if self.sub_block:
            out += f"/reservationSubBlocks/{self.sub_block}"
        return out

    def compute_class_entry(self) -> dict[str, Any]:
        """A ComputeClass ``reservations.specific`` entry: the parts in the CRD's own fields."""
        out: dict[str, Any] = {"name": self.reservation}
        if self.project:
            out["project"] = self.project
        if self.block:
            block: dict[str, Any] = {"name": self.block}
            if self.sub_block:
                block["reservationSubBlock"] = {"name": self.sub_block}
            out["reservationBlock"] = block
        return out


def reservation_path_problem(text: str) -> str | None:
    """Why ``text`` is no specific reservation of a GKE pool (``None``: it is one)."""
    if ReservationPath.parse(text) is None:
        return (
            f"'{text}' is not a reservation: {GRAMMAR} (names: lowercase letters, digits and dashes, at most 63; "
            "a project ID: 6 to 30 of them, starting with a letter), e.g. <reservation>/reservationBlocks/<block>"
        )
    return None
