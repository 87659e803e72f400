import { CLIENT_EVENT_FIELDS, CLIENT_EVENT_TYPES, SERVER_EVENT_TYPES } from '@svc/core';
import { CLIENT_EVENT_DOCS, CLOSE_ENDING_DOCS, SERVER_EVENT_DOCS } from './realtime-reference-catalog.js';

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const anchor = (type: string) => `ev-${type.replace(/[^a-z0-9]+/gi, '-')}`;
const EXTENSIONS = new Set([
  'response.output_audio_transcript.length',
  'conversation.context.summarized',
  'session.idle_timeout',
  'session.max_duration_reached',
]);

/**
 * /docs/realtime: the WebSocket protocol, which OpenAPI cannot describe, as one static HTML page
 * built from the engine's event definitions and the catalog's examples. Rendered once at start.
 */
export function renderRealtimeReference(closeCodes: Readonly<Record<string, number>>): string {
  const clientRows = CLIENT_EVENT_TYPES.map((type) => {
    const fields = (CLIENT_EVENT_FIELDS[type] as readonly string[]).map((f) => `<code>${f}</code>`).join(', ') || 'none';
    return eventSection(
      type,
      `Fields: ${fields} (plus optional <code>event_id</code>)`,
      CLIENT_EVENT_DOCS[type].summary,
      CLIENT_EVENT_DOCS[type].example,
    );
  });
  const serverRows = SERVER_EVENT_TYPES.map((type) =>
    eventSection(
      type,
      EXTENSIONS.has(type) ? 'Extension event of this service' : '',
      SERVER_EVENT_DOCS[type].summary,
      SERVER_EVENT_DOCS[type].example,
    ),
  );
  // One row per code, with every reason the transport closes with it.
  const byCode = new Map<number, string[]>();
  for (const [ending, code] of Object.entries(closeCodes)) {
    byCode.set(code, [
      ...(byCode.get(code) ?? []),
      `${escape(CLOSE_ENDING_DOCS[ending] ?? ending)} <span class="muted">(<code>${ending}</code>)</span>`,
    ]);
  }
  // Not in the transport's table: the WebSocket library itself closes an oversized frame.
  byCode.set(1009, [...(byCode.get(1009) ?? []), "A frame larger than the server's frame limit (sent by the WebSocket library)."]);
  const closeRows = [...byCode.entries()]
    .sort(([a], [b]) => a - b)
    .map(([code, reasons]) => `<tr><td><code>${code}</code></td><td>${reasons.join('<br>')}</td></tr>`)
    .join('\n');
  const toc = (types: readonly string[]) => types.map((t) => `<li><a href="#${anchor(t)}"><code>${t}</code></a></li>`).join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>svc realtime protocol</title>
<link rel="icon" href="/playground/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/playground/style.css">
<link rel="stylesheet" href="/playground/reference.css">
</head>
<body>
<header class="topbar">
  <div class="brand"><img src="/playground/favicon.svg" alt="" width="28" height="28"> <strong>svc</strong> realtime protocol</div>
  <nav class="links" aria-label="Pages"><a href="/playground">Playground</a> <a href="/docs">API reference</a></nav>
</header>
<main id="main" class="reference">
<h1>Realtime WebSocket protocol</h1>
<p><code>GET /v1/realtime</code> upgraded to a WebSocket on the same host and port as the REST API; JSON text frames both ways.
The events below are listed from the definitions the session engine itself uses. Clients must tolerate server event types they do not know.</p>
<h2 id="connect">Connecting</h2>
<ul>
<li>Server side: <code>Authorization: Bearer &lt;API key&gt;</code> on the upgrade request.</li>
<li>Browsers: mint a client secret with <code>POST /v1/realtime/client_secrets</code> (<code>{"expires_after":{"seconds":600}}</code>, 10 to 7200 s) using the API key, then open
<code>new WebSocket(url, ["realtime", "svc-client-secret." + secret])</code>. The API key never goes into the socket.</li>
<li><code>?model=svc-realtime</code> in the URL, or <code>session.model</code> in the first <code>session.update</code>.</li>
<li>The server sends nothing until the first valid <code>session.update</code>; events sent before it are held and handled in order right after <code>session.created</code>.</li>
</ul>
<nav class="toc" aria-label="Events"><div><h2>Client events</h2><ul>${toc(CLIENT_EVENT_TYPES)}</ul></div><div><h2>Server events</h2><ul>${toc(SERVER_EVENT_TYPES)}</ul></div></nav>
<h2 id="client-events">Client events</h2>
${clientRows.join('\n')}
<h2 id="server-events">Server events</h2>
${serverRows.join('\n')}
<h2 id="close-codes">Close codes</h2>
<table><thead><tr><th scope="col">Code</th><th scope="col">Meaning</th></tr></thead><tbody>
${closeRows}
</tbody></table>
</main>
</body>
</html>
`;
}

function eventSection(type: string, fields: string, summary: string, example: Record<string, unknown>): string {
  return `<section class="event" id="${anchor(type)}">
<h3><code>${type}</code></h3>
<p>${escape(summary)}</p>${fields ? `\n<p class="muted">${fields}</p>` : ''}
<pre tabindex="0"><code>${escape(JSON.stringify(example, null, 2))}</code></pre>
</section>`;
}
