"""Helpers shared by the tests, each in one place (test modules import them from here, never from each other).

adopting      docs/adopting.md and the files it shows
build         the sdist and wheel of this checkout, built offline
chart_values  the library's Helm values against a chart's values.yaml
cluster_objects  a stack's plan as the objects a cluster receives, and kwok nodes for its GPU pools
control_plane the local control plane (scripts/control_plane.py) as the session fixture `control_plane`
crds          CRD/CEL validation against the vendored CRDs (test_crds.py checks it)
docker_host   GpuDockerHost arguments per cloud, the cloud-init and Compose schemas
helm          vendored charts rendered with Helm's engine
json_schema   a JSON schema validator's errors as lines
kube          reading a workload object's node affinity
kueue         Kueue objects against the CRDs and the ClusterQueue webhook
observability kube-prometheus-stack with its subcharts, the GPU Operator's metrics values
plans         component plans from raw arguments
policy        resources as the policy rules see them
pools         one GPU pool resolved from raw arguments
provider      the package schema as the provider serves it
refusals      what an ArgumentsError or a ConfigError says
scripts       a repository script loaded as a module
sdk_inputs    keyword arguments against a Pulumi SDK resource's input types
stacks        stack files the stack tests start from
wheelhouse    an offline wheelhouse for installing the built wheel
workflows     GitHub workflow files and their vendored schemas

Fixtures and stack helpers every test may use are in tests/conftest.py.
"""
