// Checks one HTTP exchange with GitHub's REST API against GitHub's own OpenAPI description
// (@octokit/openapi, api.github.com): the operation exists; path and query parameters are
// documented and have the documented types; the JSON body has the required fields, the right
// types and no field the description does not name; the response matches the schema the
// operation documents for its status. The schemas are checked by Ajv; this file only finds the
// operation and hands Ajv the right schema.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv from "ajv";
import addFormats from "ajv-formats";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));  // import.meta.dirname needs Node 20.11

const SPEC = join(here, "node_modules/@octokit/openapi/generated/api.github.com.json");

// Not in the description, which documents payloads only; these come from GitHub's REST docs
// ("Getting started with the REST API": media types; "API versions"). The description itself
// calls application/vnd.github+json the default media type.
export const ACCEPT = "application/vnd.github+json";
export const API_VERSIONS = ["2022-11-28"];

// OpenAPI 3.0's `nullable` is not JSON Schema; Ajv takes it only next to `type`, and GitHub's
// description also puts it on allOf/anyOf/enum schemas. Rewritten to what it means: "or null".
function denullable(node) {
  if (Array.isArray(node)) return node.map(denullable);
  if (!node || typeof node !== "object") return node;
  const out = {};
  for (const [k, v] of Object.entries(node)) if (k !== "nullable") out[k] = denullable(v);
  return node.nullable === true ? { anyOf: [out, { type: "null" }] } : out;
}

// Local references ("#/components/schemas/x") point into the document Ajv knows as "gh".
function rebase(node) {
  if (Array.isArray(node)) return node.map(rebase);
  if (!node || typeof node !== "object") return node;
  const out = {};
  for (const [k, v] of Object.entries(node)) out[k] = k === "$ref" && v.startsWith("#/") ? "gh" + v : rebase(v);
  return out;
}

// GitHub ignores body fields it does not know; a client that sends one has a bug the server will
// never report. So request bodies are checked closed: objects that list their properties get
// additionalProperties: false (inline schemas only; references stay as GitHub wrote them).
function closed(node) {
  if (Array.isArray(node)) return node.map(closed);
  if (!node || typeof node !== "object" || node.$ref) return node;
  const out = {};
  for (const [k, v] of Object.entries(node)) out[k] = closed(v);
  if (out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

export class GitHubDescription {
  constructor(specPath = SPEC) {
    const spec = JSON.parse(readFileSync(specPath, "utf8"));
    this.spec = spec;
    this.version = spec.info.version;
    this.ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, discriminator: false });
    addFormats(this.ajv);
    // GitHub's own formats: "owner/name" and a Unix timestamp; documented shapes, checked by type.
    this.ajv.addFormat("repo.nwo", true);
    this.ajv.addFormat("timestamp", true);
    this.ajv.addSchema({ $id: "gh", components: { schemas: denullable(spec.components.schemas) } });
    this.cache = new Map();
    // Path templates, most literal segments first, so /pulls/{n} never shadows a literal path.
    this.routes = Object.keys(spec.paths)
      .map((template) => ({
        template,
        regex: new RegExp("^" + template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "([^/]+)") + "$"),
        names: [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]),
        literals: template.split("/").filter((s) => s && !s.startsWith("{")).length,
      }))
      .sort((a, b) => b.literals - a.literals);
  }

  deref(obj) {
    while (obj && obj.$ref) obj = obj.$ref.slice(2).split("/").reduce((o, k) => o[k], this.spec);
    return obj;
  }

  validator(key, schema, transform = (s) => s) {
    if (!this.cache.has(key)) this.cache.set(key, this.ajv.compile(rebase(transform(denullable(schema)))));
    return this.cache.get(key);
  }

  // { template, method, operation, params } or null.
  operation(method, path) {
    const m = method.toLowerCase();
    for (const r of this.routes) {
      const match = r.regex.exec(path);
      if (!match || !this.spec.paths[r.template][m]) continue;
      const params = Object.fromEntries(r.names.map((n, i) => [n, decodeURIComponent(match[i + 1])]));
      return { template: r.template, method: m, operation: this.spec.paths[r.template][m], params };
    }
    return null;
  }

  // Problems with the request, as sentences; [] when it conforms.
  checkRequest(ex) {
    const problems = [];
    const op = this.operation(ex.method, ex.path);
    if (!op) return [`${ex.method} ${ex.path}: no such operation in GitHub's description`];
    const where = `${ex.method} ${op.template} (${op.operation.operationId})`;
    const headers = ex.request_headers || {};
    if (headers.accept !== ACCEPT) problems.push(`${where}: Accept is ${JSON.stringify(headers.accept)}, not ${ACCEPT}`);
    if (!API_VERSIONS.includes(headers["x-github-api-version"]))
      problems.push(`${where}: X-GitHub-Api-Version is ${JSON.stringify(headers["x-github-api-version"])}, not one of ${API_VERSIONS}`);

    const declared = [...(this.spec.paths[op.template].parameters || []), ...(op.operation.parameters || [])].map((p) =>
      this.deref(p),
    );
    const query = Object.fromEntries(new URLSearchParams(ex.query || ""));
    for (const p of declared) {
      const value = p.in === "path" ? op.params[p.name] : p.in === "query" ? query[p.name] : headers[p.name.toLowerCase()];
      if (value === undefined) {
        if (p.required) problems.push(`${where}: required ${p.in} parameter '${p.name}' is missing`);
        continue;
      }
      const type = p.schema && p.schema.type;
      const typed = type === "integer" || type === "number" ? Number(value) : type === "boolean" ? value === "true" ? true : value === "false" ? false : value : value;
      const v = this.validator(`param ${op.template} ${op.method} ${p.in} ${p.name}`, p.schema || {});
      if ((type === "integer" || type === "number") && (value === "" || Number.isNaN(typed)))
        problems.push(`${where}: ${p.in} parameter '${p.name}' is ${JSON.stringify(value)}, not a ${type}`);
      else if (!v(typed)) problems.push(`${where}: ${p.in} parameter '${p.name}' = ${JSON.stringify(value)}: ${this.ajv.errorsText(v.errors)}`);
    }
    for (const name of Object.keys(query))
      if (!declared.some((p) => p.in === "query" && p.name === name))
        problems.push(`${where}: query parameter '${name}' is not documented for this operation`);

    const body = op.operation.requestBody && this.deref(op.operation.requestBody);
    const hasBody = ex.request_body !== undefined && ex.request_body !== "";
    if (!body) {
      if (hasBody) problems.push(`${where}: sends a body, but the operation takes none`);
      return problems;
    }
    if (!hasBody) {
      if (body.required) problems.push(`${where}: the request body is required`);
      return problems;
    }
    let json;
    try {
      json = JSON.parse(ex.request_body);
    } catch {
      return [...problems, `${where}: the request body is not JSON`];
    }
    if (!/^application\/json\b/.test(headers["content-type"] || ""))
      problems.push(`${where}: Content-Type is ${JSON.stringify(headers["content-type"])}, not application/json`);
    const media = body.content && body.content["application/json"];
    if (!media) return [...problems, `${where}: the operation takes no application/json body`];
    const v = this.validator(`request ${op.template} ${op.method}`, media.schema, closed);
    if (!v(json)) problems.push(`${where}: request body ${this.explain(v.errors)}`);
    return problems;
  }

  // Problems with the response, as sentences; [] when it conforms or the description says
  // nothing checkable about it (a non-JSON 5xx page from GitHub's edge).
  checkResponse(ex) {
    const op = this.operation(ex.method, ex.path);
    if (!op || ex.hang_up) return [];
    const where = `${ex.method} ${op.template} answered ${ex.status}`;
    const documented = op.operation.responses[String(ex.status)] || op.operation.responses.default;
    let json;
    try {
      json = ex.response_body === "" ? undefined : JSON.parse(ex.response_body);
    } catch {
      return ex.status >= 500 ? [] : [`${where}: the body is not JSON`];
    }
    let schema, key;
    if (documented) {
      const r = this.deref(documented);
      const media = r.content && (r.content["application/json"] || r.content["application/scim+json"]);
      if (!media) return json === undefined ? [] : [`${where}: GitHub documents no body for this status, the fake sent one`];
      schema = media.schema;
      key = `response ${op.template} ${op.method} ${ex.status}`;
    } else if (ex.status >= 400) {
      // Statuses an operation does not list (401, 429, 5xx) carry GitHub's generic error body.
      schema = { $ref: "#/components/schemas/basic-error" };
      key = "basic-error";
    } else {
      return [`${where}: the operation documents no ${ex.status} answer`];
    }
    if (json === undefined) return [`${where}: the body is empty, GitHub documents one`];
    const v = this.validator(key, schema);
    return v(json) ? [] : [`${where}: response body ${this.explain(v.errors)}`];
  }

  explain(errors) {
    return (errors || [])
      .slice(0, 8)
      .map((e) => `${e.instancePath || "(root)"} ${e.message}${e.params && e.params.additionalProperty ? ` '${e.params.additionalProperty}'` : ""}`)
      .join("; ");
  }
}
