// Stand-in for @pulumi/kubernetes: `k8s.<group>.<version>.<Kind>` is a resource of type
// `kubernetes:<group>/<version>:<Kind>` (the package's tokens), `k8s.Provider` its provider.
import { resourceClass } from "@gpu-platform-test/record";

export const Provider = resourceClass("pulumi:providers:kubernetes", null);

function group(name) {
    return new Proxy({}, {
        get: (_, version) =>
            new Proxy({}, { get: (__, kind) => resourceClass(`kubernetes:${name}/${String(version)}:${String(kind)}`, null) }),
    });
}

export const core = group("core");
export const apps = group("apps");
export const batch = group("batch");
export const rbac = group("rbac.authorization.k8s.io");
export const networking = group("networking.k8s.io");
export const scheduling = group("scheduling.k8s.io");
