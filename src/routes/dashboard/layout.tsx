// The dashboard's page frame: one inline stylesheet (no build step), the favicon link, a
// skip link, the navigation, the inline script (copy buttons, live refresh: live.ts), and
// small shared pieces (CSRF field, times, status badges, ids, copy button).
import type { Child } from "hono/jsx";
import { raw } from "hono/html";
import { CSRF_FIELD } from "../../auth/session.ts";
import { FAVICON_PATH } from "./favicon.ts";
import { liveScript } from "./live.ts";
import { storyboardScript } from "./storyboard.tsx";

const css = `
:root{--fg:#1b1f24;--muted:#57606a;--bg:#fff;--panel:#f6f8fa;--line:#d0d7de;--link:#0550ae;--accent:#0550ae;--danger:#a40e26;--ok:#116329;--warn:#7d4e00;--focus:#bf3989}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--link)}
a:hover{text-decoration-thickness:2px}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:var(--bg);padding:.5rem 1rem}
.skip:focus{left:.5rem;z-index:10}
header.top{background:var(--panel);border-bottom:1px solid var(--line)}
header.top .bar{max-width:72rem;margin:0 auto;padding:.5rem 1rem;display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;align-items:center}
.brand{font-weight:700;text-decoration:none;color:var(--fg)}
nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem 1rem}
nav a{text-decoration:none;padding:.25rem 0;display:inline-block}
nav a[aria-current=page]{font-weight:700;border-bottom:3px solid var(--accent)}
.who{margin-left:auto;display:flex;gap:.75rem;align-items:center;flex-wrap:wrap;color:var(--muted);font-size:.9rem}
main{max-width:72rem;margin:0 auto;padding:1rem 1rem 3rem}
h1{font-size:1.6rem;margin:.5rem 0 1rem;overflow-wrap:anywhere}
h2{font-size:1.2rem;margin:2rem 0 .75rem}
.table-wrap{overflow-x:auto;border:1px solid var(--line);border-radius:6px}
table{border-collapse:collapse;width:100%;font-size:.95rem}
th,td{text-align:left;padding:.5rem .75rem;border-bottom:1px solid var(--line);vertical-align:top}
th{background:var(--panel);font-weight:600;white-space:nowrap}
tr:last-child td{border-bottom:0}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}
pre{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:.75rem;overflow-x:auto;font-size:.85rem}
pre.wrap{white-space:pre-wrap;overflow-wrap:anywhere}
form.inline{display:inline}
.stack>*+*{margin-top:.75rem}
label{display:block;font-weight:600;margin-bottom:.25rem}
input[type=text],input[type=email],input[type=password],select{font:inherit;padding:.45rem .6rem;border:1px solid #8c959f;border-radius:6px;min-width:0;width:100%;max-width:28rem;background:var(--bg);color:var(--fg)}
fieldset{border:1px solid var(--line);border-radius:6px;padding:.5rem .75rem;max-width:28rem;margin:0}
fieldset input{margin:0 .35rem 0 0}
fieldset label{display:inline;font-weight:400;margin-right:1rem}
legend{font-weight:600}
button,.button{font:inherit;font-weight:600;padding:.45rem .9rem;border-radius:6px;border:1px solid var(--accent);background:var(--accent);color:#fff;cursor:pointer;text-decoration:none;display:inline-block}
button.secondary,.button.secondary{background:var(--bg);color:var(--accent)}
button.danger{background:var(--danger);border-color:var(--danger)}
button.link{background:none;border:0;color:var(--link);text-decoration:underline;padding:0;font-weight:400}
.filters{display:flex;flex-wrap:wrap;gap:.75rem;align-items:flex-end;margin-bottom:1rem}
.filters select{width:auto}
.notice{border:1px solid var(--line);border-left:6px solid var(--accent);background:var(--panel);padding:.75rem 1rem;border-radius:6px;margin:1rem 0}
.notice.error{border-left-color:var(--danger)}
.notice.success{border-left-color:var(--ok)}
.secret{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
.secret input{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;max-width:40rem}
.badge{display:inline-block;padding:0 .5rem;border-radius:999px;font-size:.85rem;font-weight:600;border:1px solid currentColor;white-space:nowrap}
.s-completed,.s-succeeded,.s-stored{color:var(--ok)}.s-pending{color:var(--warn)}.s-failed{color:var(--danger)}.s-cancelled{color:var(--muted)}.s-processing{color:var(--accent)}.s-queued{color:var(--warn)}
.muted{color:var(--muted)}
.id{display:inline-block;max-width:100%;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;vertical-align:bottom}
.response-headers td:first-child{white-space:nowrap}
.response-headers td{overflow-wrap:anywhere}
dl.fields{display:grid;grid-template-columns:max-content 1fr;gap:.35rem 1.25rem;margin:0}
dl.fields dt{font-weight:600}
dl.fields dd{margin:0;overflow-wrap:anywhere;min-width:0}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(12rem,1fr));gap:1rem}
.card{border:1px solid var(--line);border-radius:6px;padding:.75rem 1rem}
.card h2{margin:0 0 .25rem;font-size:1rem}
.card p{margin:.25rem 0}
.card .big{font-size:1.8rem;font-weight:700}
.previews{display:flex;flex-wrap:wrap;gap:1rem}
.previews figure{margin:0;max-width:16rem}
.previews img{max-width:100%;height:auto;border:1px solid var(--line);border-radius:4px;display:block}
.previews video{max-width:100%;height:auto;display:block}
.previews figcaption{font-size:.85rem;color:var(--muted)}
progress{width:12rem;max-width:100%}
.chart{margin:0}
.chart svg{width:100%;height:auto;max-height:16rem}
.chart .bar{fill:var(--accent)}
.chart .axis{stroke:var(--line)}
.chart text{fill:var(--muted);font-size:10px}
.sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
.pager{display:flex;gap:1rem;margin-top:1rem}
@media (max-width:40rem){
  body{font-size:15px}
  .who{margin-left:0;width:100%}
  dl.fields{grid-template-columns:1fr}
  dl.fields dd{margin-bottom:.5rem}
  th,td{padding:.4rem .5rem}
  h1 .id{font-size:.75em}
  table.cards-narrow thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0,0,0,0)}
  table.cards-narrow,table.cards-narrow tbody,table.cards-narrow tr{display:block;width:100%}
  table.cards-narrow tr{border-bottom:1px solid var(--line);padding:.4rem 0}
  table.cards-narrow tr:last-child{border-bottom:0}
  table.cards-narrow td{display:flex;gap:.75rem;border:0;padding:.15rem .75rem;min-width:0}
  table.cards-narrow td[data-label]::before{content:attr(data-label);font-weight:600;flex:none;width:5.5rem}
  table.cards-narrow td>*{min-width:0}
}
`;

export type NavItem = "jobs" | "workflows" | "usage" | "keys" | "webhooks" | "destinations" | "account";

const NAV: { id: NavItem; href: string; label: string }[] = [
  { id: "jobs", href: "/dashboard/jobs", label: "Jobs" },
  { id: "workflows", href: "/dashboard/workflows", label: "Workflows" },
  { id: "usage", href: "/dashboard/usage", label: "Usage" },
  { id: "keys", href: "/dashboard/keys", label: "API keys" },
  { id: "webhooks", href: "/dashboard/webhooks", label: "Webhooks" },
  { id: "destinations", href: "/dashboard/destinations", label: "Destinations" },
  { id: "account", href: "/dashboard/account", label: "Account" },
];

export interface Viewer {
  email: string;
  orgSlug: string;
  csrfToken: string;
}

export interface LayoutProps {
  title: string;
  /** The page's h1 when it is more than the title's text. */
  heading?: Child;
  nonce: string;
  viewer?: Viewer;
  current?: NavItem;
  children?: Child;
}

export function Layout(props: LayoutProps) {
  return (
    <>
      {raw("<!DOCTYPE html>")}
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <meta name="referrer" content="same-origin" />
          <title>{props.title} · media-jobs</title>
          <link rel="icon" href={FAVICON_PATH} type="image/svg+xml" />
          <style nonce={props.nonce} dangerouslySetInnerHTML={{ __html: css }} />
        </head>
        <body>
          <a class="skip" href="#main">Skip to content</a>
          <header class="top">
            <div class="bar">
              <a class="brand" href="/dashboard">media-jobs</a>
              {props.viewer && (
                <>
                  <nav aria-label="Dashboard">
                    <ul>
                      {NAV.map((item) => (
                        <li>
                          <a href={item.href} aria-current={props.current === item.id ? "page" : undefined}>
                            {item.label}
                          </a>
                        </li>
                      ))}
                    </ul>
                  </nav>
                  <div class="who">
                    <span>
                      {props.viewer.email} · <span class="mono">{props.viewer.orgSlug}</span>
                    </span>
                    <form class="inline" method="post" action="/dashboard/sign-out">
                      <CsrfField token={props.viewer.csrfToken} />
                      <button type="submit" class="link">
                        Sign out
                      </button>
                    </form>
                  </div>
                </>
              )}
            </div>
          </header>
          <main id="main" tabindex={-1}>
            <h1>{props.heading ?? props.title}</h1>
            {props.children}
          </main>
          {/* Outside <main>, which the live refresh may replace: announces a job that ended. */}
          <p id="live-announce" class="sr-only" role="status"></p>
          <script nonce={props.nonce} dangerouslySetInnerHTML={{ __html: copyScript + liveScript + storyboardScript }} />
        </body>
      </html>
    </>
  );
}

// Copy buttons: `<button data-copy="id">` copies that input's value; without clipboard
// access it selects the text so the user can copy it by hand.
const copyScript = `
document.addEventListener("click", async (event) => {
  const button = event.target.closest("button[data-copy]");
  if (!button) return;
  const input = document.getElementById(button.dataset.copy);
  const status = document.getElementById(button.dataset.copy + "-status");
  try {
    await navigator.clipboard.writeText(input.value);
    if (status) status.textContent = "Copied.";
  } catch {
    input.select();
    if (status) status.textContent = "Selected: press Ctrl+C or Cmd+C to copy.";
  }
});`;

export function CsrfField(props: { token: string }) {
  return <input type="hidden" name={CSRF_FIELD} value={props.token} />;
}

/** A timestamp in UTC, machine-readable in `datetime`. */
export function Time(props: { ms: number | null | undefined; empty?: string }) {
  if (props.ms == null) return <span class="muted">{props.empty ?? "—"}</span>;
  const iso = new Date(props.ms).toISOString();
  return <time datetime={iso}>{iso.slice(0, 16).replace("T", " ")} UTC</time>;
}

/** A list's links to its first page (unless on it) and the next older one (when there is one); `what` is the list's noun, such as "jobs". */
export function Pager(props: { what: string; first?: string; next?: string }) {
  return (
    <nav class="pager" aria-label="Pages">
      {props.first && <a href={props.first}>Newest {props.what}</a>}
      {props.next && (
        <a href={props.next} rel="next">
          Older {props.what} →
        </a>
      )}
    </nav>
  );
}

export function StatusBadge(props: { status: string }) {
  return <span class={`badge s-${props.status}`}>{props.status}</span>;
}

/** An id in full, cut with an ellipsis (whole in `title`) where the line is too narrow. */
export function Id(props: { id: string; href?: string }) {
  return props.href ? (
    <a href={props.href} class="mono id" title={props.id}>
      {props.id}
    </a>
  ) : (
    <code class="id" title={props.id}>
      {props.id}
    </code>
  );
}

export function Notice(props: { kind?: "error" | "success" | "info"; children?: Child }) {
  const kind = props.kind ?? "info";
  return (
    <div class={`notice ${kind}`} role={kind === "error" ? "alert" : "status"}>
      {props.children}
    </div>
  );
}

/** A read-only field with a copy button, for a secret shown on this page only. */
export function SecretField(props: { id: string; label: string; value: string }) {
  return (
    <div>
      <label for={props.id}>{props.label}</label>
      <div class="secret">
        <input type="text" id={props.id} value={props.value} readonly spellcheck={false} autocomplete="off" size={60} />
        <button type="button" class="secondary" data-copy={props.id}>
          Copy
        </button>
        <span id={`${props.id}-status`} role="status" class="muted"></span>
      </div>
    </div>
  );
}

/** A table's header row of column names. */
export function TableHead(props: { columns: string[] }) {
  return (
    <thead>
      <tr>
        {props.columns.map((name) => (
          <th scope="col">{name}</th>
        ))}
      </tr>
    </thead>
  );
}

/** The one row of a table body that has no rows, saying so across every column. */
export function EmptyRow(props: { columns: number; children?: Child }) {
  return (
    <tr>
      <td colspan={props.columns} class="muted">
        {props.children}
      </td>
    </tr>
  );
}

/** A confirmation step: what happens (children), then a POST button and a way back. */
export function ConfirmForm(props: { action: string; csrfToken: string; confirm: string; cancelHref: string; children?: Child }) {
  return (
    <>
      <p>{props.children}</p>
      <form method="post" action={props.action}>
        <CsrfField token={props.csrfToken} />
        <button type="submit" class="danger">
          {props.confirm}
        </button>{" "}
        <a href={props.cancelHref} class="button secondary">
          Cancel
        </a>
      </form>
    </>
  );
}
