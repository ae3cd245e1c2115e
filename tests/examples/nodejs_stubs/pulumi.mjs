// Stand-in for @pulumi/pulumi: stack configuration from the PULUMI_TEST_CONFIG environment variable
// (a JSON object of "namespace:key" -> value, as in Pulumi.<stack>.yaml).
const values = JSON.parse(process.env.PULUMI_TEST_CONFIG ?? "{}");
const project = process.env.PULUMI_TEST_PROJECT;

export class Config {
    constructor(namespace) {
        this.namespace = namespace ?? project;
    }
    get(key) {
        const value = values[`${this.namespace}:${key}`];
        return value === undefined || typeof value === "string" ? value : JSON.stringify(value);
    }
    require(key) {
        const value = this.get(key);
        if (value === undefined) throw new Error(`Missing required configuration variable '${this.namespace}:${key}'`);
        return value;
    }
    getObject(key) {
        const value = this.get(key);
        return value === undefined ? undefined : JSON.parse(value);
    }
    requireObject(key) {
        return JSON.parse(this.require(key));
    }
    getNumber(key) {
        const value = this.get(key);
        return value === undefined ? undefined : Number(value);
    }
    requireNumber(key) {
        return Number(this.require(key));
    }
    getBoolean(key) {
        const value = this.get(key);
        return value === undefined ? undefined : value === "true";
    }
    requireBoolean(key) {
        return this.require(key) === "true";
    }
}
