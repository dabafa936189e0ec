// /docs: the OpenAPI document rendered on the server as a plain reference page (endpoints,
// parameters, responses, webhooks, schemas). No scripts and nothing fetched from elsewhere,
// so it works offline and under any Content-Security-Policy.
import type { Child } from "hono/jsx";
import type { OpenApiDocument } from "../contract/openapi.ts";
import type { JsonSchema } from "../contract/openapi-schemas.ts";

const css = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24}
main{max-width:64rem;margin:0 auto;padding:1rem 1rem 4rem}
a{color:#0550ae}
h1{font-size:1.7rem}h2{font-size:1.35rem;margin-top:2.5rem;border-bottom:1px solid #d0d7de}h3{font-size:1.1rem;margin:2rem 0 .5rem;overflow-wrap:anywhere}h4{font-size:1rem;margin:1rem 0 .35rem}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.88em;background:#f6f8fa;padding:0 .2em;border-radius:4px}
.method{display:inline-block;min-width:4rem;font-family:ui-monospace,monospace;font-weight:700;color:#fff;background:#0550ae;border-radius:4px;padding:0 .4rem;margin-right:.5rem;text-align:center}
.method.post{background:#116329}
.table-wrap{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:.92rem;margin:.25rem 0 .75rem}
th,td{text-align:left;padding:.35rem .6rem;border:1px solid #d0d7de;vertical-align:top}
th{background:#f6f8fa}
td table{margin:.35rem 0 0}
.muted{color:#57606a}
nav ul{columns:2 16rem;padding-left:1.25rem}
pre{background:#f6f8fa;padding:.75rem;overflow-x:auto;font-size:.85rem;border-radius:6px}
`;

const refName = (ref: string) => ref.slice(ref.lastIndexOf("/") + 1);
const anchor = (kind: string, name: string) => `${kind}-${name.replace(/[^A-Za-z0-9_-]/g, "-")}`;

/** Text with `backtick` spans as code. */
function Md({ text }: { text?: unknown }) {
  if (typeof text !== "string") return null;
  return <>{text.split("`").map((part, i) => (i % 2 ? <code>{part}</code> : part))}</>;
}

function typeLabel(schema: JsonSchema | undefined): Child {
  if (!schema) return "any";
  if (typeof schema.$ref === "string") {
    const name = refName(schema.$ref);
    return <a href={`#${anchor("schema", name)}`}>{name}</a>;
  }
  if ("const" in schema) return <code>{JSON.stringify(schema.const)}</code>;
  if (Array.isArray(schema.enum)) return <>{schema.enum.map((v, i) => <>{i ? " | " : ""}<code>{JSON.stringify(v)}</code></>)}</>;
  for (const [key, sep] of [["oneOf", " | "], ["anyOf", " | "], ["allOf", " & "]] as const) {
    const list = schema[key];
    if (Array.isArray(list)) return <>{(list as JsonSchema[]).map((s, i) => <>{i ? sep : ""}{typeLabel(s)}</>)}</>;
  }
  if (schema.type === "array") return <>{typeLabel(schema.items as JsonSchema)}[]</>;
  const type = Array.isArray(schema.type) ? schema.type.join(" | ") : String(schema.type ?? "any");
  return typeof schema.format === "string" ? `${type} (${schema.format})` : type;
}

function constraints(schema: JsonSchema): string {
  const parts: string[] = [];
  const bound = (key: string, word: string) => {
    const v = schema[key];
    // zod writes the safe-integer range on every int; it says nothing to a reader.
    if (typeof v === "number" && Math.abs(v) < Number.MAX_SAFE_INTEGER) parts.push(`${word} ${v}`);
  };
  bound("minimum", "≥"); bound("maximum", "≤"); bound("exclusiveMinimum", ">"); bound("exclusiveMaximum", "<");
  bound("minLength", "length ≥"); bound("maxLength", "length ≤"); bound("minItems", "items ≥"); bound("maxItems", "items ≤");
  if (typeof schema.pattern === "string") parts.push(`matches ${schema.pattern}`);
  if ("default" in schema) parts.push(`default ${JSON.stringify(schema.default)}`);
  return parts.join(", ");
}

/** Object properties as a table; nested objects and inline variants get their own table inside. */
function Properties({ schema }: { schema: JsonSchema }) {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return (
    <div class="table-wrap">
      <table>
        <thead><tr><th>field</th><th>type</th><th>required</th><th>notes</th></tr></thead>
        <tbody>
          {Object.entries(properties).map(([name, prop]) => (
            <tr>
              <td><code>{name}</code></td>
              <td>{typeLabel(prop)}</td>
              <td>{required.has(name) ? "yes" : ""}</td>
              <td><Md text={prop.description} /> {constraints(prop)}<Nested schema={prop} /></td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Nested({ schema }: { schema: JsonSchema }): Child {
  if (schema.type === "object" && schema.properties) return <Properties schema={schema} />;
  if (schema.type === "array" && schema.items) return <Nested schema={schema.items as JsonSchema} />;
  const variants = (schema.oneOf ?? schema.anyOf) as JsonSchema[] | undefined;
  if (variants) return <>{variants.map((v) => <Nested schema={v} />)}</>;
  return null;
}

function SchemaBlock({ name, schema }: { name: string; schema: JsonSchema }) {
  return (
    <section>
      <h3 id={anchor("schema", name)}>{name}</h3>
      <p><Md text={schema.description} /></p>
      {schema.type === "object" ? <Properties schema={schema} /> : <p>{typeLabel({ ...schema, description: undefined })}</p>}
      {schema.type !== "object" && <Nested schema={schema} />}
    </section>
  );
}

type Operation = JsonSchema & { parameters?: JsonSchema[]; responses?: Record<string, JsonSchema>; requestBody?: JsonSchema };

function resolveResponse(doc: OpenApiDocument, response: JsonSchema): JsonSchema {
  if (typeof response.$ref !== "string") return response;
  const responses = (doc.components as { responses: Record<string, JsonSchema> }).responses;
  return responses[refName(response.$ref)] ?? response;
}

function bodySchema(content: unknown): JsonSchema | undefined {
  const media = content as Record<string, { schema?: JsonSchema }> | undefined;
  const first = media && Object.values(media)[0];
  return first?.schema;
}

function OperationBlock({ doc, method, path, op, id }: { doc: OpenApiDocument; method: string; path: string; op: Operation; id: string }) {
  const isPublic = Array.isArray(op.security) && op.security.length === 0;
  return (
    <section>
      <h3 id={id}><span class={`method ${method}`}>{method.toUpperCase()}</span><code>{path}</code></h3>
      <p><strong><Md text={op.summary} /></strong>{isPublic ? <span class="muted"> · no API key</span> : null}</p>
      {op.description ? <p><Md text={op.description} /></p> : null}
      {op.parameters?.length ? (
        <>
          <h4>Parameters</h4>
          <div class="table-wrap"><table>
            <thead><tr><th>name</th><th>in</th><th>type</th><th>required</th><th>notes</th></tr></thead>
            <tbody>{op.parameters.map((p) => (
              <tr><td><code>{String(p.name)}</code></td><td>{String(p.in)}</td><td>{typeLabel(p.schema as JsonSchema)}</td><td>{p.required ? "yes" : ""}</td>
                <td><Md text={p.description} /> {constraints((p.schema ?? {}) as JsonSchema)}</td></tr>
            ))}</tbody>
          </table></div>
        </>
      ) : null}
      {op.requestBody ? <><h4>Request body</h4><p>{typeLabel(bodySchema(op.requestBody.content))}</p>
        {op.requestBody.content ? <pre>{JSON.stringify((Object.values(op.requestBody.content as object)[0] as { example?: unknown }).example ?? null, null, 2)}</pre> : null}</> : null}
      <h4>Responses</h4>
      <div class="table-wrap"><table>
        <thead><tr><th>status</th><th>body</th><th>description</th><th>headers</th></tr></thead>
        <tbody>{Object.entries(op.responses ?? {}).map(([status, raw]) => {
          const response = resolveResponse(doc, raw);
          const schema = bodySchema(response.content);
          return (
            <tr><td>{status}</td><td>{schema ? typeLabel(schema.allOf ? (schema.allOf as JsonSchema[])[0] : schema) : ""}</td><td><Md text={response.description} /></td>
              <td>{Object.keys((response.headers ?? {}) as object).map((h, i) => <>{i ? ", " : ""}<code>{h}</code></>)}</td></tr>
          );
        })}</tbody>
      </table></div>
    </section>
  );
}

export function DocsPage({ doc }: { doc: OpenApiDocument }) {
  const info = doc.info as { title: string; version: string; description?: string; summary?: string };
  const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ path, method, op: op as Operation, id: anchor("op", `${method}-${path}`) })),
  );
  const hooks = Object.entries((doc.webhooks ?? {}) as Record<string, Record<string, Operation>>).flatMap(([name, item]) =>
    Object.entries(item).map(([method, op]) => ({ name, method, op, id: anchor("webhook", name) })),
  );
  const components = doc.components as { schemas: Record<string, JsonSchema>; headers: Record<string, JsonSchema>; securitySchemes: Record<string, JsonSchema> };
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width,initial-scale=1" />
        <title>{`${info.title} API reference`}</title>
        <style>{css}</style>
      </head>
      <body>
        <main>
          <h1>{info.title} API reference <span class="muted">v{info.version}</span></h1>
          <p><Md text={info.summary} /> <Md text={info.description} /></p>
          <p>Machine-readable: <a href="/v1/openapi.json"><code>/v1/openapi.json</code></a> (OpenAPI {doc.openapi}).</p>
          <h2 id="auth">Authentication</h2>
          {Object.entries(components.securitySchemes).map(([name, scheme]) => <p><code>{name}</code>: <Md text={scheme.description} /></p>)}
          <h2 id="endpoints">Endpoints</h2>
          <nav><ul>{operations.map((o) => <li><a href={`#${o.id}`}>{o.method.toUpperCase()} {o.path}</a></li>)}</ul></nav>
          {operations.map((o) => <OperationBlock doc={doc} method={o.method} path={o.path} op={o.op} id={o.id} />)}
          <h2 id="webhooks">Webhooks</h2>
          {hooks.map((h) => <OperationBlock doc={doc} method={h.method} path={`${h.name} → your webhookUrl`} op={h.op} id={h.id} />)}
          <h2 id="headers">Headers</h2>
          <div class="table-wrap"><table><tbody>{Object.entries(components.headers).map(([name, h]) => <tr><td><code>{name}</code></td><td><Md text={h.description} /></td></tr>)}</tbody></table></div>
          <h2 id="schemas">Schemas</h2>
          <nav><ul>{Object.keys(components.schemas).map((name) => <li><a href={`#${anchor("schema", name)}`}>{name}</a></li>)}</ul></nav>
          {Object.entries(components.schemas).map(([name, schema]) => <SchemaBlock name={name} schema={schema} />)}
        </main>
      </body>
    </html>
  );
}

/** The whole page as HTML (synchronous: no component here is async). */
export function renderDocsPage(doc: OpenApiDocument): string {
  return `<!doctype html>${(<DocsPage doc={doc} />).toString()}`;
}
