// What a Pulumi TypeScript program constructs, recorded by stand-ins for its Pulumi packages, so that a
// test can run the program with node alone (no Pulumi engine, no npm install) and check what it used.
export const calls = [];
export const problems = [];

/** An output of a resource: serialised as the resource and property it comes from. */
export class OutputRef {
    constructor(ref) {
        this.ref = ref;
    }
    toJSON() {
        return { __output: this.ref };
    }
}

const INTERNAL = new Set(["toJSON", "constructor"]);

/** A resource class of type `token` with the given output names; reading any other property is a problem. */
export function resourceClass(token, outputs) {
    return class {
        constructor(name, args, opts) {
            calls.push({ type: token, name, args: args ?? {}, opts: opts ?? {} });
            const self = { name, token };
            return new Proxy(self, {
                get(target, prop) {
                    if (typeof prop === "symbol") return undefined;
                    if (prop === "toJSON") return () => ({ __resource: `${token}::${name}` });
                    if (INTERNAL.has(prop)) return Reflect.get(target, prop);
                    if (outputs === null || outputs.includes(prop)) return new OutputRef(`${name}.${prop}`);
                    problems.push(`${name}: ${token} has no output '${prop}'`);
                    return undefined;
                },
            });
        }
    };
}
