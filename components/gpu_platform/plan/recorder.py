"""Pulumi mock runtime that records every registration with its options, as ``pulumi preview`` sees it.

The stock ``MockMonitor`` hides parents, dependencies and resource options from ``Mocks``; this
monitor captures them from the ``RegisterResource`` request itself (see PULUMI_NOTES.md).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import pulumi
from pulumi.runtime import mocks as pulumi_mocks
from pulumi.runtime import rpc

SECRET_PLACEHOLDER = "[secret]"


@dataclass
class Registration:
    urn: str
    type: str
    name: str
    parent: str
    provider: str
    custom: bool
    depends_on: list[str]
    inputs: dict[str, Any]
    options: dict[str, Any]
    outputs: dict[str, Any] = field(default_factory=dict)


def _plain(value: Any) -> Any:
    """Inputs as sent to the engine, with secrets masked and resource references as URNs."""
    if isinstance(value, dict):
        if value.get(rpc._special_sig_key) == rpc._special_secret_sig:
            return SECRET_PLACEHOLDER
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, pulumi.Resource):
        return getattr(value, "_urn_str", None) or f"<{type(value).__name__}>"
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _alias_text(alias: Any) -> str:
    if alias.WhichOneof("alias") == "urn":
        return alias.urn
    spec = alias.spec
    return f"{spec.type or '*'}::{spec.name or '*'}" + (
        f" (parent {spec.parentUrn})" if spec.parentUrn else ""
    )


class PlanMocks(pulumi_mocks.Mocks):
    """Returns each resource's inputs as its state, plus the outputs later code reads."""

    def new_resource(self, args: pulumi_mocks.MockResourceArgs) -> tuple[str, dict]:
        state = dict(args.inputs)
        state.setdefault("name", args.inputs.get("name", args.name))
        fake_id = f"{args.name}-id"
        t = args.typ
        if t == "kubernetes:helm.sh/v3:Release":
            state.setdefault("status", {"status": "deployed", "namespace": args.inputs.get("namespace", "")})
        elif t.startswith("aws:eks/cluster:Cluster"):
            state.update(
                endpoint=f"https://{args.name}.eks.example",
                certificateAuthority={"data": "Q0E="},
                identities=[{"oidcs": [{"issuer": f"https://oidc.eks.example/id/{args.name}"}]}],
                arn=f"arn:aws:eks:region:000000000000:cluster/{args.name}",
                vpcConfig={**args.inputs.get("vpcConfig", {}), "clusterSecurityGroupId": f"sg-{args.name}"},
            )
        elif t.startswith("aws:ec2/launchTemplate:LaunchTemplate"):
            state.update(latestVersion=1, defaultVersion=1)
        elif t.startswith("gcp:serviceaccount/account:Account"):
            account = args.inputs.get("accountId", args.name)
            project = args.inputs.get("project", "mock-project")
            email = f"{account}@{project}.iam.gserviceaccount.com"
            state.update(email=email, member=f"serviceAccount:{email}")
        elif t.startswith("aws:iam/role:Role") or t.startswith("aws:iam/openIdConnectProvider"):
            state["arn"] = f"arn:aws:iam::000000000000:role/{args.name}"
        elif t.startswith("gcp:container/cluster:Cluster"):
            state.update(endpoint="203.0.113.10", masterAuth={"clusterCaCertificate": "Q0E="})
        elif t.startswith("azure-native:containerservice:ManagedCluster"):
            state.update(fqdn=f"{args.name}.hcp.example")
        return fake_id, state

    def call(self, args: pulumi_mocks.MockCallArgs) -> tuple[dict, list]:
        tok = args.token
        if tok == "aws:index/getCallerIdentity:getCallerIdentity":
            return {
                "accountId": "000000000000",
                "arn": "arn:aws:iam::000000000000:user/mock",
                "userId": "mock",
            }, []
        if tok == "aws:ssm/getParameter:getParameter":
            return {"value": "1.33.0-20260101", "name": args.args.get("name", ""), "type": "String"}, []
        if tok.startswith("azure-native:containerservice:listManagedClusterUserCredentials"):
            return {"kubeconfigs": [{"name": "clusterUser", "value": "a3ViZWNvbmZpZw=="}]}, []
        if tok == "aws:index/getAvailabilityZones:getAvailabilityZones":
            region = args.args.get("region") or "mock-region-1"
            names = [f"{region}{suffix}" for suffix in "abc"]
            return {"id": region, "names": names, "zoneIds": [f"mock1-az{i}" for i in (1, 2, 3)]}, []
        if tok == "gcp:organizations/getClientConfig:getClientConfig":
            return {"accessToken": "mock", "project": "mock-project", "region": "", "zone": ""}, []
        return dict(args.args), []


class RecordingMonitor(pulumi_mocks.MockMonitor):
    """A mock monitor that keeps every RegisterResource request in order."""

    def __init__(self, mocks: pulumi_mocks.Mocks):
        super().__init__(mocks)
        self.registrations: list[Registration] = []

    def RegisterResource(self, request: Any) -> Any:
        response = super().RegisterResource(request)
        if request.type == "pulumi:pulumi:Stack":
            return response
        inputs = rpc.deserialize_properties(request.object, keep_unknowns=True, keep_internal=True)
        aliases = [_alias_text(a) for a in request.aliases] + list(request.aliasURNs)
        self.registrations.append(
            Registration(
                urn=response.urn,
                type=request.type,
                name=request.name,
                parent=request.parent,
                provider=request.provider,
                custom=bool(request.custom),
                depends_on=sorted(set(request.dependencies)),
                inputs=_plain(inputs),
                options={
                    "protect": bool(request.protect),
                    "ignoreChanges": sorted(request.ignoreChanges),
                    "deleteBeforeReplace": bool(request.deleteBeforeReplace),
                    "replaceOnChanges": sorted(request.replaceOnChanges),
                    "aliases": sorted(aliases),
                },
            )
        )
        return response


def start_mock_runtime(
    project: str, stack: str, config: dict[str, str], secret_keys: list[str]
) -> RecordingMonitor:
    """Reset the Pulumi runtime to a fresh mocked engine with this config; return the recorder."""
    from pulumi.runtime import settings

    try:
        previous = asyncio.get_event_loop_policy().get_event_loop()
    except RuntimeError:
        previous = None
    if previous is not None and not previous.is_running() and not previous.is_closed():
        previous.close()
    asyncio.set_event_loop(asyncio.new_event_loop())
    settings.SETTINGS.rpc_manager.clear()
    settings.SETTINGS.outputs.clear()
    settings.ROOT.set(None)
    pulumi.runtime.set_all_config(config, secret_keys)
    monitor = RecordingMonitor(PlanMocks())
    pulumi.runtime.set_mocks(PlanMocks(), project=project, stack=stack, preview=False, monitor=monitor)
    return monitor


def run_under_mocks(program: Any) -> None:
    """Run ``program()`` and wait until every registration and output has settled."""
    from pulumi.runtime.stack import run_pulumi_func
    from pulumi.runtime.sync_await import _sync_await

    _sync_await(run_pulumi_func(program))


def close_mock_runtime() -> None:
    """Close the plan's event loop now, not at interpreter exit, where its self-pipe may be gone."""
    loop = asyncio.get_event_loop()
    for task in asyncio.all_tasks(loop):
        task.cancel()
    loop.run_until_complete(asyncio.sleep(0))
    loop.close()
